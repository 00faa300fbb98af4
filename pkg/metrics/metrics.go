// Package metrics is what operators scrape: Prometheus metrics of the
// gateway (requests, pools, schema reloads, auth outcomes, crawl runs,
// build info), served with the opt-in profiler on an admin listener that
// is not the public port.
//
// The other packages do not import Prometheus: they take plain callbacks
// (rest.Deps.OnReload, auth.Deps.Observe, ingest.Options.OnRun,
// ingest.Options.OnParseFailure) that
// pkg/app wires to a Metrics.
package metrics

import (
	"errors"
	"net/http"
	"net/http/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/labelbase/labelbase/pkg/version"
)

// Metrics holds the gateway's collectors in a registry of its own (not the
// global one, so tests and several gateways in one process stay apart).
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	reloads       *prometheus.CounterVec
	reloadSeconds prometheus.Gauge
	auth          *prometheus.CounterVec
	crawls        *prometheus.CounterVec
	parseFailures *prometheus.CounterVec
	pools         *poolCollector
	// series caches each request series (route).
	series sync.Map
}

// New registers every collector, Go runtime and process metrics and
// labelbase_build_info included.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), pools: &poolCollector{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "labelbase_http_requests_total",
		Help: "HTTP requests by route template (never the raw path), method and status.",
	}, []string{"route", "method", "status"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "labelbase_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route template and method.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "labelbase_schema_cache_reloads_total",
		Help: "Schema cache loads of /rest/v1, by result (ok, error).",
	}, []string{"result"})
	m.reloadSeconds = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "labelbase_schema_cache_last_reload_seconds",
		Help: "How long the last successful schema cache load took.",
	})
	m.auth = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "labelbase_auth_events_total",
		Help: "Outcomes of /auth/v1/token by grant (password, refresh_token, pkce) and outcome (ok, failed, reuse_detected, rate_limited, error); " +
			"other auth limits that refuse a request count as grant=<limit> (signup, verify, user_update, mfa_challenge, mfa_verify, mfa_factor, mail_ip, mail_address, mail_budget), outcome=rate_limited.",
	}, []string{"grant", "outcome"})
	m.crawls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "labelbase_crawl_runs_total",
		Help: "Crawl passes by outcome (succeeded, stopped, failed, skipped).",
	}, []string{"outcome"})
	m.parseFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "labelbase_crawl_parse_failures_total",
		Help: "Bandcamp pages the crawler fetched but could not parse, by page (label, release); the label's releases are kept.",
	}, []string{"page"})
	v := version.Get()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "labelbase_build_info",
		Help:        "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{"version": v.Version, "revision": v.Revision, "goversion": v.GoVersion},
	})
	build.Set(1)
	m.reg.MustRegister(m.requests, m.duration, m.reloads, m.reloadSeconds, m.auth, m.crawls, m.parseFailures, build, m.pools,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is where the collectors live (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Middleware counts and times every request by its route template (echo's
// c.Path(): "/rest/v1/:table", "/auth/v1/token"), so label values stay few
// whatever clients send; unrouted requests count as "unmatched".
func (m *Metrics) Middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			start := time.Now()
			err := next(c)
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			status := 0
			if r, _ := echo.UnwrapResponse(c.Response()); r != nil {
				status = r.Status
			}
			if err != nil {
				// The error handler runs after us; count what it will send.
				status = http.StatusInternalServerError
				var sc echo.HTTPStatusCoder
				if errors.As(err, &sc) {
					status = sc.StatusCode()
				}
			}
			obs := m.route(route, methodLabel(c.Request().Method), status)
			obs.count.Inc()
			obs.duration.Observe(time.Since(start).Seconds())
			return err
		}
	}
}

// routeKey is one request series: a route template, a method label and a
// status.
type routeKey struct {
	route, method string
	status        int
}

