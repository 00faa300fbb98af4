package storage

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// sdkSeed is a seed written the way storage-js's own test seed
// (test/supabase/seed.sql) is: users inserted straight into auth.users
// with crypt()/gen_salt() called unqualified, buckets and object rows with
// owner, owner_id and fixed timestamps, and every form of policy it uses
// (FOR ALL USING on auth.uid(), storage.foldername(), a fixed name,
// auth.role(), owner_id = auth.uid()::text, and FOR ALL WITH CHECK alone).
// The names and ids are this test's own; the statements' shapes are what
// must apply unchanged after migrate up.
const sdkSeed = `
INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
    raw_app_meta_data, raw_user_meta_data, created_at, updated_at, confirmation_token, email_change,
    email_change_token_new, recovery_token) VALUES
  ('00000000-0000-0000-0000-000000000000', 'aaaaaaaa-0000-4000-8000-000000000001', 'authenticated', 'authenticated',
   'seed-one@example.com', crypt('seed-password', gen_salt('bf')), NOW(), '{"provider": "email", "providers": ["email"]}', '{}', NOW(), NOW(), '', '', '', ''),
  ('00000000-0000-0000-0000-000000000000', 'aaaaaaaa-0000-4000-8000-000000000002', 'authenticated', 'authenticated',
   'seed-two@example.com', crypt('seed-password', gen_salt('bf')), NOW(), '{"provider": "email", "providers": ["email"]}', '{}', NOW(), NOW(), '', '', '', ''),
  ('00000000-0000-0000-0000-000000000000', 'aaaaaaaa-0000-4000-8000-000000000003', 'authenticated', 'authenticated',
   'seed-three@example.com', crypt('seed-password', gen_salt('bf')), NOW(), '{"provider": "email", "providers": ["email"]}', '{}', NOW(), NOW(), '', '', '', '');

INSERT INTO storage.buckets (id, name, owner, owner_id, created_at, updated_at, public) VALUES
  ('seeded', 'seeded', 'aaaaaaaa-0000-4000-8000-000000000002', 'aaaaaaaa-0000-4000-8000-000000000002', '2021-02-17T04:43:32.770Z', '2021-02-17T04:43:32.770Z', false),
  ('open', 'open', 'aaaaaaaa-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000001', '2021-02-17T04:43:32.770Z', '2021-02-17T04:43:32.770Z', false),
  ('target', 'target', 'aaaaaaaa-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000001', '2021-02-17T04:43:32.770Z', '2021-02-17T04:43:32.770Z', false);

INSERT INTO storage.objects (id, bucket_id, name, owner, created_at, updated_at, last_accessed_at, metadata) VALUES
  ('bbbbbbbb-0000-4000-8000-000000000001', 'seeded', 'shared/poster.png', 'aaaaaaaa-0000-4000-8000-000000000001', NOW(), NOW(), NOW(), '{"mimetype": "image/png", "size": 1234}'),
  ('bbbbbbbb-0000-4000-8000-000000000002', 'seeded', 'members/sleeve.jpg', 'aaaaaaaa-0000-4000-8000-000000000003', NOW(), NOW(), NOW(), '{"size": 1234}'),
  ('bbbbbbbb-0000-4000-8000-000000000003', 'seeded', 'members/move-me.png', 'aaaaaaaa-0000-4000-8000-000000000001', NOW(), NOW(), NOW(), '{"mimetype": "image/png", "size": 1234}'),
  ('bbbbbbbb-0000-4000-8000-000000000004', 'seeded', 'members/drop-me.png', 'aaaaaaaa-0000-4000-8000-000000000001', NOW(), NOW(), NOW(), '{"mimetype": "image/png", "size": 1234}'),
  ('bbbbbbbb-0000-4000-8000-000000000005', 'seeded', 'misc/only-three.jpg', 'aaaaaaaa-0000-4000-8000-000000000003', NOW(), NOW(), NOW(), '{"size": 1234}'),
  ('bbbbbbbb-0000-4000-8000-000000000006', 'seeded', 'hidden/nobody.png', 'aaaaaaaa-0000-4000-8000-000000000001', NOW(), NOW(), NOW(), '{"size": 1234}');

CREATE POLICY seed_buckets_one ON storage.buckets FOR ALL USING (auth.uid() = 'aaaaaaaa-0000-4000-8000-000000000001'::uuid);
CREATE POLICY seed_objects_one ON storage.objects FOR ALL USING (auth.uid() = 'aaaaaaaa-0000-4000-8000-000000000001'::uuid);
CREATE POLICY seed_shared_folder ON storage.objects FOR ALL USING (bucket_id = 'seeded' AND (storage.foldername(name))[1] = 'shared');
CREATE POLICY seed_three_file ON storage.objects FOR ALL USING (bucket_id = 'seeded' AND name = 'misc/only-three.jpg' AND auth.uid() = 'aaaaaaaa-0000-4000-8000-000000000003'::uuid);
CREATE POLICY seed_members ON storage.objects FOR ALL USING (bucket_id = 'seeded' AND (storage.foldername(name))[1] = 'members' AND auth.role() = 'authenticated');
CREATE POLICY seed_owner_only ON storage.objects FOR ALL USING (bucket_id = 'seeded' AND (storage.foldername(name))[1] = 'mine' AND owner_id = auth.uid()::text);
CREATE POLICY seed_open_insert ON storage.objects FOR ALL WITH CHECK (bucket_id = 'open');
`

