package logtest_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/labelbase/labelbase/pkg/logtest"
)

// Writers and a reader share the buffer (run with -race), and Take hands
// out each line once.
func TestBufferSharedAndTaken(t *testing.T) {
	var b logtest.Buffer
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				fmt.Fprintf(&b, "w%d %d\n", i, j)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := len(b.Take()); got != 200 {
		t.Fatalf("took %d lines, want 200", got)
	}
	if got := b.Take(); !slices.Equal(got, []string{""}) {
		t.Fatalf("a second Take: %q, want nothing", got)
	}
	fmt.Fprintln(&b, "after")
	if got := b.Take(); !slices.Equal(got, []string{"after"}) {
		t.Fatalf("Take after a write: %q", got)
	}
	if b.String() != "" {
		t.Fatalf("Take left %q", b.String())
	}
}
