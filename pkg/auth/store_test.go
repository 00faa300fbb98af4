package auth

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/apierr"
)

func TestTranslate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		wantCode string // "" means not an *apierr.Error
		notFound bool
	}{
		{"no rows", pgx.ErrNoRows, "", true},
		{"wrapped no rows", fmt.Errorf("x: %w", pgx.ErrNoRows), "", true},
		{"email taken", &pgconn.PgError{Code: "23505", ConstraintName: "users_email_partial_key"}, "user_already_exists", false},
		{"other unique violation", &pgconn.PgError{Code: "23505", ConstraintName: "identities_provider_id_provider_key"}, "", false},
		{"invite refused", &pgconn.PgError{Code: "P0001", Message: "Invalid invite code", Detail: "invalid_invite_code"}, "invalid_invite_code", false},
		{"NUL in text", &pgconn.PgError{Code: "22021", Message: "invalid byte sequence"}, "validation_failed", false},
		{"NUL in jsonb", &pgconn.PgError{Code: "22P05", Message: "unsupported Unicode escape sequence"}, "validation_failed", false},
		{"other raise", &pgconn.PgError{Code: "P0001", Message: "boom"}, "", false},
		{"connection", errors.New("conn reset"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := translate("op", tc.err)
			if errors.Is(got, errNotFound) != tc.notFound {
				t.Fatalf("notFound = %v for %v", !tc.notFound, got)
			}
			var ae *apierr.Error
			isAPI := errors.As(got, &ae)
			if tc.wantCode == "" {
				if isAPI {
					t.Fatalf("got API error %v, want an internal one", ae)
				}
				if !tc.notFound && apierr.As(got).Status != 500 {
					t.Fatalf("status %d", apierr.As(got).Status)
				}
				return
			}
			if !isAPI || ae.Code != tc.wantCode || (ae.Status != 422 && ae.Status != 400) {
				t.Fatalf("got %v, want a 4xx %s", got, tc.wantCode)
			}
			if !errors.Is(got, tc.err) {
				t.Error("cause not kept")
			}
		})
	}
	if translate("op", nil) != nil {
		t.Error("nil not kept")
	}
}
