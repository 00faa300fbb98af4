package app_test

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// mfaProbeSQL is a table the MFA contract suite (frontend/tests/contract/
// mfa.test.mjs) writes and reads through /rest/v1 to show that row-level
// security can require a second factor: its rows are the owner's, and only
// readable and writable with an aal2 token. It belongs to the test, not to
// the app's schema: the policy pattern is Supabase's documented one, a
// permissive owner policy and a restrictive one on auth.jwt()->>'aal'.
const mfaProbeSQL = `
CREATE TABLE public.mfa_probe_notes (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner uuid NOT NULL DEFAULT auth.uid(),
    body  text NOT NULL
);
ALTER TABLE public.mfa_probe_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY owner_only ON public.mfa_probe_notes TO authenticated
    USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
CREATE POLICY second_factor ON public.mfa_probe_notes AS RESTRICTIVE TO authenticated
    USING ((SELECT auth.jwt() ->> 'aal') = 'aal2') WITH CHECK ((SELECT auth.jwt() ->> 'aal') = 'aal2');
GRANT SELECT, INSERT ON public.mfa_probe_notes TO authenticated;
`

// createMFAProbe adds mfaProbeSQL's table before the gateway loads its
// schema cache.
func createMFAProbe(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, mfaProbeSQL)
	return err
}
