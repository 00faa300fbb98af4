package config

import (
	"net/url"
	"strings"
)

// serverGroup: the public listener, the web app and logs.
var serverGroup = group{
	title: "Server",
	doc:   "The public HTTP listener, what browsers may call it from, the web app, and logs.",
	settings: []setting{
		text("LISTEN_ADDR", ":8080", func(c *Config) *string { return &c.ListenAddr },
			"HTTP listen address."),
		text("SITE_URL", "http://localhost:8080", func(c *Config) *string { return &c.SiteURL },
			"The app's public URL: the token issuer, where mailed links land; its host is always an allowed redirect. "+
				"`labelbase dev` uses the address it listens on; `serve` warns at start when a local `SITE_URL` "+
				"(localhost or an IP) is not the address it listens on."),
		list("CORS_ALLOWED_ORIGINS", []string{"*"}, func(c *Config) *[]string { return &c.CORSAllowedOrigins },
			"Comma-separated origins allowed to call the APIs from a browser."),
		text("TRUSTED_PROXY_HEADER", "", func(c *Config) *string { return &c.TrustedProxyHeader },
			"Header holding the client IP behind a trusted proxy (e.g. `X-Forwarded-For`, right-most entry); "+
				"empty: the connection's address is the client."),
		text("ANALYTICS_SCRIPT_URL", "", func(c *Config) *string { return &c.AnalyticsScriptURL },
			"Optional analytics script the web app loads; off by default."),
		text("LOG_LEVEL", "info", func(c *Config) *string { return &c.LogLevel },
			"`debug`, `info`, `warn` or `error`."),
		text("LOG_FORMAT", "text", func(c *Config) *string { return &c.LogFormat },
			"`text` or `json`."),
	},
	validate: func(c *Config, p *parser) {
		if u, err := url.Parse(c.SiteURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.fail("SITE_URL must be an absolute http(s) URL, got %q", c.SiteURL)
		}
		if c.ListenAddr == "" {
			p.fail("LISTEN_ADDR must not be empty")
		}
		if c.AnalyticsScriptURL != "" {
			if u, err := url.Parse(c.AnalyticsScriptURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				p.fail("ANALYTICS_SCRIPT_URL must be an absolute http(s) URL")
			}
		}
		switch strings.ToLower(c.LogLevel) {
		case "debug", "info", "warn", "error":
		default:
			p.fail("LOG_LEVEL must be debug, info, warn or error")
		}
		switch c.LogFormat {
		case "text", "json":
		default:
			p.fail("LOG_FORMAT must be text or json")
		}
	},
}

// adminGroup: the operator's listener, apart from the public one.
var adminGroup = group{
	title: "Admin listener",
	doc:   "A second listener for operators, never the public one. See [operating.md](operating.md).",
	settings: []setting{
		text("ADMIN_LISTEN_ADDR", "", func(c *Config) *string { return &c.AdminListenAddr },
			"A second listener serving Prometheus `/metrics` (e.g. `127.0.0.1:9100`); empty turns it off."),
		boolean("ADMIN_PPROF", false, func(c *Config) *bool { return &c.AdminPprof },
			"Also serve Go's profiler at `/debug/pprof/` on the admin listener (needs `ADMIN_LISTEN_ADDR`)."),
	},
	validate: func(c *Config, p *parser) {
		if c.AdminPprof && c.AdminListenAddr == "" {
			p.fail("ADMIN_PPROF needs ADMIN_LISTEN_ADDR: the profiler is never served on the public port")
		}
		if c.AdminListenAddr != "" && c.AdminListenAddr == c.ListenAddr && !strings.HasSuffix(c.ListenAddr, ":0") {
			p.fail("ADMIN_LISTEN_ADDR must differ from LISTEN_ADDR")
		}
	},
}