// seedLoader stands in for what such a seed meets after migrate up: the
// database's default search_path with extensions (20261128023100; a cloned
// test database does not inherit per-database settings, so it is set here)
// and the loader's one documented setting, labelbase.invite_required=off,
// since Labelbase's app refuses users without an invite code.
const seedLoader = `SET search_path = "$user", public, extensions; SET labelbase.invite_required = 'off';`

const (
	seedOne   = "aaaaaaaa-0000-4000-8000-000000000001"
	seedTwo   = "aaaaaaaa-0000-4000-8000-000000000002"
	seedThree = "aaaaaaaa-0000-4000-8000-000000000003"
)

// TestSDKSeedAppliesAndDecides loads a seed shaped like storage-js's test
// seed after migrate up, unchanged but for the loader's two settings, and
// checks that each of its policies decides through /storage/v1 as it does
// on Supabase.
func TestSDKSeedAppliesAndDecides(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, seedLoader+sdkSeed+`RESET search_path; RESET labelbase.invite_required;`)
	one, two, three := e.sign(seedOne), e.sign(seedTwo), e.sign(seedThree)

	// Buckets: user one sees and manages every bucket, user two none.
	var bs []map[string]any
	r := e.do(http.MethodGet, "/bucket", one, nil)
	r.wantOK(t)
	_ = json.Unmarshal(r.body, &bs)
	if len(bs) < 3 {
		t.Fatalf("user one lists %s", r)
	}
	r = e.do(http.MethodGet, "/bucket", two, nil)
	r.wantOK(t)
	if strings.TrimSpace(string(r.body)) != "[]" {
		t.Fatalf("user two lists %s", r)
	}
	e.doJSON(http.MethodPost, "/bucket", one, map[string]any{"name": "seed-made", "public": false}).wantOK(t)
	e.doJSON(http.MethodPost, "/bucket", two, map[string]any{"name": "seed-refused"}).wantErr(t, "403", "INSERT refused")

	// A folder anyone may use, even anon.
	e.do(http.MethodGet, "/object/info/seeded/shared/poster.png", e.anon, nil).wantOK(t)
	e.put(e.anon, "seeded", "shared/new.txt", "x", false).wantOK(t)
	// A folder for any signed-in member, not anon.
	e.do(http.MethodGet, "/object/info/seeded/members/sleeve.jpg", two, nil).wantOK(t)
	e.do(http.MethodGet, "/object/info/seeded/members/sleeve.jpg", e.anon, nil).wantErr(t, "404", "Object not found")
	// One file for one user.
	e.do(http.MethodGet, "/object/info/seeded/misc/only-three.jpg", three, nil).wantOK(t)
	e.do(http.MethodGet, "/object/info/seeded/misc/only-three.jpg", two, nil).wantErr(t, "404", "Object not found")
	// User one's FOR ALL policy reaches everything, others nothing outside theirs.
	e.do(http.MethodGet, "/object/info/seeded/hidden/nobody.png", one, nil).wantOK(t)
	e.do(http.MethodGet, "/object/info/seeded/hidden/nobody.png", three, nil).wantErr(t, "404", "Object not found")

	// A folder for the owner: owner_id = auth.uid()::text.
	e.put(two, "seeded", "mine/two.txt", "two's", false).wantOK(t)
	e.do(http.MethodGet, "/object/seeded/mine/two.txt", two, nil).wantOK(t)
	e.do(http.MethodGet, "/object/seeded/mine/two.txt", three, nil).wantErr(t, "404", "Object not found")
	e.put(three, "seeded", "mine/two.txt", "taken", true).wantErr(t, "403", "refused")

	// Move and remove under the members' folder (SELECT + UPDATE, SELECT + DELETE).
	e.doJSON(http.MethodPost, "/object/move", two, map[string]any{"bucketId": "seeded",
		"sourceKey": "members/move-me.png", "destinationKey": "members/moved.png"}).wantOK(t)
	e.doJSON(http.MethodPost, "/object/move", e.anon, map[string]any{"bucketId": "seeded",
		"sourceKey": "members/moved.png", "destinationKey": "shared/stolen.png"}).wantErr(t, "404", "Object not found")
	r = e.doJSON(http.MethodDelete, "/object/seeded", two, map[string]any{"prefixes": []string{"members/drop-me.png", "hidden/nobody.png"}})
	r.wantOK(t)
	if !strings.Contains(string(r.body), "members/drop-me.png") || strings.Contains(string(r.body), "hidden/nobody.png") {
		t.Fatalf("remove answered %s", r)
	}

	// A WITH CHECK-only policy lets anyone insert but read nothing back.
	e.put(e.anon, "open", "drop.txt", "x", false).wantOK(t)
	e.do(http.MethodGet, "/object/info/open/drop.txt", e.anon, nil).wantErr(t, "404", "Object not found")
	e.do(http.MethodGet, "/object/info/open/drop.txt", one, nil).wantOK(t)

	// Moves and copies across buckets, as storage-js's suite does into its
	// own seeded bucket.
	e.put(one, "seed-made", "testpath/a.txt", "a", false).wantOK(t)
	e.doJSON(http.MethodPost, "/object/copy", one, map[string]any{"bucketId": "seed-made", "sourceKey": "testpath/a.txt",
		"destinationBucket": "target", "destinationKey": "testpath/b.txt"}).wantOK(t)
	e.doJSON(http.MethodPost, "/object/move", one, map[string]any{"bucketId": "seed-made", "sourceKey": "testpath/a.txt",
		"destinationBucket": "target", "destinationKey": "testpath/c.txt"}).wantOK(t)
	if d := e.do(http.MethodGet, "/object/target/testpath/c.txt", one, nil); d.status != http.StatusOK || string(d.body) != "a" {
		t.Fatalf("moved object: %d %s", d.status, d.body)
	}
}

