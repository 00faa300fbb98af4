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
  WITH CHECK (realtime.topic() LIKE 'contract-private-%');`)
	return err
}
