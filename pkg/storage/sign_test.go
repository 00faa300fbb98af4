package storage

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSignedDownloadURL(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	key := e.userA + "/s.txt"
	e.put(e.tokA, "private", key, "signed", false).wantOK(t)
	r := e.doJSON(http.MethodPost, "/object/sign/private/"+key, e.tokA, map[string]any{"expiresIn": 60})
	r.wantOK(t)
	signed := r.field(t, "signedURL")
	if !strings.HasPrefix(signed, "/object/sign/private/"+key+"?token=") {
		t.Fatalf("signedURL %q", signed)
	}
	d := e.do(http.MethodGet, signed, "", nil)
	if d.status != http.StatusOK || string(d.body) != "signed" || d.header.Get("Expires") == "" {
		t.Fatalf("signed GET: %d %q %v", d.status, d.body, d.header)
	}
	tok := strings.SplitN(signed, "token=", 2)[1]
	// The token names one object.
	e.do(http.MethodGet, "/object/sign/private/"+e.userA+"/other.txt?token="+tok, "", nil).wantErr(t, "400", "Invalid signature")
	// A tampered token, no token.
	e.do(http.MethodGet, signed[:len(signed)-3]+"abc", "", nil).wantErr(t, "400", "Invalid signature")
	e.do(http.MethodGet, "/object/sign/private/"+key, "", nil).wantErr(t, "400", "Invalid Compact JWS")
	// An expired token.
	e.api.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	e.do(http.MethodGet, signed, "", nil).wantErr(t, "400", "The provided token has expired.")
	e.api.now = time.Now
	// B may not sign A's object.
	e.doJSON(http.MethodPost, "/object/sign/private/"+key, e.tokB, map[string]any{"expiresIn": 60}).wantErr(t, "404", "Object not found")
	e.doJSON(http.MethodPost, "/object/sign/private/"+key, e.tokA, map[string]any{"expiresIn": 0}).wantErr(t, "400", "expiresIn")
	// An upload token is no download token.
	up := e.do(http.MethodPost, "/object/upload/sign/private/"+e.userA+"/new.txt", e.tokA, strings.NewReader("{}"))
	up.wantOK(t)
	e.do(http.MethodGet, "/object/sign/private/"+e.userA+"/new.txt?token="+up.field(t, "token"), "", nil).
		wantErr(t, "400", "Invalid signature")
}

// TestRotatingTheSigningKeyRevokes: URLs signed with the old
// STORAGE_URL_SIGNING_KEY stop working when it changes, while JWT_SECRET
// (and so every session) stays the same.
func TestRotatingTheSigningKeyRevokes(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"STORAGE_URL_SIGNING_KEY": strings.Repeat("k", 40)}, policies)
	e.put(e.service, "public", "x.txt", "x", false).wantOK(t)
	signed := e.doJSON(http.MethodPost, "/object/sign/public/x.txt", e.service, map[string]any{"expiresIn": 60}).field(t, "signedURL")
	e.do(http.MethodGet, signed, "", nil).wantOK(t)
	e.api.cfg.URLSigningKey = strings.Repeat("n", 40)
	e.do(http.MethodGet, signed, "", nil).wantErr(t, "400", "Invalid signature")
}

func TestSignedUploadURL(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	key := e.userA + "/up.txt"
	r := e.do(http.MethodPost, "/object/upload/sign/private/"+key, e.tokA, strings.NewReader("{}"))
	r.wantOK(t)
	u := r.field(t, "url")
	put := func() resp {
		return e.do(http.MethodPut, u, "", strings.NewReader("via url"), "Content-Type", "text/plain", "X-Upsert", "true")
	}
	put().wantOK(t)
	// x-upsert is ignored: the token says no upsert.
	put().wantErr(t, "409", "The resource already exists")
	var owner string
	if err := e.db.Pool.QueryRow(t.Context(), `SELECT owner_id FROM storage.objects WHERE name = $1`, key).Scan(&owner); err != nil || owner != e.userA {
		t.Fatalf("owner %q %v", owner, err)
	}
	// B cannot get an upload URL for A's folder; anon neither.
	e.do(http.MethodPost, "/object/upload/sign/private/"+key+"2", e.tokB, strings.NewReader("{}")).wantErr(t, "403", "INSERT")
	e.do(http.MethodPost, "/object/upload/sign/private/"+key+"2", "", strings.NewReader("{}")).wantErr(t, "403", "Invalid Compact JWS")
	// A token for one key does not write another.
	e.do(http.MethodPut, strings.Replace(u, "up.txt", "other.txt", 1), "", strings.NewReader("x")).wantErr(t, "400", "Invalid signature")
	// An upsert URL needs INSERT, UPDATE and SELECT, which A has here.
	r = e.do(http.MethodPost, "/object/upload/sign/private/"+key, e.tokA, strings.NewReader("{}"), "X-Upsert", "true")
	r.wantOK(t)
	e.do(http.MethodPut, r.field(t, "url"), "", strings.NewReader("replaced")).wantOK(t)
}