// TestMigrateUpGivesSeedsSupabaseDefaults runs migrate up on an empty
// database (a cloned test database does not inherit per-database
// settings) and checks what Supabase seeds rely on: extensions on the
// search_path of new sessions, so crypt() and gen_salt() resolve
// unqualified, and storage.extension() as Supabase defines it. Down undoes
// both.
func TestMigrateUpGivesSeedsSupabaseDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewEmpty(t)
	m, err := migrate.New(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	fresh := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, db.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	c := fresh()
	var path string
	if err := c.QueryRow(ctx, `SHOW search_path`).Scan(&path); err != nil || path != `"$user", public, extensions` {
		t.Fatalf("search_path %q %v", path, err)
	}
	// The seed's users still need the app's invite rule lifted; nothing else.
	if _, err := c.Exec(ctx, `SET labelbase.invite_required = 'off';`+sdkSeed); err != nil {
		t.Fatalf("seed after migrate up: %v", err)
	}
	for name, want := range map[string]string{"a/b/c.tar.gz": "gz", "photo.JPG": "JPG", "folder/README": "README", "x/": ""} {
		var got string
		if err := c.QueryRow(ctx, `SELECT coalesce(storage.extension($1), '<null>')`, name).Scan(&got); err != nil || got != want {
			t.Errorf("storage.extension(%q) = %q %v, want %q", name, got, err, want)
		}
	}
	// Down to just before the migration that set the defaults, however
	// many came after it.
	if err := m.Steps(-pgtest.MigrationsFrom(t, storageDefaultsVersion)); err != nil {
		t.Fatal(err)
	}
	c = fresh()
	var ext string
	if err := c.QueryRow(ctx, `SELECT current_setting('search_path'), storage.extension('folder/README')`).Scan(&path, &ext); err != nil ||
		strings.Contains(path, "extensions") || ext != "" {
		t.Fatalf("after down: search_path %q, extension %q, %v", path, ext, err)
	}
}

// storageDefaultsVersion is the migration that gives the database
// Supabase's default search_path and fixes storage.extension.
const storageDefaultsVersion = 20261128023100
