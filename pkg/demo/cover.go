package demo

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"
)

// Cover returns an SVG cover for seed: a gradient and a few shapes, always
// the same for the same seed.
func Cover(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	h1 := r.IntN(360)
	h2 := (h1 + 40 + r.IntN(140)) % 360
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300" width="300" height="300">`)
	fmt.Fprintf(&b, `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(%d,65%%,55%%)"/><stop offset="1" stop-color="hsl(%d,60%%,25%%)"/></linearGradient></defs>`, h1, h2)
	b.WriteString(`<rect width="300" height="300" fill="url(#g)"/>`)
	for i := 0; i < 3+r.IntN(4); i++ {
		hue := (h1 + r.IntN(120)) % 360
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="hsl(%d,70%%,70%%)" fill-opacity="0.%d"/>`, r.IntN(300), r.IntN(300), 20+r.IntN(90), hue, 3+r.IntN(5))
		case 1:
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="hsl(%d,60%%,80%%)" fill-opacity="0.%d" transform="rotate(%d 150 150)"/>`, r.IntN(250), r.IntN(250), 30+r.IntN(120), 10+r.IntN(60), hue, 2+r.IntN(5), r.IntN(90))
		default:
			fmt.Fprintf(&b, `<path d="M0 %d Q150 %d 300 %d" stroke="hsl(%d,80%%,85%%)" stroke-width="%d" fill="none" stroke-opacity="0.6"/>`, r.IntN(300), r.IntN(300), r.IntN(300), hue, 2+r.IntN(10))
		}
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

// Routes serves /demo/covers/<n>.svg.
func Routes(e *echo.Echo) {
	e.GET("/demo/covers/:name", func(c *echo.Context) error {
		n, err := strconv.ParseUint(strings.TrimSuffix(c.Param("name"), ".svg"), 10, 64)
		if err != nil || !strings.HasSuffix(c.Param("name"), ".svg") {
			return echo.ErrNotFound
		}
		c.Response().Header().Set("Cache-Control", "public, max-age=86400")
		return c.Blob(http.StatusOK, "image/svg+xml", Cover(n))
	})
}
