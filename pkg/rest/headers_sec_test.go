package rest

import (
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// SQL may set response headers (response.headers, RAISE SQLSTATE 'PGRST'),
// as with PostgREST, but never ones that change the message framing, the
// connection, or the CORS policy the gateway decides.
func TestSQLCannotSetFramingOrCORSHeaders(t *testing.T) {
	t.Parallel()
	forbidden := []string{"Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade",
		"TE", "Trailer", "Proxy-Authenticate", "Access-Control-Allow-Origin", "access-control-allow-credentials",
		"X-Request-Id", "Bad Name", "X-Ok\r\nInjected"}
	for _, name := range forbidden {
		h := http.Header{}
		res := &result{headers: `[{"` + jsonEscape(name) + `":"x"}]`}
		if _, err := applyGUCs(h, res, 200); err == nil {
			t.Errorf("response.headers set %q: %v", name, h)
		}
		e := raisePGRST(&pgconn.PgError{Code: "PGRST", Message: `{"code":"X","message":"m"}`,
			Detail: `{"status":400,"headers":{"` + jsonEscape(name) + `":"x"}}`})
		if len(e.Header) != 0 && e.Code != "PGRST121" {
			t.Errorf("RAISE PGRST set %q: %v", name, e.Header)
		}
	}
	// Ordinary headers still pass, Set-Cookie included (PostgREST allows it).
	h := http.Header{}
	res := &result{headers: `[{"X-Custom":"1"},{"Set-Cookie":"a=b"},{"Location":"/x"}]`}
	if _, err := applyGUCs(h, res, 200); err != nil || h.Get("X-Custom") != "1" || h.Get("Set-Cookie") != "a=b" {
		t.Fatalf("allowed headers: %v %v", h, err)
	}
	// A value with a line break is refused too.
	if _, err := applyGUCs(http.Header{}, &result{headers: `[{"X-A":"1\r\nSet-Cookie: s=1"}]`}, 200); err == nil {
		t.Error("a header value with CR/LF was accepted")
	}
}

func jsonEscape(s string) string {
	out := ""
	for _, r := range s {
		switch r {
		case '\r':
			out += `\r`
		case '\n':
			out += `\n`
		default:
			out += string(r)
		}
	}
	return out
}
