// Package pgrst holds the PostgREST error codes /rest/v1 sends and the
// errors built from them that more than one place raises.
//
// The codes are PostgREST's own (PGRSTxxx), so postgrest-js and apps that
// branch on error.code behave as they would against hosted Supabase. Every
// PGRST code the gateway can send is named here and nowhere else; a new one
// goes in this list first.
package pgrst

import (
	"fmt"
	"net/http"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// Group 0: connection and pool.
const (
	CodeConnection  = "PGRST000" // database unreachable (503), request canceled (499)
	CodePoolTimeout = "PGRST003" // no pooled connection in time (504)
)

// Group 1: the request.
const (
	CodeParse             = "PGRST100" // query string does not parse
	CodeRPCMethod         = "PGRST101" // method not allowed on /rpc
	CodeBody              = "PGRST102" // body unreadable, invalid or too large
	CodeRange             = "PGRST103" // range not satisfiable (416)
	CodePutFilters        = "PGRST105" // PUT filters are not exactly the primary key
	CodeSchema            = "PGRST106" // schema not exposed
	CodeMediaType         = "PGRST107" // Accept or Content-Type not supported
	CodeNotEmbedded       = "PGRST108" // filter/order on a resource not embedded
	CodeGUCHeaders        = "PGRST111" // response.headers set badly by SQL
	CodeGUCStatus         = "PGRST112" // response.status set badly by SQL
	CodePutRange          = "PGRST114" // PUT with limit/offset/Range
	CodePutMismatch       = "PGRST115" // PUT body disagrees with the URL
	CodeSingular          = "PGRST116" // object requested, not exactly one row
	CodeMethod            = "PGRST117" // unsupported HTTP method
	CodeRelatedOrder      = "PGRST118" // order by a to-many embed
	CodeSpread            = "PGRST119" // spread on a to-many embed
	CodeEmbedFilter       = "PGRST120" // bad operator on an embedded resource
	CodeRaiseJSON         = "PGRST121" // RAISE SQLSTATE 'PGRST' with bad JSON
	CodeStrictPrefs       = "PGRST122" // invalid Prefer with handling=strict
	CodeAggregates        = "PGRST123" // aggregates disabled
	CodeMaxAffected       = "PGRST124" // more rows affected than max-affected
	CodeMaxAffectedRPC    = "PGRST128" // max-affected on a function not returning a set
	CodeNotImplemented    = "PGRST127" // feature not implemented
	CodeOpenAPIDisabled   = "PGRST126" // root endpoint with openapi-mode disabled
	CodeAmbiguousFunction = "PGRST203" // several overloads fit
)

// Group 2: the schema cache.
const (
	CodeNoRelationship   = "PGRST200" // no relationship for an embed
	CodeAmbiguousEmbed   = "PGRST201" // several relationships for an embed
	CodeFunctionNotFound = "PGRST202" // no function with these arguments
	CodeColumnNotFound   = "PGRST204" // write names an unknown column
	CodeTableNotFound    = "PGRST205" // no such table or view
	CodeRaise            = "PGRST"    // SQLSTATE of RAISE with a custom response
)

// Group 3: JWT.
const (
	CodeJWTInvalid = "PGRST301" // token cannot be decoded or verified
	CodeJWTClaims  = "PGRST303" // claims refused (expired, role, audience)
)

// InvalidBody is PGRST102 for a body that is not the JSON expected.
func InvalidBody() *apierr.Error {
	return apierr.New(http.StatusBadRequest, CodeBody, "Empty or invalid json")
}

// Body is PGRST102 with a specific message.
func Body(format string, args ...any) *apierr.Error {
	return apierr.New(http.StatusBadRequest, CodeBody, format, args...)
}

// RangeNotSatisfiable is PGRST103 (416) with PostgREST's details.
func RangeNotSatisfiable(details string) *apierr.Error {
	e := apierr.New(http.StatusRequestedRangeNotSatisfiable, CodeRange, "Requested range not satisfiable")
	e.Details = details
	return e
}

// Singular is PGRST116: an object was requested (Accept:
// application/vnd.pgrst.object+json) but the result has n rows.
func Singular(n int64) *apierr.Error {
	e := apierr.New(http.StatusNotAcceptable, CodeSingular, "Cannot coerce the result to a single JSON object")
	e.Details = fmt.Sprintf("The result contains %d rows", n)
	return e
}

// UnsupportedMethod is PGRST117.
func UnsupportedMethod(method string) *apierr.Error {
	return apierr.New(http.StatusMethodNotAllowed, CodeMethod, "Unsupported HTTP method: %s", method)
}

// NotEmbedded is PGRST108 for a filter or order naming a resource the
// select does not embed.
func NotEmbedded(name string) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, CodeNotEmbedded, "'%s' is not an embedded resource in this request", name)
	e.Hint = fmt.Sprintf("Verify that '%s' is included in the 'select' query parameter.", name)
	return e
}

// Aggregates is PGRST123: the select uses an aggregate while they are off.
func Aggregates() *apierr.Error {
	return apierr.New(http.StatusBadRequest, CodeAggregates, "Use of aggregate functions is not allowed")
}

// MaxAffected is PGRST124: the request changed n rows, more than its
// Prefer: max-affected allows; the transaction is rolled back.
func MaxAffected(n int64) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, CodeMaxAffected, "Query result exceeds max-affected preference constraint")
	e.Details = fmt.Sprintf("The query affects %d rows", n)
	return e
}

// NotImplemented is PGRST127 with what is missing in details.
func NotImplemented(details string) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, CodeNotImplemented, "Feature not implemented")
	e.Details = details
	return e
}
