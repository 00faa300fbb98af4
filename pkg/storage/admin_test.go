package storage

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestAdminStorageUse: public.admin_storage_use() sums objects and bytes
// per bucket for admins only, whatever the storage policies say.
func TestAdminStorageUse(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	e.put(e.service, "public", "a.txt", "12345", false).wantOK(t)
	e.put(e.service, "public", "b.txt", "123", false).wantOK(t)
	ctx := context.Background()
	type row struct {
		id      string
		objects int
		bytes   int64
	}
	call := func(role string, claims []byte) ([]row, error) {
		var out []row
		err := dbpkg.Tx(ctx, e.api.pool, role, claims, true, func(tx pgx.Tx) error {
			// Only this test's buckets: app migrations add their own (avatars).
			rows, err := tx.Query(ctx, `SELECT bucket_id, objects, bytes FROM public.admin_storage_use() WHERE bucket_id IN ('private', 'public')`)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.id, &r.objects, &r.bytes); err != nil {
					return err
				}
				out = append(out, r)
			}
			return rows.Err()
		})
		return out, err
	}
	got, err := call("service_role", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1] != (row{"public", 2, 8}) || got[0] != (row{"private", 0, 0}) {
		t.Fatalf("storage use %+v", got)
	}
	if _, err := call("authenticated", pgtest.UserClaims(e.userA)); err == nil {
		t.Fatal("a member read the storage use")
	}
	if _, err := call("anon", nil); err == nil {
		t.Fatal("anon read the storage use")
	}
}