// routeSeries are a routeKey's counter and its route's histogram.
type routeSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// route returns the series of one request, kept after the first request
// of its kind: WithLabelValues hashes the labels and locks the vector on
// every call, and formats the status, which showed in a request's profile.
// The keys are as few as the labels' values (route templates, methodLabel,
// statuses).
func (m *Metrics) route(route, method string, status int) routeSeries {
	k := routeKey{route, method, status}
	if s, ok := m.series.Load(k); ok {
		return s.(routeSeries)
	}
	s := routeSeries{
		count:    m.requests.WithLabelValues(route, method, strconv.Itoa(status)),
		duration: m.duration.WithLabelValues(route, method),
	}
	m.series.Store(k, s)
	return s
}

// methodLabel is the method as a label value: HTTP's own methods by name,
// any other token a client makes up as "other", so that no client can add
// series at will.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// SchemaReloaded records a schema cache load.
func (m *Metrics) SchemaReloaded(err error, took time.Duration) {
	if err != nil {
		m.reloads.WithLabelValues("error").Inc()
		return
	}
	m.reloads.WithLabelValues("ok").Inc()
	m.reloadSeconds.Set(took.Seconds())
}

// AuthEvent records an outcome of /auth/v1/token.
func (m *Metrics) AuthEvent(grant, outcome string) { m.auth.WithLabelValues(grant, outcome).Inc() }

// CrawlRun records the outcome of a crawl pass.
func (m *Metrics) CrawlRun(outcome string) { m.crawls.WithLabelValues(outcome).Inc() }

// CrawlParseFailure records a page the crawler could not parse.
func (m *Metrics) CrawlParseFailure(page string) { m.parseFailures.WithLabelValues(page).Inc() }

// AddPool exports a pgx pool's statistics under pool="name".
func (m *Metrics) AddPool(name string, p *pgxpool.Pool) {
	m.pools.mu.Lock()
	defer m.pools.mu.Unlock()
	m.pools.pools = append(m.pools.pools, namedPool{name, p})
}

// Handler serves the admin listener: /metrics, and /debug/pprof/ when
// profiling is on.
func (m *Metrics) Handler(profile bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	if profile {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// poolCollector reads pgxpool's own counters at scrape time. One
// collector serves every pool: a registry takes each metric's description
// once.
type poolCollector struct {
	mu    sync.Mutex
	pools []namedPool
}

type namedPool struct {
	name string
	pool *pgxpool.Pool
}

var (
	poolConns = prometheus.NewDesc("labelbase_db_pool_connections",
		"Connections of a database pool by state (idle, acquired, constructing).", []string{"pool", "state"}, nil)
	poolMax = prometheus.NewDesc("labelbase_db_pool_max_connections",
		"The pool's size limit.", []string{"pool"}, nil)
	poolAcquires = prometheus.NewDesc("labelbase_db_pool_acquires_total",
		"Connections handed out by the pool.", []string{"pool"}, nil)
	poolEmptyAcquires = prometheus.NewDesc("labelbase_db_pool_empty_acquires_total",
		"Acquires that had to wait for or open a connection.", []string{"pool"}, nil)
	poolAcquireWait = prometheus.NewDesc("labelbase_db_pool_acquire_wait_seconds_total",
		"Time spent waiting for connections.", []string{"pool"}, nil)
	poolNewConns = prometheus.NewDesc("labelbase_db_pool_new_connections_total",
		"Connections opened.", []string{"pool"}, nil)
)

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConns, poolMax, poolAcquires, poolEmptyAcquires, poolAcquireWait, poolNewConns} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.pools {
		s, n := p.pool.Stat(), p.name
		ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.IdleConns()), n, "idle")
		ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.AcquiredConns()), n, "acquired")
		ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.ConstructingConns()), n, "constructing")
		ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxConns()), n)
		ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(s.AcquireCount()), n)
		ch <- prometheus.MustNewConstMetric(poolEmptyAcquires, prometheus.CounterValue, float64(s.EmptyAcquireCount()), n)
		ch <- prometheus.MustNewConstMetric(poolAcquireWait, prometheus.CounterValue, s.AcquireDuration().Seconds(), n)
		ch <- prometheus.MustNewConstMetric(poolNewConns, prometheus.CounterValue, float64(s.NewConnsCount()), n)
	}
}
