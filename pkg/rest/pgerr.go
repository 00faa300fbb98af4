package rest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

// translate turns a database error into PostgREST's response: the
// SQLSTATE as code, PostgreSQL's message, detail and hint, and the status
// from PostgREST's table. This is the only place pgx errors are mapped.
func translate(err error, authed bool) *apierr.Error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code == pgrst.CodeRaise {
			return raisePGRST(pe)
		}
		e := &apierr.Error{Status: pgStatus(pe, authed), Code: pe.Code, Message: pe.Message, Cause: err}
		if pe.Detail != "" {
			e.Details = pe.Detail
		}
		if pe.Hint != "" {
			e.Hint = pe.Hint
		}
		if e.Status == http.StatusUnauthorized {
			e = e.WithHeader("WWW-Authenticate", "Bearer")
		}
		return e
	}
	if errors.Is(err, context.Canceled) {
		// The client went away; nobody reads this answer.
		return apierr.New(499, pgrst.CodeConnection, "Request canceled").WithCause(err)
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) {
		e := apierr.New(http.StatusServiceUnavailable, pgrst.CodeConnection, "Database connection error. Retrying the connection.")
		return e.WithCause(err)
	}
	return apierr.Internal(err)
}

// pgStatus is PostgREST's SQLSTATE → HTTP status table.
func pgStatus(pe *pgconn.PgError, authed bool) int {
	c := pe.Code
	switch c {
	case "23503", "23505":
		return 409
	case "25006":
		return 405
	case "21000":
		if strings.HasSuffix(pe.Message, "requires a WHERE clause") {
			return 400
		}
		return 500
	case "22023":
		if strings.HasPrefix(pe.Message, "role") && strings.HasSuffix(pe.Message, "does not exist") {
			return 401
		}
		return 400
	case "53400":
		return 500
	case "54000", "54001", "54011", "54023":
		// Program limits (array dimensions, statement too complex, too many
		// columns or arguments). PostgREST answers 500; here they are the
		// request's own doing — a filter value nested too deep, a select of
		// thousands of columns — so the client is told, with a 400.
		return 400
	case "57P01", "57P02", "57P03":
		// Shutdown, crash, not accepting connections yet: the database is
		// restarting, a cause outside the request.
		return 503
	case "P0001":
		return 400
	case "42883":
		return 404
	case "42P01":
		return 404
	case "42P17":
		return 500
	case "42501":
		if authed {
			return 403
		}
		return 401
	}
	if strings.HasPrefix(c, "PT") {
		if n, err := strconv.Atoi(c[2:]); err == nil && n >= 100 && n <= 599 {
			return n
		}
		return 500
	}
	switch c[:2] {
	case "08", "53":
		return 503
	case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "P0", "XX":
		return 500
	case "0L", "0P", "28":
		return 403
	}
	return 400
}

// raisePGRST decodes RAISE SQLSTATE 'PGRST': MESSAGE holds {code, message,
// details, hint} and DETAIL holds {status, headers}.
func raisePGRST(pe *pgconn.PgError) *apierr.Error {
	var m struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
		Details any     `json:"details"`
		Hint    any     `json:"hint"`
	}
	var d struct {
		Status  *int              `json:"status"`
		Headers map[string]string `json:"headers"`
	}
	fail := func(details, hint string) *apierr.Error {
		e := apierr.New(http.StatusInternalServerError, pgrst.CodeRaiseJSON, "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error")
		e.Details, e.Hint = details, hint
		return e
	}
	if json.Unmarshal([]byte(pe.Message), &m) != nil || m.Code == nil || m.Message == nil {
		return fail("Invalid JSON value for MESSAGE: '"+pe.Message+"'", "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.")
	}
	if pe.Detail == "" {
		return fail("DETAIL is missing in the RAISE statement", "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.")
	}
	if json.Unmarshal([]byte(pe.Detail), &d) != nil || d.Status == nil || d.Headers == nil || *d.Status < 100 || *d.Status > 599 {
		return fail("Invalid JSON value for DETAIL: '"+pe.Detail+"'", "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.")
	}
	e := &apierr.Error{Status: *d.Status, Code: *m.Code, Message: *m.Message, Details: m.Details, Hint: m.Hint}
	for k, v := range d.Headers {
		if !sqlHeaderAllowed(k, v) {
			// Framing, CORS and malformed headers are the gateway's.
			continue
		}
		e = e.WithHeader(k, v)
	}
	return e
}
