package imgproc

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/url"
	"strings"
	"testing"
)

func encode(t testing.TB, w, h int, asPNG bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	var err error
	if asPNG {
		err = png.Encode(&b, img)
	} else {
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParse(t *testing.T) {
	tr, err := Parse(url.Values{"width": {"9999"}, "height": {"10"}, "quality": {"101"}, "resize": {"Contain"}})
	if err != nil || tr.Width != MaxDimension || tr.Height != 10 || tr.Quality != MaxQuality || tr.Resize != "contain" {
		t.Fatalf("%+v %v", tr, err)
	}
	for _, bad := range []url.Values{{"width": {"-1"}}, {"height": {"x"}}, {"quality": {"q"}}, {"resize": {"crop"}}, {"format": {"tiff"}}} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	back, _ := Parse(mustQuery(tr.Query()))
	if back != tr {
		t.Fatalf("Query round trip: %+v != %+v", back, tr)
	}
}

func mustQuery(s string) url.Values { v, _ := url.ParseQuery(s); return v }

func TestRenderSizesAndFormats(t *testing.T) {
	src := encode(t, 200, 100, true)
	cases := []struct {
		t      Transform
		w, h   int
		format string
	}{
		{Transform{Width: 50, Height: 50}, 50, 50, "png"},
		{Transform{Width: 50, Height: 50, Resize: "contain"}, 50, 25, "png"},
		{Transform{Width: 50, Height: 50, Resize: "fill"}, 50, 50, "png"},
		{Transform{Height: 20}, 40, 20, "png"},
		{Transform{Width: 400}, 200, 100, "png"}, // never enlarged
		{Transform{Width: 50, Format: "jpeg"}, 50, 25, "jpeg"},
		{Transform{Width: 50, Format: "webp"}, 50, 25, "png"}, // no WebP encoder: the source's format
		{Transform{Width: 20}, 20, 10, "png"},                 // through the box filter
	}
	for _, c := range cases {
		out, ct, err := Render(bytes.NewReader(src), c.t, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(out))
		if err != nil || cfg.Width != c.w || cfg.Height != c.h || format != c.format || !strings.HasSuffix(ct, c.format) {
			t.Errorf("%+v: %dx%d %s %s %v, want %dx%d %s", c.t, cfg.Width, cfg.Height, format, ct, err, c.w, c.h, c.format)
		}
	}
}

func TestBoxShrinkAverages(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 4, 2))
	for x := 0; x < 4; x++ {
		for y := 0; y < 2; y++ {
			v := uint8(0)
			if x%2 == 1 {
				v = 200
			}
			src.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	out := boxShrink(src, 2)
	if out.Bounds().Dx() != 2 || out.Bounds().Dy() != 1 || out.RGBAAt(0, 0) != (color.RGBA{100, 100, 100, 255}) {
		t.Fatalf("%v %v", out.Bounds(), out.RGBAAt(0, 0))
	}
}

func TestRenderRefusals(t *testing.T) {
	if _, _, err := Render(bytes.NewReader(encode(t, 100, 100, false)), Transform{Width: 10}, 9999); !errors.Is(err, ErrTooManyPixels) {
		t.Fatalf("over the cap: %v", err)
	}
	if _, _, err := Render(strings.NewReader("not an image"), Transform{Width: 10}, 1<<20); !errors.Is(err, ErrNotImage) {
		t.Fatalf("not an image: %v", err)
	}
	// A header that promises an image the body does not hold.
	trunc := encode(t, 100, 100, false)[:300]
	if _, _, err := Render(bytes.NewReader(trunc), Transform{Width: 10}, 1<<20); !errors.Is(err, ErrNotImage) {
		t.Fatalf("truncated: %v", err)
	}
}

// BenchmarkRender12MP renders a 4000x3000 JPEG (12 megapixels) to a
// 400x300 thumbnail: decode, scale, encode.
func BenchmarkRender12MP(b *testing.B) {
	src := encode(b, 4000, 3000, false)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Render(bytes.NewReader(src), Transform{Width: 400, Height: 300}, 50_000_000); err != nil {
			b.Fatal(err)
		}
	}
}
