package storage

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestObjectsInExecMode: with DB_PREPARED_STATEMENTS=false (every pool in
// pgx's exec mode, as behind PgBouncer 1.18 in transaction mode) an
// upload, an upsert and a copy still write their JSON metadata columns.
func TestObjectsInExecMode(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"DB_PREPARED_STATEMENTS": "false"}, policies)
	key := e.userA + "/exec.txt"
	e.put(e.tokA, "private", key, "first", false, "X-Metadata", "eyJhIjoxfQ==").wantOK(t) // {"a":1}
	if _, err := e.db.Pool.Exec(t.Context(), `CREATE POLICY own_upsert ON storage.objects FOR UPDATE TO authenticated
		USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text)`); err != nil {
		t.Fatal(err)
	}
	e.put(e.tokA, "private", key, "second", true, "X-Metadata", "eyJhIjoyfQ==").wantOK(t) // {"a":2}
	e.doJSON(http.MethodPost, "/object/copy", e.tokA, map[string]any{"bucketId": "private", "sourceKey": key,
		"destinationKey": e.userA + "/copy.txt"}).wantOK(t)
	for name, want := range map[string]float64{key: 2, e.userA + "/copy.txt": 2} {
		info := e.do(http.MethodGet, "/object/info/private/"+name, e.tokA, nil)
		info.wantOK(t)
		var m map[string]any
		if err := json.Unmarshal(info.body, &m); err != nil || m["size"] != float64(6) {
			t.Fatalf("info %s: %s", name, info)
		}
		if md, _ := m["metadata"].(map[string]any); md["a"] != want {
			t.Fatalf("info %s: %s", name, info)
		}
	}
}