func TestSignMany(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	e.put(e.tokA, "private", e.userA+"/1.txt", "1", false).wantOK(t)
	e.put(e.tokB, "private", e.userB+"/2.txt", "2", false).wantOK(t)
	r := e.doJSON(http.MethodPost, "/object/sign/private", e.tokA,
		map[string]any{"expiresIn": 60, "paths": []string{e.userA + "/1.txt", e.userB + "/2.txt"}})
	r.wantOK(t)
	var out []map[string]any
	_ = json.Unmarshal(r.body, &out)
	if len(out) != 2 || out[0]["error"] != nil || out[0]["signedURL"] == nil || out[1]["signedURL"] != nil {
		t.Fatalf("signMany %s", r)
	}
}

func testJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRenderImage(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"STORAGE_IMAGE_MAX_PIXELS": "40000"}, policies)
	e.do(http.MethodPost, "/object/public/a.jpg", e.service, bytes.NewReader(testJPEG(t, 160, 120)), "Content-Type", "image/jpeg").wantOK(t)
	e.do(http.MethodPost, "/object/public/big.jpg", e.service, bytes.NewReader(testJPEG(t, 300, 200)), "Content-Type", "image/jpeg").wantOK(t)
	e.put(e.service, "public", "not-an-image.txt", "text", false).wantOK(t)
	cases := []struct {
		q          string
		w, h       int
		ct, header string
	}{
		{"width=80&height=80", 80, 80, "image/jpeg", "height:80,width:80,resizing_type:fill"},
		{"width=80&height=80&resize=contain", 80, 60, "image/jpeg", "height:80,width:80,resizing_type:fit"},
		{"width=80&height=80&resize=fill&format=png", 80, 80, "image/png", "height:80,width:80,resizing_type:force,format:png"},
		{"width=40", 40, 30, "image/jpeg", "width:40,resizing_type:fill"},
		{"width=4000&quality=5", 160, 120, "image/jpeg", "width:2500,resizing_type:fill,quality:20"},
	}
	for _, c := range cases {
		r := e.do(http.MethodGet, "/render/image/public/public/a.jpg?"+c.q, "", nil)
		r.wantOK(t)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(r.body))
		if err != nil || cfg.Width != c.w || cfg.Height != c.h {
			t.Errorf("%s: %dx%d %v, want %dx%d", c.q, cfg.Width, cfg.Height, err, c.w, c.h)
		}
		if r.header.Get("Content-Type") != c.ct || r.header.Get("X-Transformations") != c.header {
			t.Errorf("%s: %q %q", c.q, r.header.Get("Content-Type"), r.header.Get("X-Transformations"))
		}
	}
	e.do(http.MethodGet, "/render/image/public/public/big.jpg?width=10", "", nil).wantErr(t, "422", "pixel limit")
	e.do(http.MethodGet, "/render/image/public/public/not-an-image.txt?width=10", "", nil).wantErr(t, "422", "Invalid source image")
	e.do(http.MethodGet, "/render/image/public/public/a.jpg?width=abc", "", nil).wantErr(t, "400", "width")
	e.do(http.MethodGet, "/render/image/public/public/a.jpg?resize=squash", "", nil).wantErr(t, "400", "resize")
	// The authenticated route applies RLS on a private bucket.
	e.do(http.MethodPost, "/object/private/"+e.userA+"/p.jpg", e.tokA, bytes.NewReader(testJPEG(t, 50, 50)), "Content-Type", "image/jpeg").wantOK(t)
	e.do(http.MethodGet, "/render/image/authenticated/private/"+e.userA+"/p.jpg?width=10", e.tokA, nil).wantOK(t)
	e.do(http.MethodGet, "/render/image/authenticated/private/"+e.userA+"/p.jpg?width=10", e.tokB, nil).wantErr(t, "404", "Object not found")
	// A signed render takes its transformation from the token alone.
	s := e.doJSON(http.MethodPost, "/object/sign/private/"+e.userA+"/p.jpg", e.tokA,
		map[string]any{"expiresIn": 60, "transform": map[string]any{"width": 20, "height": 20, "quality": 60}}).field(t, "signedURL")
	if !strings.HasPrefix(s, "/render/image/sign/") {
		t.Fatalf("signed render URL %q", s)
	}
	r := e.do(http.MethodGet, s+"&width=50", "", nil)
	r.wantOK(t)
	if got := r.header.Get("X-Transformations"); got != "height:20,width:20,resizing_type:fill,quality:60" {
		t.Fatalf("signed render applied %q", got)
	}
}
