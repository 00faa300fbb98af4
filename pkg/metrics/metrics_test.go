package metrics

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v5"
)

// counter reads one sample of a counter family from the registry.
func counter(t *testing.T, m *Metrics, family, label, value string) float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != family {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return s.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func TestCrawlCounters(t *testing.T) {
	t.Parallel()
	m := New()
	m.CrawlParseFailure("label")
	m.CrawlParseFailure("release")
	m.CrawlParseFailure("release")
	m.CrawlRun("stopped")
	if n := counter(t, m, "labelbase_crawl_parse_failures_total", "page", "label"); n != 1 {
		t.Errorf("label parse failures = %v, want 1", n)
	}
	if n := counter(t, m, "labelbase_crawl_parse_failures_total", "page", "release"); n != 2 {
		t.Errorf("release parse failures = %v, want 2", n)
	}
	if n := counter(t, m, "labelbase_crawl_runs_total", "outcome", "stopped"); n != 1 {
		t.Errorf("stopped runs = %v, want 1", n)
	}
}

// TestMiddlewareCountsEveryRequest: the kept series keep counting (the
// second and third requests land in the series the first one made), each
// status has its own, and a method a client makes up is "other", however
// many different ones it sends.
func TestMiddlewareCountsEveryRequest(t *testing.T) {
	t.Parallel()
	m := New()
	e := echo.New()
	e.Use(m.Middleware())
	e.Any("/rest/v1/:table", func(c *echo.Context) error {
		if c.Param("table") == "missing" {
			return echo.NewHTTPError(http.StatusNotFound, "no such table")
		}
		return c.NoContent(http.StatusOK)
	})
	send := func(method, path string) {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, nil))
	}
	for range 3 {
		send(http.MethodGet, "/rest/v1/labels")
	}
	send(http.MethodGet, "/rest/v1/missing")
	for _, made := range []string{"BREW", "WHEN", "PROPFIND"} {
		send(made, "/rest/v1/labels")
	}
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	var observed uint64
	for _, f := range fams {
		switch f.GetName() {
		case "labelbase_http_requests_total":
			for _, s := range f.GetMetric() {
				l := map[string]string{}
				for _, p := range s.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				got[l["method"]+" "+l["route"]+" "+l["status"]] = s.GetCounter().GetValue()
			}
		case "labelbase_http_request_duration_seconds":
			for _, s := range f.GetMetric() {
				observed += s.GetHistogram().GetSampleCount()
			}
		}
	}
	want := map[string]float64{
		"GET /rest/v1/:table 200":   3,
		"GET /rest/v1/:table 404":   1,
		"other /rest/v1/:table 200": 3,
	}
	if !maps.Equal(got, want) {
		t.Errorf("requests_total = %v, want %v", got, want)
	}
	if observed != 7 {
		t.Errorf("duration observations = %d, want 7", observed)
	}
}
