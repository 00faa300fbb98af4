package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// A client that leaves mid-request is a 499, not a logged 500; any other
// unknown failure is still an internal error.
func TestPgErrClientGoneIs499(t *testing.T) {
	var e *apierr.Error
	if err := pgErr("SELECT", fmt.Errorf("read: %w", context.Canceled)); !errors.As(err, &e) || e.Status != statusClientClosed {
		t.Fatalf("canceled: %v, want status 499", err)
	}
	if err := pgErr("SELECT", errors.New("disk on fire")); !errors.As(err, &e) || e.Status != 500 {
		t.Fatalf("unknown failure: %v, want 500", err)
	}
}
