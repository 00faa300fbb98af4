package storage

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestBucketLifecycle(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	r := e.doJSON(http.MethodPost, "/bucket", e.service, map[string]any{"name": "media", "public": false,
		"file_size_limit": "1.5mb", "allowed_mime_types": []string{"image/*", "text/plain"}})
	r.wantOK(t)
	if r.field(t, "name") != "media" {
		t.Fatalf("create: %s", r)
	}
	g := e.do(http.MethodGet, "/bucket/media", e.service, nil)
	g.wantOK(t)
	var b map[string]any
	_ = json.Unmarshal(g.body, &b)
	if b["file_size_limit"] != float64(1500000) || b["public"] != false || b["owner"] != nil {
		t.Fatalf("get: %s", g)
	}
	if _, ok := b["type"]; ok {
		t.Fatalf("getBucket must not carry type: %s", g)
	}
	if ts, _ := b["created_at"].(string); len(ts) != 24 || !strings.HasSuffix(ts, "Z") {
		t.Fatalf("created_at %q is not toISOString's form", ts)
	}
	// Allowed types admit wildcards and ignore parameters.
	e.put(e.service, "media", "a.txt", "x", false).wantOK(t)
	e.do(http.MethodPost, "/object/media/p.png", e.service, strings.NewReader("x"), "Content-Type", "image/png").wantOK(t)
	e.do(http.MethodPost, "/object/media/p.pdf", e.service, strings.NewReader("x"), "Content-Type", "application/pdf").
		wantErr(t, "415", "mime type application/pdf is not supported")

	e.doJSON(http.MethodPut, "/bucket/media", e.service, map[string]any{"public": true, "file_size_limit": nil}).wantOK(t)
	g = e.do(http.MethodGet, "/bucket/media", e.service, nil)
	_ = json.Unmarshal(g.body, &b)
	if b["public"] != true || b["file_size_limit"] != nil || len(b["allowed_mime_types"].([]any)) != 2 {
		t.Fatalf("after update: %s", g)
	}
	l := e.do(http.MethodGet, "/bucket?search=med&sortColumn=created_at&sortOrder=desc&limit=5", e.service, nil)
	l.wantOK(t)
	var list []map[string]any
	_ = json.Unmarshal(l.body, &list)
	if len(list) != 1 || list[0]["type"] != "STANDARD" {
		t.Fatalf("list: %s", l)
	}
	e.do(http.MethodDelete, "/bucket/media", e.service, nil).wantErr(t, "409", "not empty")
	e.do(http.MethodPost, "/bucket/media/empty", e.service, nil).wantOK(t)
	if n := e.blobs(); n != 0 {
		t.Fatalf("%d blobs after empty", n)
	}
	e.do(http.MethodDelete, "/bucket/media", e.service, nil).wantOK(t)
	e.do(http.MethodGet, "/bucket/media", e.service, nil).wantErr(t, "404", "Bucket not found")
	e.do(http.MethodPut, "/bucket/media", e.service, strings.NewReader(`{"public":true}`)).wantErr(t, "404", "Bucket not found")
}

func TestBucketRLSAndBadInput(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	// Members may read buckets (policy buckets_read) but not create them.
	e.doJSON(http.MethodPost, "/bucket", e.tokA, map[string]any{"name": "mine"}).wantErr(t, "403", "INSERT")
	e.do(http.MethodGet, "/bucket/private", e.tokA, nil).wantOK(t)
	// Anon sees none: no policy for anon on storage.buckets.
	e.do(http.MethodGet, "/bucket/private", e.anon, nil).wantErr(t, "404", "Bucket not found")
	e.do(http.MethodDelete, "/bucket/private", e.tokA, nil).wantErr(t, "403", "DELETE")

	e.doJSON(http.MethodPost, "/bucket", e.service, map[string]any{"name": "private"}).wantErr(t, "409", "already exists")
	e.doJSON(http.MethodPost, "/bucket", e.service, map[string]any{"name": "a/b"}).wantErr(t, "400", "Bucket name invalid")
	e.doJSON(http.MethodPost, "/bucket", e.service, map[string]any{"name": strings.Repeat("n", 101)}).wantErr(t, "400", "Bucket name invalid")
	e.doJSON(http.MethodPost, "/bucket", e.service, map[string]any{"name": "x", "file_size_limit": "lots"}).wantErr(t, "400", "file_size_limit")
	e.doJSON(http.MethodPost, "/bucket", e.service, map[string]any{"name": "x", "allowed_mime_types": []string{"nonsense"}}).wantErr(t, "400", "mime")
	e.do(http.MethodPost, "/bucket", e.service, strings.NewReader("{not json")).wantErr(t, "400", "JSON")
	e.do(http.MethodGet, "/bucket", "not-a-jwt", nil).wantErr(t, "403", "Invalid Compact JWS")
	// storage-js's own suite: listBuckets() with no headers at all.
	r := e.do(http.MethodGet, "/bucket", "", nil)
	r.wantErr(t, "403", "Invalid Compact JWS")
	if r.field(t, "message") != "Invalid Compact JWS" {
		t.Fatalf("no headers: %s", r)
	}
}

