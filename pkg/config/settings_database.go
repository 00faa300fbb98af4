package config

import "time"

// databaseGroup: the connections.
var databaseGroup = group{
	title: "Database",
	doc:   "The PostgreSQL connections and what a lost connection does.",
	settings: []setting{
		secret("DATABASE_URL", func(c *Config) *string { return &c.DatabaseURL },
			"Required. An owner or superuser connection: migrations, the auth store and the ingest worker use it.").
			defaultDoc("— (required)"),
		secret("REST_DATABASE_URL", func(c *Config) *string { return &c.RESTDatabaseURL },
			"Optional least-privilege login (the `authenticator` role) for `/rest/v1`; without it REST connections "+
				"use `DATABASE_URL` and drop to `authenticator` for the whole session.").
			defaultDoc("`DATABASE_URL`"),
		integer("DB_POOL_SIZE", 10, func(c *Config) *int { return &c.DBPoolSize },
			"Connections per pool (at least 2)."),
		duration("DB_STATEMENT_TIMEOUT", 10*time.Second, func(c *Config) *time.Duration { return &c.StatementTimeout },
			"Per-request statement timeout."),
		duration("DB_RETRY_WINDOW", 5*time.Second, func(c *Config) *time.Duration { return &c.DBRetryWindow },
			"How long a REST request whose database connection was lost (a restart) keeps retrying on fresh "+
				"connections, with backoff, before answering 503 with `Retry-After`; `0s` answers at once (at most `5m`). "+
				"Reads are retried; a write only when nothing reached the server or the server says it rolled the write "+
				"back. A write whose commit may have happened is never resent: it gets 503 saying the outcome is unknown."),
	},
	validate: func(c *Config, p *parser) {
		if c.DatabaseURL == "" {
			p.fail("DATABASE_URL is required (a PostgreSQL URL of an owner or superuser)")
		} else if err := checkPostgresURL(c.DatabaseURL); err != nil {
			p.fail("DATABASE_URL: %v", err)
		}
		if c.RESTDatabaseURL != "" {
			if err := checkPostgresURL(c.RESTDatabaseURL); err != nil {
				p.fail("REST_DATABASE_URL: %v", err)
			}
		}
		if c.DBPoolSize < 2 {
			p.fail("DB_POOL_SIZE must be at least 2")
		}
		if c.StatementTimeout <= 0 {
			p.fail("DB_STATEMENT_TIMEOUT must be positive")
		}
		if c.DBRetryWindow < 0 || c.DBRetryWindow > 5*time.Minute {
			p.fail("DB_RETRY_WINDOW must be between 0s and 5m")
		}
	},
}
