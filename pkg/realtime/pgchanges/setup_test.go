package pgchanges

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// testSchema is the tables the tests subscribe to: notes under RLS (each
// member reads their own), readings without RLS and with typed columns.
const testSchema = `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END $$;
CREATE TABLE public.notes (id bigint PRIMARY KEY, owner uuid NOT NULL, body text);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.notes REPLICA IDENTITY FULL;
CREATE POLICY notes_own ON public.notes FOR SELECT TO authenticated USING (owner = auth.uid());
GRANT SELECT ON public.notes TO authenticated;
CREATE TABLE public.readings (
  id int PRIMARY KEY, n int4, big int8, price numeric, ok bool, at timestamptz, tag text, ref uuid,
  tags text[], doc jsonb);
ALTER TABLE public.readings REPLICA IDENTITY FULL;
GRANT SELECT ON public.readings TO anon, authenticated;
CREATE TABLE public.unpublished (id int PRIMARY KEY);
GRANT SELECT ON public.unpublished TO authenticated;
CREATE TABLE public.secret (id int PRIMARY KEY);
ALTER PUBLICATION supabase_realtime ADD TABLE public.notes, public.readings, public.secret;
`

// bundle is a test's database and gateways.
type bundle struct {
	db  *pgtest.DB
	bus *memBus
}

func setup(t testing.TB) *bundle {
	t.Helper()
	d := pgtest.New(t)
	if _, err := d.Pool.Exec(context.Background(), testSchema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return &bundle{db: d, bus: newMemBus()}
}

// gateway starts one Service on the bundle's database and bus; its stop
// function ends it (as a gateway dying would) and waits.
func (b *bundle) gateway(t testing.TB) (*Service, func()) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := New(Config{Pool: b.db.Pool, DirectURL: b.db.URL, Publication: "supabase_realtime", Bus: b.bus, Logger: log})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(ctx)
	}()
	var once bool
	stop := func() {
		if !once {
			once = true
			cancel()
			<-done
			b.waitSlotReleased(t, s)
		}
	}
	t.Cleanup(stop)
	return s, stop
}

// waitLeading waits until one of the services streams the WAL.
func waitLeading(t testing.TB, ss ...*Service) *Service {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		for _, s := range ss {
			if s.leading.Load() {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no gateway became the replication leader")
	return nil
}

func (b *bundle) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := b.db.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// waitSlotReleased waits until the server has dropped the temporary slot
// of a stopped gateway: the walsender exits a moment after its client,
// and until then the database cannot be dropped.
func (b *bundle) waitSlotReleased(t testing.TB, s *Service) {
	t.Helper()
	slot, _ := s.slot.Load().(string)
	if slot == "" {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		err := b.db.Pool.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&n)
		if err != nil || n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
