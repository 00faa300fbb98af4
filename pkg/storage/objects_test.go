package storage

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestUploadDownloadRoundTrip(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	key := e.userA + "/notes.txt"
	r := e.put(e.tokA, "private", key, "hello storage", false, "Cache-Control", "max-age=60",
		"X-Metadata", "eyJhIjoxfQ==") // {"a":1}
	r.wantOK(t)
	if r.field(t, "Key") != "private/"+key || r.field(t, "Id") == "" {
		t.Fatalf("upload answer %s", r)
	}
	d := e.do(http.MethodGet, "/object/private/"+key, e.tokA, nil)
	d.wantOK(t)
	if string(d.body) != "hello storage" {
		t.Fatalf("body %q", d.body)
	}
	if got := d.header.Get("Content-Type"); got != "text/plain;charset=UTF-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := d.header.Get("Cache-Control"); got != "max-age=60" {
		t.Errorf("Cache-Control %q", got)
	}
	if d.header.Get("ETag") == "" || d.header.Get("Last-Modified") == "" {
		t.Errorf("no ETag/Last-Modified: %v", d.header)
	}
	info := e.do(http.MethodGet, "/object/info/private/"+key, e.tokA, nil)
	info.wantOK(t)
	var m map[string]any
	_ = json.Unmarshal(info.body, &m)
	if m["size"] != float64(13) || m["content_type"] != "text/plain;charset=UTF-8" || m["metadata"].(map[string]any)["a"] != float64(1) {
		t.Fatalf("info %s", info)
	}
	if _, ok := m["updated_at"]; ok {
		t.Errorf("info carries updated_at: %s", info)
	}
}

func TestRLSOwnerOtherAnon(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	key := e.userA + "/secret.txt"
	e.put(e.tokA, "private", key, "mine", false).wantOK(t)

	// Another member can neither read nor write under A's folder.
	e.do(http.MethodGet, "/object/private/"+key, e.tokB, nil).wantErr(t, "404", "Object not found")
	e.do(http.MethodGet, "/object/info/private/"+key, e.tokB, nil).wantErr(t, "404", "Object not found")
	e.put(e.tokB, "private", e.userA+"/intruder.txt", "x", false).wantErr(t, "403", "row-level security")
	// Anon (the anon key as bearer) is refused too.
	e.do(http.MethodGet, "/object/private/"+key, e.anon, nil).wantErr(t, "404", "Object not found")
	e.put(e.anon, "private", "x.txt", "x", false).wantErr(t, "403", "INSERT refused")
	// The public route refuses a private bucket.
	e.do(http.MethodGet, "/object/public/private/"+key, "", nil).wantErr(t, "404", "Bucket not found")
	// No Authorization at all: storage's own error, an apikey does not help.
	e.do(http.MethodGet, "/object/private/"+key, "", nil, "apikey", e.anon).wantErr(t, "403", "Invalid Compact JWS")
	// A refused upload leaves no row and no file.
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 1 {
		t.Fatalf("%d rows", n)
	}
	// The service role bypasses RLS.
	e.do(http.MethodGet, "/object/private/"+key, e.service, nil).wantOK(t)
}

func TestPublicBucketAnyoneReads(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	e.put(e.service, "public", "logo.txt", "public bytes", false).wantOK(t)
	r := e.do(http.MethodGet, "/object/public/public/logo.txt?download=x.txt", "", nil)
	r.wantOK(t)
	if string(r.body) != "public bytes" || !strings.Contains(r.header.Get("Content-Disposition"), `filename=x.txt`) {
		t.Fatalf("public read %d %q %v", r.status, r.body, r.header)
	}
	// Even an authenticated caller without a SELECT policy reads a public
	// bucket's objects, as upstream.
	e.do(http.MethodGet, "/object/authenticated/public/logo.txt", e.tokB, nil).wantOK(t)
	if r := e.do(http.MethodHead, "/object/public/public/missing.txt", "", nil); r.status != http.StatusBadRequest {
		t.Fatalf("HEAD of a missing object: %d", r.status)
	}
}

