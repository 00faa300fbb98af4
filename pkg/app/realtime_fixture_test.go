package app_test

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// createRealtimePolicies gives the Realtime contract suite
// (frontend/tests/contract/realtime.test.mjs) private channels to use: an
// authenticated user may read and send on topics starting with
// "contract-private-"; anon may do neither. They are Supabase's policy
// shape on realtime.messages, with realtime.topic().
func createRealtimePolicies(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `
CREATE POLICY "contract read" ON realtime.messages FOR SELECT TO authenticated
  USING (realtime.topic() LIKE 'contract-private-%');
CREATE POLICY "contract send" ON realtime.messages FOR INSERT TO authenticated
  WITH CHECK (realtime.topic() LIKE 'contract-private-%');

-- postgres_changes: each member reads and writes only their own notes;
-- the table is in supabase_realtime, another one is not.
CREATE TABLE public.contract_notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL,
  score int NOT NULL DEFAULT 0
);
ALTER TABLE public.contract_notes ENABLE ROW LEVEL SECURITY;
-- The whole old row in UPDATE events (Supabase's rule for old_record).
ALTER TABLE public.contract_notes REPLICA IDENTITY FULL;
CREATE POLICY "own notes" ON public.contract_notes FOR ALL TO authenticated
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
GRANT SELECT, INSERT, UPDATE, DELETE ON public.contract_notes TO authenticated;
ALTER PUBLICATION supabase_realtime ADD TABLE public.contract_notes;
CREATE TABLE public.contract_unpublished (id int PRIMARY KEY);
GRANT SELECT ON public.contract_unpublished TO authenticated;`)
	return err
}
