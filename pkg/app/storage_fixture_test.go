package app_test

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// createStorageFixtures gives the storage contract suite what a project's
// own SQL would: a private bucket whose objects under <uid>/ belong to that
// member (storage.foldername, as in Supabase's guides), and a public one.
func createStorageFixtures(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `
INSERT INTO storage.buckets (id, name, public) VALUES
  ('contract-private', 'contract-private', false), ('contract-public', 'contract-public', true);
CREATE POLICY contract_own_select ON storage.objects FOR SELECT TO authenticated
  USING (bucket_id = 'contract-private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY contract_own_insert ON storage.objects FOR INSERT TO authenticated
  WITH CHECK (bucket_id = 'contract-private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY contract_own_update ON storage.objects FOR UPDATE TO authenticated
  USING (bucket_id = 'contract-private' AND (storage.foldername(name))[1] = auth.uid()::text)
  WITH CHECK (bucket_id = 'contract-private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY contract_own_delete ON storage.objects FOR DELETE TO authenticated
  USING (bucket_id = 'contract-private' AND (storage.foldername(name))[1] = auth.uid()::text);`)
	return err
}
