// Package apierr is the one error type handlers return and the renderers
// that turn it into GoTrue's or PostgREST's wire shape.
//
// An Error has a public half (status, code, message, details, hint) that is
// sent, and a private Cause that is only logged. Handlers never write error
// bodies themselves: they return an error and the server's error handler
// calls Render.
package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Error is a failure to report to a client.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details and Hint are PostgREST's fields; nil renders as null.
	Details any
	Hint    any
	// Fields are extra top-level body fields, e.g. GoTrue's weak_password.
	Fields map[string]any
	// Header holds response headers to set, e.g. Retry-After.
	Header http.Header
	// Cause is logged, never sent.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Cause }

// StatusCode lets echo read the status.
func (e *Error) StatusCode() int { return e.Status }

// New returns an Error with a formatted message.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithCause returns a copy of e that carries cause for the logs.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Cause = cause
	return &c
}

// WithHeader returns a copy of e that sets a response header.
func (e *Error) WithHeader(key, value string) *Error {
	c := *e
	c.Header = c.Header.Clone()
	if c.Header == nil {
		c.Header = http.Header{}
	}
	c.Header.Set(key, value)
	return &c
}

// Internal wraps an unexpected failure: the client sees a generic 500 and
// the cause goes to the log.
func Internal(cause error) *Error {
	return &Error{Status: http.StatusInternalServerError, Code: "unexpected_failure",
		Message: "Unexpected failure, please try again later.", Cause: cause}
}

// As returns err as an *Error, wrapping anything else as Internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// Flavor picks the wire shape.
type Flavor int

const (
	// GoTrue is /auth/v1's shape.
	GoTrue Flavor = iota
	// PostgREST is /rest/v1's shape.
	PostgREST
	// Storage is /storage/v1's shape, supabase/storage's
	// {statusCode: "<code>", code, error, message}: the HTTP status is 400
	// for every refusal and the real one is the body's statusCode string
	// (Fields carry statusCode and error; see pkg/storage/errors.go).
	Storage
)

// APIVersionHeader is the header supabase-js sends to ask for the 2024 shape.
const APIVersionHeader = "X-Supabase-Api-Version"

// apiVersion20240101 is the first version with the {code, message} shape.
const apiVersion20240101 = "2024-01-01"

// Body renders e for flavor. For GoTrue, the request's API version picks
// between {code, message} (2024-01-01 and later) and the legacy
// {code: <status>, error_code, msg}. It also returns headers to set.
func Body(e *Error, flavor Flavor, r *http.Request) ([]byte, http.Header) {
	h := http.Header{}
	for k, v := range e.Header {
		h[k] = v
	}
	var body map[string]any
	switch flavor {
	case PostgREST:
		body = map[string]any{"code": e.Code, "message": e.Message, "details": e.Details, "hint": e.Hint}
	case Storage:
		body = map[string]any{"statusCode": strconv.Itoa(e.Status), "code": e.Code, "error": e.Code, "message": e.Message}
	default:
		h.Set("X-Sb-Error-Code", e.Code)
		if v := strings.TrimSpace(r.Header.Get(APIVersionHeader)); v != "" && v >= apiVersion20240101 {
			h.Set(APIVersionHeader, apiVersion20240101)
			body = map[string]any{"code": e.Code, "message": e.Message}
		} else {
			body = map[string]any{"code": e.Status, "error_code": e.Code, "msg": e.Message}
		}
	}
	for k, v := range e.Fields {
		body[k] = v
	}
	b, err := json.Marshal(body)
	if err != nil {
		b = []byte(`{"message":"unrenderable error"}`)
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	return b, h
}