func TestKeysAndBadObjectInput(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	e.put(e.service, "public", "über.txt", "x", false).wantErr(t, "400", "Invalid key: über.txt")
	e.put(e.service, "nope", "a.txt", "x", false).wantErr(t, "404", "Bucket not found")
	e.do(http.MethodPost, "/object/public/m.txt", e.service, strings.NewReader("x"), "Content-Type", "text/plain",
		"X-Metadata", "not base64!").wantErr(t, "400", "x-metadata")
	e.do(http.MethodPost, "/object/public/m.txt", e.service, strings.NewReader("--x\r\n"),
		"Content-Type", "multipart/form-data; boundary=x").wantErr(t, "400", "multipart")
	e.doJSON(http.MethodPost, "/object/list/public", e.service, map[string]any{"limit": -1}).wantErr(t, "400", "limit")
	e.doJSON(http.MethodPost, "/object/list-v2/public", e.service, map[string]any{"cursor": "%%%"}).wantErr(t, "400", "cursor")
	e.doJSON(http.MethodDelete, "/object/public", e.service, map[string]any{"prefixes": []string{}}).wantErr(t, "400", "prefixes")
	e.doJSON(http.MethodPost, "/object/move", e.service, map[string]any{"bucketId": "public", "sourceKey": "a"}).wantErr(t, "400", "required")
	e.doJSON(http.MethodPost, "/object/copy", e.service, map[string]any{"bucketId": "public", "sourceKey": "nope", "destinationKey": "b"}).
		wantErr(t, "404", "Object not found")

	// With STORAGE_UTF8_KEYS the same key is accepted, stored and served.
	u := setup(t, map[string]string{"STORAGE_UTF8_KEYS": "true"}, policies)
	u.put(u.service, "public", "über/ß.txt", "utf8", false).wantOK(t)
	r := u.do(http.MethodGet, "/object/public/public/%C3%BCber/%C3%9F.txt", "", nil)
	if r.status != http.StatusOK || string(r.body) != "utf8" {
		t.Fatalf("utf-8 key: %d %q", r.status, r.body)
	}
	u.put(u.service, "public", "bad%01key", "x", false).wantErr(t, "400", "Invalid key")
}

func TestMultipartUpload(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	body := "--B\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n120\r\n" +
		"--B\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n{\"k\":\"v\"}\r\n" +
		"--B\r\nContent-Disposition: form-data; name=\"\"; filename=\"blob\"\r\nContent-Type: image/png\r\n\r\nPNGDATA\r\n--B--\r\n"
	e.do(http.MethodPost, "/object/public/form.png", e.service, strings.NewReader(body), "Content-Type", "multipart/form-data; boundary=B").wantOK(t)
	d := e.do(http.MethodGet, "/object/public/public/form.png", "", nil)
	if string(d.body) != "PNGDATA" || d.header.Get("Content-Type") != "image/png" || d.header.Get("Cache-Control") != "max-age=120" {
		t.Fatalf("multipart: %q %v", d.body, d.header)
	}
	info := e.do(http.MethodGet, "/object/info/public/public/form.png", "", nil)
	if !strings.Contains(info.String(), `"metadata":{"k":"v"}`) {
		t.Fatalf("info %s", info)
	}
	// Older clients send userMetadata; a contentType field wins over the
	// part's own type, as upstream.
	body = "--B\r\nContent-Disposition: form-data; name=\"userMetadata\"\r\n\r\n{\"old\":1}\r\n" +
		"--B\r\nContent-Disposition: form-data; name=\"contentType\"\r\n\r\nimage/webp\r\n" +
		"--B\r\nContent-Disposition: form-data; name=\"\"; filename=\"blob\"\r\nContent-Type: application/octet-stream\r\n\r\nRIFF\r\n--B--\r\n"
	e.do(http.MethodPost, "/object/public/old.webp", e.service, strings.NewReader(body), "Content-Type", "multipart/form-data; boundary=B").wantOK(t)
	info = e.do(http.MethodGet, "/object/info/public/public/old.webp", "", nil)
	if !strings.Contains(info.String(), `"metadata":{"old":1}`) || !strings.Contains(info.String(), `"content_type":"image/webp"`) {
		t.Fatalf("info %s", info)
	}
}
