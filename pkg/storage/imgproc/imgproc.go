// Package imgproc resizes images in-process, in pure Go: no cgo, no
// image proxy. golang.org/x/image supplies the scaler (and WebP decoding);
// the standard library encodes JPEG and PNG. There is no WebP encoder:
// the pure-Go ones either run libwebp under a WASM runtime (a large
// dependency) or are lossless-only, so format=webp answers in the source's
// format, which clients accept since they read Content-Type.
package imgproc

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // decode GIF sources
	"image/jpeg"
	"image/png"
	"io"
	"net/url"
	"strconv"
	"strings"

	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decode WebP sources
)

// Bounds on a request, as upstream clamps them.
const (
	MaxDimension   = 2500
	MinQuality     = 20
	MaxQuality     = 100
	DefaultQuality = 80
)

// ErrTooManyPixels is a source above the resolution cap.
var ErrTooManyPixels = errors.New("imgproc: the source image exceeds the resolution limit")

// ErrNotImage is a source no decoder reads.
var ErrNotImage = errors.New("imgproc: the source is not a supported image")

// Transform is a render request. Zero Width or Height keeps the aspect
// ratio from the other.
type Transform struct {
	Width, Height int
	// Resize is cover (fill the box, crop the overflow), contain (fit in
	// the box) or fill (stretch to the box).
	Resize  string
	Quality int
	Format  string
}

// Parse reads width, height, resize, quality and format as storage-js
// sends them, clamping sizes and quality to their bounds.
func Parse(q url.Values) (Transform, error) {
	t := Transform{Resize: strings.ToLower(q.Get("resize")), Format: strings.ToLower(q.Get("format"))}
	var err error
	if t.Width, err = dim(q.Get("width")); err != nil {
		return t, fmt.Errorf("width: %w", err)
	}
	if t.Height, err = dim(q.Get("height")); err != nil {
		return t, fmt.Errorf("height: %w", err)
	}
	switch t.Resize {
	case "", "cover", "contain", "fill":
	default:
		return t, fmt.Errorf("resize must be cover, contain or fill")
	}
	if s := q.Get("quality"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return t, fmt.Errorf("quality must be a whole number")
		}
		t.Quality = min(max(n, MinQuality), MaxQuality)
	}
	switch t.Format {
	case "", "origin", "webp", "avif", "jpeg", "jpg", "png":
	default:
		return t, fmt.Errorf("format must be origin, webp, avif, jpeg or png")
	}
	return t, nil
}

func dim(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("must be a whole number")
	}
	return min(n, MaxDimension), nil
}

// Query writes t back as the query string a signed render URL's token
// carries.
func (t Transform) Query() string {
	q := url.Values{}
	if t.Width > 0 {
		q.Set("width", strconv.Itoa(t.Width))
	}
	if t.Height > 0 {
		q.Set("height", strconv.Itoa(t.Height))
	}
	if t.Resize != "" {
		q.Set("resize", t.Resize)
	}
	if t.Quality > 0 {
		q.Set("quality", strconv.Itoa(t.Quality))
	}
	if t.Format != "" {
		q.Set("format", t.Format)
	}
	return q.Encode()
}

// Header is upstream's X-Transformations: what was applied, in imgproxy's
// words (cover is "fill", contain "fit", fill "force").
func (t Transform) Header() string {
	var parts []string
	if t.Height > 0 {
		parts = append(parts, "height:"+strconv.Itoa(t.Height))
	}
	if t.Width > 0 {
		parts = append(parts, "width:"+strconv.Itoa(t.Width))
	}
	parts = append(parts, "resizing_type:"+map[string]string{"": "fill", "cover": "fill", "contain": "fit", "fill": "force"}[t.Resize])
	if t.Quality > 0 {
		parts = append(parts, "quality:"+strconv.Itoa(t.Quality))
	}
	if t.Format != "" && t.Format != "origin" {
		parts = append(parts, "format:"+t.Format)
	}
	return strings.Join(parts, ",")
}

// Render decodes src (refusing more than maxPixels before decoding it),
// resizes it and encodes it, returning the bytes and their content type:
// JPEG for a JPEG source (or format=jpeg), PNG otherwise.
func Render(src io.ReadSeeker, t Transform, maxPixels int) ([]byte, string, error) {
	cfg, format, err := image.DecodeConfig(src)
	if err != nil {
		return nil, "", ErrNotImage
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return nil, "", ErrTooManyPixels
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, "", err
	}
	img, _, err := image.Decode(src)
	if err != nil {
		return nil, "", ErrNotImage
	}
	out := resize(img, t)
	var buf bytes.Buffer
	q := t.Quality
	if q == 0 {
		q = DefaultQuality
	}
	asJPEG := t.Format == "jpeg" || t.Format == "jpg" || (t.Format != "png" && format == "jpeg")
	if !asJPEG {
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, out); err != nil {
			return nil, "", err
		}
		return buf.Bytes(), "image/png", nil
	}
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: q}); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), "image/jpeg", nil
}

// resize scales img into t's box; it never enlarges.
func resize(img image.Image, t Transform) image.Image {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	w, h := t.Width, t.Height
	switch {
	case w == 0 && h == 0:
		return img
	case w == 0:
		w = max(1, sw*h/sh)
	case h == 0:
		h = max(1, sh*w/sw)
	}
	w, h = min(w, sw), min(h, sh)
	src := b
	switch t.Resize {
	case "fill":
		// stretch to w x h
	case "contain":
		if sw*h > sh*w { // wider than the box
			h = max(1, sh*w/sw)
		} else {
			w = max(1, sw*h/sh)
		}
	default: // cover: crop the source to the box's aspect, centred
		if sw*h > sh*w {
			cw := sh * w / h
			x0 := b.Min.X + (sw-cw)/2
			src = image.Rect(x0, b.Min.Y, x0+cw, b.Max.Y)
		} else {
			ch := sw * h / w
			y0 := b.Min.Y + (sh-ch)/2
			src = image.Rect(b.Min.X, y0, b.Max.X, y0+ch)
		}
	}
	// A large reduction first averages k x k blocks (a box filter: every
	// source pixel counts, no aliasing) down to about twice the target;
	// the bilinear kernel then only sees a small image. On a 12-megapixel
	// photo the kernel alone would take seconds.
	if k := min(src.Dx()/w, src.Dy()/h) / 2; k >= 2 {
		rgba := image.NewRGBA(image.Rect(0, 0, src.Dx(), src.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, src.Min, draw.Src)
		img = boxShrink(rgba, k)
		src = img.Bounds()
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.BiLinear.Scale(dst, dst.Bounds(), img, src, draw.Src, nil)
	return dst
}

// boxShrink averages each k x k block of src into one pixel.
func boxShrink(src *image.RGBA, k int) *image.RGBA {
	w, h := src.Rect.Dx()/k, src.Rect.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sum := make([]uint32, w*4)
	n := uint32(k * k)
	for y := 0; y < h; y++ {
		clear(sum)
		for dy := 0; dy < k; dy++ {
			row := src.Pix[(y*k+dy)*src.Stride:]
			for x := 0; x < w; x++ {
				s, p := sum[x*4:x*4+4], row[x*k*4:(x+1)*k*4]
				for i := 0; i < len(p); i += 4 {
					s[0] += uint32(p[i])
					s[1] += uint32(p[i+1])
					s[2] += uint32(p[i+2])
					s[3] += uint32(p[i+3])
				}
			}
		}
		out := dst.Pix[y*dst.Stride:]
		for i, v := range sum {
			out[i] = uint8(v / n)
		}
	}
	return dst
}
