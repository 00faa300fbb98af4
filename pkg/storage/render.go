package storage

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/storage/backend"
	"github.com/labelbase/labelbase/pkg/storage/imgproc"
)

// renderer runs image transformations: at most ImageConcurrency at once
// (decoding a large JPEG takes a core and ~4 bytes a pixel), with results
// kept in a byte-bounded LRU keyed by the object's version, so a new
// upload never serves an old rendering.
type renderer struct {
	sem       chan struct{}
	maxPixels int

	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List
	items map[string]*list.Element
}

type rendered struct {
	key  string
	body []byte
	ct   string
}

func newRenderer(cfg config.Storage) *renderer {
	conc := max(cfg.ImageConcurrency, 1)
	return &renderer{sem: make(chan struct{}, conc), maxPixels: max(cfg.ImageMaxPixels, 1), max: cfg.ImageCacheBytes,
		order: list.New(), items: map[string]*list.Element{}}
}

func (r *renderer) get(key string) *rendered {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.items[key]; ok {
		r.order.MoveToFront(e)
		return e.Value.(*rendered)
	}
	return nil
}

func (r *renderer) put(v *rendered) {
	n := int64(len(v.body))
	if n > r.max/4 {
		return // one entry may not crowd out the rest
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.items[v.key]; ok {
		return
	}
	r.items[v.key] = r.order.PushFront(v)
	r.size += n
	for r.size > r.max {
		last := r.order.Back()
		old := last.Value.(*rendered)
		r.order.Remove(last)
		delete(r.items, old.key)
		r.size -= int64(len(old.body))
	}
}

// transformString is a signed render URL's transformation, kept in its
// token so the URL cannot be re-used for another size.
func transformString(m map[string]any) string {
	q := url.Values{}
	for k, v := range m {
		switch x := v.(type) {
		case float64:
			q.Set(k, strconv.FormatFloat(x, 'f', -1, 64))
		case string:
			q.Set(k, x)
		}
	}
	t, _ := imgproc.Parse(q)
	return t.Query()
}

func (a *API) renderImage(mode readMode) echo.HandlerFunc {
	return func(c *echo.Context) error {
		o, err := a.find(c, mode, "storage.object.render")
		if err != nil {
			return err
		}
		q := c.Request().URL.Query()
		if mode == readSigned {
			if q, err = url.ParseQuery(o.signClaims.Transformations); err != nil {
				return errSignedToken("InvalidJWT", "Invalid Compact JWS")
			}
		}
		t, err := imgproc.Parse(q)
		if err != nil {
			return errInvalid(err.Error())
		}
		out, err := a.renderCached(c.Request().Context(), o, t)
		if err != nil {
			return err
		}
		a.objectHeaders(c, o)
		h := c.Response().Header()
		h.Set("Content-Type", out.ct)
		h.Set("X-Transformations", t.Header())
		h.Set("ETag", fmt.Sprintf(`"%s-%x"`, o.Version, len(out.body)))
		http.ServeContent(c.Response(), c.Request(), "", modTime(o), bytes.NewReader(out.body))
		return nil
	}
}

func (a *API) renderCached(ctx context.Context, o *object, t imgproc.Transform) (*rendered, error) {
	key := o.Bucket + "\x00" + o.Version + "\x00" + t.Query()
	if v := a.render.get(key); v != nil {
		return v, nil
	}
	select {
	case a.render.sem <- struct{}{}:
		defer func() { <-a.render.sem }()
	case <-ctx.Done():
		// The client left while waiting for a slot: its 499, not a fault.
		return nil, pgErr("render", ctx.Err())
	}
	blob, err := a.be.Open(ctx, o.Version)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, errObjectNotFound().WithCause(err)
	}
	if err != nil {
		return nil, err
	}
	defer blob.Close()
	body, ct, err := imgproc.Render(blob, t, a.render.maxPixels)
	switch {
	case errors.Is(err, imgproc.ErrTooManyPixels):
		return nil, storageErr(422, "InvalidImage", "InvalidImage",
			fmt.Sprintf("the image exceeds the %d-pixel limit of transformations", a.render.maxPixels))
	case errors.Is(err, imgproc.ErrNotImage):
		return nil, storageErr(422, "InvalidImage", "InvalidImage", "Invalid source image")
	case err != nil:
		return nil, err
	}
	v := &rendered{key: key, body: body, ct: ct}
	a.render.put(v)
	return v, nil
}