func TestUpsertNeedsInsertUpdateSelect(t *testing.T) {
	t.Parallel()
	// Only INSERT is allowed: a plain upload works, an upsert of the same
	// key is refused, naming what an upsert needs.
	e := setup(t, nil, `
INSERT INTO storage.buckets (id, name) VALUES ('b', 'b');
CREATE POLICY ins ON storage.objects FOR INSERT TO authenticated WITH CHECK (bucket_id = 'b');`)
	e.put(e.tokA, "b", "k.txt", "v1", false).wantOK(t)
	e.put(e.tokA, "b", "k.txt", "v2", false).wantErr(t, "409", "The resource already exists")
	r := e.put(e.tokA, "b", "k.txt", "v2", true)
	r.wantErr(t, "403", "upsert needs all three")
	// Adding SELECT and UPDATE makes the upsert work, and the new bytes win.
	if _, err := e.db.Pool.Exec(t.Context(), `
CREATE POLICY sel ON storage.objects FOR SELECT TO authenticated USING (bucket_id = 'b');
CREATE POLICY upd ON storage.objects FOR UPDATE TO authenticated USING (bucket_id = 'b');`); err != nil {
		t.Fatal(err)
	}
	e.put(e.tokA, "b", "k.txt", "v2", true).wantOK(t)
	d := e.do(http.MethodGet, "/object/b/k.txt", e.tokA, nil)
	if string(d.body) != "v2" {
		t.Fatalf("after upsert: %q", d.body)
	}
	// The replaced version's blob is gone: one blob for one object.
	if n := e.blobs(); n != 1 {
		t.Fatalf("%d blobs on disk, want 1", n)
	}
}

func TestMoveNeedsSelectAndUpdate(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, `
INSERT INTO storage.buckets (id, name) VALUES ('b', 'b');
CREATE POLICY ins ON storage.objects FOR INSERT TO authenticated WITH CHECK (bucket_id = 'b');
CREATE POLICY sel ON storage.objects FOR SELECT TO authenticated USING (bucket_id = 'b');`)
	e.put(e.tokA, "b", "a.txt", "data", false).wantOK(t)
	body := map[string]any{"bucketId": "b", "sourceKey": "a.txt", "destinationKey": "c.txt"}
	e.doJSON(http.MethodPost, "/object/move", e.tokA, body).wantErr(t, "403", "UPDATE")
	if _, err := e.db.Pool.Exec(t.Context(),
		`CREATE POLICY upd ON storage.objects FOR UPDATE TO authenticated USING (bucket_id = 'b')`); err != nil {
		t.Fatal(err)
	}
	r := e.doJSON(http.MethodPost, "/object/move", e.tokA, body)
	r.wantOK(t)
	if r.field(t, "message") != "Successfully moved" {
		t.Fatalf("move: %s", r)
	}
	if d := e.do(http.MethodGet, "/object/b/c.txt", e.tokA, nil); string(d.body) != "data" {
		t.Fatalf("moved object: %d %q", d.status, d.body)
	}
	e.do(http.MethodGet, "/object/b/a.txt", e.tokA, nil).wantErr(t, "404", "Object not found")
	e.doJSON(http.MethodPost, "/object/move", e.tokA, map[string]any{"bucketId": "b", "sourceKey": "nope", "destinationKey": "x"}).
		wantErr(t, "404", "Object not found")
}

func TestRemoveNeedsDeleteAndSelect(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	mine, theirs := e.userA+"/one.txt", e.userB+"/two.txt"
	e.put(e.tokA, "private", mine, "1", false).wantOK(t)
	e.put(e.tokB, "private", theirs, "2", false).wantOK(t)
	r := e.doJSON(http.MethodDelete, "/object/private", e.tokA, map[string]any{"prefixes": []string{mine, theirs}})
	r.wantOK(t)
	var rows []map[string]any
	_ = json.Unmarshal(r.body, &rows)
	if len(rows) != 1 || rows[0]["name"] != mine || rows[0]["id"] == "" {
		t.Fatalf("removed %s", r)
	}
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 1 {
		t.Fatalf("%d rows left", n)
	}
	if n := e.blobs(); n != 1 {
		t.Fatalf("%d blobs left", n)
	}
}
