package config

import (
	"fmt"
	"strings"
	"time"
)

// Replicas is the settings for running past one database: read replicas,
// read-your-writes, a transaction-mode pooler in front of the primary and
// the connection budget (docs/scaling.md).
type Replicas struct {
	// URLs are the read replicas (DATABASE_REPLICA_URLS, comma-separated).
	// Each connects straight to its replica: as authenticator, or as a
	// user the REST pool drops to authenticator for the session.
	URLs []string
	// MaxLagBytes is how far (in WAL bytes) a replica may be behind the
	// primary and still serve reads (REPLICA_MAX_LAG_BYTES).
	MaxLagBytes int64
	// CheckInterval is how often each replica's health and lag are read
	// (REPLICA_CHECK_INTERVAL). A replica that goes away is skipped within
	// CheckInterval plus the check's timeout, and at once when a request
	// finds it gone.
	CheckInterval time.Duration
	// ReadYourWritesWindow is the lifetime of the cookie a write response
	// sets with the primary's WAL position (READ_YOUR_WRITES_WINDOW); 0
	// sets no cookie.
	ReadYourWritesWindow time.Duration
	// DirectURL connects to the primary without a pooler
	// (DATABASE_DIRECT_URL). Setting it declares DATABASE_URL (and
	// REST_DATABASE_URL) to be a transaction-mode pooler: what needs a
	// session (LISTEN, the crawler's lock, migrations, logical replication)
	// goes here instead.
	DirectURL string
	// Gateways is how many gateway processes share the primary
	// (DB_GATEWAYS), for the connection budget checked at start.
	Gateways int
}

// DirectOrPrimary is the URL for work that needs a session on the
// primary: DATABASE_DIRECT_URL, or DATABASE_URL when there is no pooler.
func (c *Config) DirectOrPrimary() string {
	if c.Replicas.DirectURL != "" {
		return c.Replicas.DirectURL
	}
	return c.DatabaseURL
}

// DefaultMaxLagBytes is 16 MiB of WAL: a replica that far behind is
// seconds of heavy writes late, or minutes of this app's normal traffic.
const DefaultMaxLagBytes = 16 << 20

// replicasGroup: past one database (docs/scaling.md).
var replicasGroup = group{
	title: "Replicas and poolers",
	doc:   "Read replicas, read-your-writes, a transaction pooler in front of the primary (see [scaling.md](scaling.md)).",
	settings: []setting{
		list("DATABASE_REPLICA_URLS", nil, func(c *Config) *[]string { return &c.Replicas.URLs },
			"Comma-separated read replicas; GET and HEAD on `/rest/v1` go to a healthy one."),
		byteCount("REPLICA_MAX_LAG_BYTES", DefaultMaxLagBytes, func(c *Config) *int64 { return &c.Replicas.MaxLagBytes },
			"WAL bytes a replica may trail the primary and still serve reads (16 MiB)."),
		duration("REPLICA_CHECK_INTERVAL", 500*time.Millisecond, func(c *Config) *time.Duration { return &c.Replicas.CheckInterval },
			"How often each replica's health and lag are read (`50ms` to `1s`)."),
		duration("READ_YOUR_WRITES_WINDOW", 10*time.Second, func(c *Config) *time.Duration { return &c.Replicas.ReadYourWritesWindow },
			"Lifetime of the `labelbase-read-after` cookie a write response sets with the primary's WAL position; "+
				"`0` sets none (`0s` to `10m`)."),
		secret("DATABASE_DIRECT_URL", func(c *Config) *string { return &c.Replicas.DirectURL },
			"A direct (unpooled) connection to the primary; setting it declares `DATABASE_URL` a transaction pooler, "+
				"and LISTEN, the crawler's lock, migrations and logical replication use this instead."),
		integer("DB_GATEWAYS", 1, func(c *Config) *int { return &c.Replicas.Gateways },
			"How many gateways share the primary and its replicas, for the connection budgets checked at start (docs/scaling.md)."),
	},
	validate: func(c *Config, p *parser) {
		r := c.Replicas
		for i, u := range r.URLs {
			if err := checkPostgresURL(u); err != nil {
				p.fail("DATABASE_REPLICA_URLS: entry %d: %v", i+1, err)
			}
		}
		if r.DirectURL != "" {
			if err := checkPostgresURL(r.DirectURL); err != nil {
				p.fail("DATABASE_DIRECT_URL: %v", err)
			}
		}
		if r.MaxLagBytes < 0 {
			p.fail("REPLICA_MAX_LAG_BYTES must not be negative")
		}
		// The bound: a replica that goes away is skipped within 2 s.
		if r.CheckInterval < 50*time.Millisecond || r.CheckInterval > time.Second {
			p.fail("REPLICA_CHECK_INTERVAL must be between 50ms and 1s")
		}
		if r.ReadYourWritesWindow < 0 || r.ReadYourWritesWindow > 10*time.Minute {
			p.fail("READ_YOUR_WRITES_WINDOW must be between 0s and 10m")
		}
		if r.Gateways < 1 {
			p.fail("DB_GATEWAYS must be at least 1")
		}
		c.checkPooled(p)
	},
}

// byteCount is a whole number of bytes as an int64.
func byteCount(name string, def int64, at func(*Config) *int64, doc string) setting {
	return decl(name, def, fmt.Sprint(def), at, func(p *parser, name string, def int64) int64 {
		return int64(p.integer(name, int(def)))
	}, doc)
}

// checkPooled refuses settings that would silently break behind a
// transaction pooler. Called after the whole Config is parsed.
func (c *Config) checkPooled(p *parser) {
	if c.Replicas.DirectURL == "" {
		return
	}
	if sameURL(c.Replicas.DirectURL, c.DatabaseURL) {
		p.fail("DATABASE_DIRECT_URL must not equal DATABASE_URL: set it only when DATABASE_URL is a transaction pooler (PgBouncer, Supavisor)")
	}
	if c.RESTDatabaseURL == "" {
		// Without a login of its own the REST pool would drop to
		// authenticator with SET SESSION ROLE, which a transaction pooler
		// leaves on whichever server connection ran it.
		p.fail("REST_DATABASE_URL is required with DATABASE_DIRECT_URL: behind a transaction pooler the REST pool must log in as authenticator (a session-level SET ROLE would not stick)")
	}
}

func sameURL(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// DirectDatabaseURL reads only DATABASE_DIRECT_URL (or its _FILE), for
// commands such as migrate that need a session on the primary; "" when
// unset.
func DirectDatabaseURL(getenv Getenv) (string, error) {
	p := parser{getenv: getenv}
	u := p.secret("DATABASE_DIRECT_URL", "")
	if len(p.errs) > 0 {
		return "", p.errs[0]
	}
	if u != "" {
		if err := checkPostgresURL(u); err != nil {
			return "", fmt.Errorf("DATABASE_DIRECT_URL: %w", err)
		}
	}
	return u, nil
}

// PreparedStatements reads DB_PREPARED_STATEMENTS alone, for commands that
// open a pool without loading every setting (the CLI's).
func PreparedStatements(getenv Getenv) (bool, error) {
	p := parser{getenv: getenv}
	v := p.boolean("DB_PREPARED_STATEMENTS", true)
	if len(p.errs) > 0 {
		return true, p.errs[0]
	}
	return v, nil
}
