package metrics

import "testing"

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
