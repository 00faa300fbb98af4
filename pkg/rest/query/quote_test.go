package query

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// q and qi's one-allocation path must quote exactly as pgx does.
func TestQuoteMatchesPgx(t *testing.T) {
	names := []string{"labels", "", "Mixed Case", `quo"te`, `""`, "nul\x00byte", "naïve", "a.b", `x"`}
	for _, n := range names {
		if got, want := q(n), (pgx.Identifier{n}).Sanitize(); got != want {
			t.Errorf("q(%q) = %s, want %s", n, got, want)
		}
		for _, s := range names {
			tb := &schema.Table{Schema: s, Name: n}
			if got, want := qi(tb), (pgx.Identifier{s, n}).Sanitize(); got != want {
				t.Errorf("qi(%q, %q) = %s, want %s", s, n, got, want)
			}
		}
	}
}
