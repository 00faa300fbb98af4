package pgchanges

import (
	"context"
	"strings"
	"testing"
)

// Check refuses, with a reason, every subscription that could never
// deliver, and accepts the ones that can.
func TestCheck(t *testing.T) {
	b := setup(t)
	b.exec(t, `CREATE SCHEMA hidden; CREATE TABLE hidden.t (id int PRIMARY KEY); GRANT SELECT ON hidden.t TO anon;
		ALTER PUBLICATION supabase_realtime ADD TABLE hidden.t`)
	s := New(Config{Pool: b.db.Pool, DirectURL: b.db.URL, Bus: b.bus})
	ctx := context.Background()
	sub := func(table, filter, role, event string) Subscription {
		return Subscription{ID: 1, Event: event, Schema: "public", Table: table, Filter: filter, Role: role, Claims: claimsOf(memberA)}
	}
	tests := []struct {
		name    string
		sub     Subscription
		wantErr string // "" = accepted
	}{
		{"table", sub("notes", "", "authenticated", "*"), ""},
		{"typed filters", sub("readings", "n=gte.1,at=lt.2026-01-01,tag=in.(a,b),ref=eq.0000000a-0000-4000-8000-000000000000", "anon", "INSERT"), ""},
		{"whole schema", sub("", "", "anon", "*"), ""},
		{"star table", sub("*", "", "authenticated", "UPDATE"), ""},
		{"bad event", sub("notes", "", "authenticated", "TRUNCATE"), "event must be"},
		{"no schema", Subscription{Event: "*", Table: "notes", Role: "anon"}, "schema is required"},
		{"no such table", sub("nope", "", "authenticated", "*"), "table public.nope does not exist"},
		{"not published", sub("unpublished", "", "authenticated", "*"), "not in publication supabase_realtime"},
		{"no privilege", sub("secret", "", "authenticated", "*"), "may not SELECT from public.secret"},
		{"anon on member table", sub("notes", "", "anon", "*"), "may not SELECT"},
		{"unknown column", sub("readings", "nope=eq.1", "anon", "*"), `column "nope"`},
		{"bad value", sub("readings", "n=eq.ten", "anon", "*"), "invalid input syntax for type integer"},
		{"bad in value", sub("readings", "at=in.(2026-01-01,soon)", "anon", "*"), "filter value for at"},
		{"bad operator", sub("readings", "n=like.1", "anon", "*"), "operator must be one of"},
		{"filter without table", sub("", "n=eq.1", "anon", "*"), "a filter needs a table"},
		{"role outside the API roles", sub("readings", "", "postgres", "*"), `role "postgres" may not subscribe`},
		{"schema without usage", Subscription{Event: "*", Schema: "hidden", Table: "t", Role: "anon"}, "may not SELECT from hidden.t"},
		{"schema without tables", Subscription{Event: "*", Schema: "auth", Role: "authenticated"}, "no table of schema auth"},
		{"quoted identifier is not SQL", sub(`readings"; DROP TABLE x; --`, "", "anon", "*"), "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Check(ctx, tt.sub)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Check: %v, want accepted", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Check: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// The RLS table without a primary key cannot be checked per subscriber.
func TestCheckRLSWithoutKey(t *testing.T) {
	b := setup(t)
	b.exec(t, `CREATE TABLE public.loose (v int); ALTER TABLE public.loose ENABLE ROW LEVEL SECURITY;
		GRANT SELECT ON public.loose TO authenticated; ALTER PUBLICATION supabase_realtime ADD TABLE public.loose`)
	s := New(Config{Pool: b.db.Pool, DirectURL: b.db.URL, Bus: b.bus})
	err := s.Check(context.Background(), Subscription{Event: "*", Schema: "public", Table: "loose", Role: "authenticated"})
	if err == nil || !strings.Contains(err.Error(), "no primary key") {
		t.Errorf("Check = %v, want the no-primary-key refusal", err)
	}
}

func TestReady(t *testing.T) {
	b := setup(t)
	s := New(Config{Pool: b.db.Pool, DirectURL: b.db.URL, Bus: b.bus})
	if err := s.Ready(context.Background()); err != nil {
		t.Errorf("Ready on the test cluster (wal_level=logical): %v", err)
	}
	if err := readyError("replica"); err == nil || !strings.Contains(err.Error(), "wal_level=replica") ||
		!strings.Contains(err.Error(), "needs wal_level=logical") {
		t.Errorf("readyError(replica) = %v", err)
	}
}
