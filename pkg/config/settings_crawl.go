package config

import (
	"net/url"
	"time"
)

// crawlGroup: the daily Bandcamp ingest.
var crawlGroup = group{
	title: "Crawl",
	doc:   "The daily Bandcamp ingest (see [crawler.md](crawler.md)).",
	settings: []setting{
		text("CRAWL_AT", "03:00", func(c *Config) *string { return &c.CrawlAt },
			"Daily ingest time (UTC, `HH:MM`)."),
		duration("CRAWL_REQUEST_INTERVAL", time.Second, func(c *Config) *time.Duration { return &c.CrawlRequestInterval },
			"Minimum gap between two requests to one host."),
		text("CRAWL_USER_AGENT", "Labelbase/1.0 (+self-hosted label follower; one request per second)",
			func(c *Config) *string { return &c.CrawlUserAgent },
			"The crawler's User-Agent."),
		boolean("CRAWL_DISABLED", false, func(c *Config) *bool { return &c.CrawlDisabled },
			"No scheduled crawl in `serve`/`dev`."),
		duration("CRAWL_CATCH_UP_DELAY", time.Minute, func(c *Config) *time.Duration { return &c.CrawlCatchUpDelay },
			"How soon after start a gateway crawls when no pass succeeded in the last 24 hours; at least `1s`."),
		integer("CRAWL_MAX_REFUSALS", 3, func(c *Config) *int { return &c.CrawlMaxRefusals },
			"Refusals from Bandcamp in a row (challenge pages, 429s that outlast the back-off) that stop a pass early."),
		integer("CRAWL_MAX_NETWORK_FAILURES", 3, func(c *Config) *int { return &c.CrawlMaxNetworkFailures },
			"Requests in a row that cannot reach Bandcamp (DNS, connection refused, no route, TLS), each after its "+
				"retries, that stop a pass early."),
		text("BANDCAMP_UPSTREAM", "", func(c *Config) *string { return &c.BandcampUpstream },
			"Send every crawler request to this http(s) origin, keeping the `Host` header (tests)."),
	},
	validate: func(c *Config, p *parser) {
		if c.BandcampUpstream != "" {
			if u, err := url.Parse(c.BandcampUpstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				p.fail("BANDCAMP_UPSTREAM must be an http(s) origin, got %q", c.BandcampUpstream)
			}
		}
		if _, err := time.Parse("15:04", c.CrawlAt); err != nil {
			p.fail("CRAWL_AT must be a UTC time of day as HH:MM, got %q", c.CrawlAt)
		}
		if c.CrawlRequestInterval < 0 {
			p.fail("CRAWL_REQUEST_INTERVAL must not be negative")
		}
		if c.CrawlCatchUpDelay < time.Second {
			p.fail("CRAWL_CATCH_UP_DELAY must be at least 1s")
		}
		if c.CrawlMaxRefusals < 1 {
			p.fail("CRAWL_MAX_REFUSALS must be at least 1")
		}
		if c.CrawlMaxNetworkFailures < 1 {
			p.fail("CRAWL_MAX_NETWORK_FAILURES must be at least 1")
		}
	},
}
