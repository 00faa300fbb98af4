package apierr_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labelbase/labelbase/pkg/apierr"
)

func TestGoTrueShapes(t *testing.T) {
	t.Parallel()
	e := apierr.New(http.StatusUnprocessableEntity, "weak_password", "Password should be at least %d characters.", 6)
	e.Fields = map[string]any{"weak_password": map[string]any{"reasons": []string{"length"}}}

	r := httptest.NewRequest("POST", "/auth/v1/signup", nil)
	r.Header.Set(apierr.APIVersionHeader, "2024-01-01")
	b, h := apierr.Body(e, apierr.GoTrue, r)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["code"] != "weak_password" || got["message"] != "Password should be at least 6 characters." || got["msg"] != nil {
		t.Errorf("2024 body = %s", b)
	}
	if h.Get(apierr.APIVersionHeader) != "2024-01-01" || h.Get("X-Sb-Error-Code") != "weak_password" {
		t.Errorf("2024 headers = %v", h)
	}
	if _, ok := got["weak_password"].(map[string]any); !ok {
		t.Errorf("extra field lost: %s", b)
	}

	legacy := httptest.NewRequest("POST", "/auth/v1/signup", nil)
	b, h = apierr.Body(e, apierr.GoTrue, legacy)
	got = nil
	_ = json.Unmarshal(b, &got)
	if got["code"] != float64(422) || got["error_code"] != "weak_password" || got["msg"] == nil {
		t.Errorf("legacy body = %s", b)
	}
	if h.Get(apierr.APIVersionHeader) != "" || h.Get("X-Sb-Error-Code") != "weak_password" {
		t.Errorf("legacy headers = %v", h)
	}
}

func TestPostgRESTShape(t *testing.T) {
	t.Parallel()
	e := &apierr.Error{Status: 404, Code: "PGRST205", Message: "Could not find the table", Hint: "Perhaps you meant the table 'public.labels'"}
	b, _ := apierr.Body(e, apierr.PostgREST, httptest.NewRequest("GET", "/rest/v1/label", nil))
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	if got["code"] != "PGRST205" || got["details"] != nil || got["hint"] != "Perhaps you meant the table 'public.labels'" {
		t.Errorf("body = %s", b)
	}
	if _, ok := got["details"]; !ok {
		t.Errorf("details must be present as null: %s", b)
	}
}

func TestInternalHidesCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("connection refused to 10.0.0.1")
	e := apierr.As(cause)
	if e.Status != 500 || !errors.Is(e, cause) {
		t.Fatalf("As(plain error) = %v", e)
	}
	b, _ := apierr.Body(e, apierr.PostgREST, httptest.NewRequest("GET", "/", nil))
	if json.Valid(b) == false || string(b) == "" || contains(string(b), "10.0.0.1") {
		t.Errorf("cause leaked: %s", b)
	}
}

func contains(s, sub string) bool {
	return len(sub) > 0 && len(s) >= len(sub) && (s == sub || (len(s) > 0 && (indexOf(s, sub) >= 0)))
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
