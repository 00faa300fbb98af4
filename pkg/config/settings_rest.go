package config

// restGroup: /rest/v1, under PostgREST's names (DB_X for db-x). The
// settings with .inDatabase may be overridden by the database (DB_CONFIG).
var restGroup = group{
	title: "REST",
	doc: "`/rest/v1`, under PostgREST's names (`DB_TX_END` is PostgREST's `db-tx-end`). A setting with an in-database " +
		"name may be overridden by PostgREST's in-database configuration while `DB_CONFIG` is on: " +
		"`ALTER ROLE authenticator [IN DATABASE …] SET pgrst.db_aggregates_enabled = 'true'`, read at start and on " +
		"`NOTIFY pgrst, 'reload config'`; there booleans also read `on`/`off`/`yes`/`no`, and a bad value fails the " +
		"reload and keeps the settings in force.",
	settings: []setting{
		list("DB_SCHEMAS", []string{"public"}, func(c *Config) *[]string { return &c.DBSchemas },
			"Schemas exposed by `/rest/v1`.").inDatabase("db_schemas"),
		text("DB_ANON_ROLE", "anon", func(c *Config) *string { return &c.DBAnonRole },
			"The role of requests without a token (PostgREST's `db-anon-role`).").inDatabase("db_anon_role"),
		list("DB_EXTRA_SEARCH_PATH", []string{"public", "extensions"}, func(c *Config) *[]string { return &c.DBExtraSearchPath },
			"Schemas after the request's own on `search_path`.").inDatabase("db_extra_search_path"),
		text("DB_TX_END", "commit", func(c *Config) *string { return &c.DBTxEnd },
			"How a REST transaction ends: `commit`, `commit-allow-override`, `rollback`, `rollback-allow-override`; "+
				"with `-allow-override` a request may send `Prefer: tx=commit|rollback` (supabase-js `.rollback()`).").
			inDatabase("db_tx_end"),
		boolean("DB_PREPARED_STATEMENTS", true, func(c *Config) *bool { return &c.DBPreparedStatements },
			"Prepare each statement once per connection; `false` puts every pool (REST, auth, rate limits, the owner's) "+
				"in pgx's exec mode, for a transaction-mode pooler that cannot keep prepared statements "+
				"(PgBouncer before 1.21, Supavisor).").inDatabase("db_prepared_statements"),
		boolean("REST_SET_ALL_REQUEST_SETTINGS", false, func(c *Config) *bool { return &c.RESTSpeed.SetAllRequestSettings },
			"Set `request.method`, `request.path`, `request.headers` and `request.cookies` on every request, as PostgREST "+
				"does, even when the schema cache found nothing in the database that reads them, and check for response "+
				"GUCs after every write that commits in one round trip, even when nothing could set them (docs/performance.md)."),
		boolean("DB_PLAN_ENABLED", false, func(c *Config) *bool { return &c.DBPlanEnabled },
			"Answer `Accept: application/vnd.pgrst.plan[+json|+text]` (supabase-js `.explain()`) with the statement's "+
				"EXPLAIN; plans reveal table sizes and indexes, so keep it off in production.").inDatabase("db_plan_enabled"),
		boolean("DB_AGGREGATES_ENABLED", false, func(c *Config) *bool { return &c.DBAggregatesEnabled },
			"Allow `count()`, `col.sum()`, `avg`, `min`, `max` in `select` with implicit GROUP BY; off by default "+
				"because one request can make the database aggregate a whole table; PGRST123 while off.").
			inDatabase("db_aggregates_enabled"),
		integer("DB_MAX_ROWS", 0, func(c *Config) *int { return &c.DBMaxRows },
			"The most rows a read (and each embed) returns; `0` is no cap.").inDatabase("db_max_rows"),
		text("DB_PRE_REQUEST", "", func(c *Config) *string { return &c.DBPreRequest },
			"A function (`schema.name`) called before every `/rest/v1` statement, in its transaction; it may refuse "+
				"the request (`RAISE SQLSTATE 'PGRST'`).").inDatabase("db_pre_request"),
		text("OPENAPI_MODE", "follow-privileges", func(c *Config) *string { return &c.OpenAPIMode },
			"The root endpoint `/rest/v1/`: `follow-privileges` lists what the caller may use, `ignore-privileges` "+
				"everything exposed, `disabled` answers 404 PGRST126.").inDatabase("openapi_mode"),
		text("REST_JWT_AUD", "", func(c *Config) *string { return &c.RESTJWTAud },
			"PostgREST's `jwt-aud`: a token whose `aud` claim does not include it gets 401 PGRST303 (tokens without "+
				"`aud` pass).").inDatabase("jwt_aud"),
		text("REST_JWT_ROLE_CLAIM_KEY", ".role", func(c *Config) *string { return &c.RESTJWTRoleClaimKey },
			"PostgREST's `jwt-role-claim-key`: where in the claims the role is (`.app_metadata.role`, "+
				"`.\"https://example.com/role\"`, `.roles[0]`); a token without it is anonymous.").inDatabase("jwt_role_claim_key"),
		boolean("DB_CONFIG", true, func(c *Config) *bool { return &c.DBConfig },
			"Read PostgREST's in-database configuration (the `pgrst.*` settings named in this table) at start and on "+
				"`NOTIFY pgrst, 'reload config'`; they override the environment. `false` ignores them."),
		boolean("DB_DEFAULT_GRANTS", false, func(c *Config) *bool { return &c.DBDefaultGrants },
			"Supabase's platform default: tables, sequences and functions the owner creates later in the exposed "+
				"schemas are granted to `anon` and `authenticated`, so a schema written for hosted Supabase needs no "+
				"GRANTs; RLS alone then guards them. Off, only `service_role` gets defaults; Labelbase's migrations grant "+
				"explicitly either way."),
		decl("MAX_BODY_BYTES", int64(1<<20), "1048576", func(c *Config) *int64 { return &c.MaxBodyBytes },
			func(p *parser, name string, def int64) int64 { return int64(p.integer(name, int(def))) },
			"Request body limit (413 above); at least 1024."),
		integer("COMPRESS_MIN_BYTES", 1024, func(c *Config) *int { return &c.CompressMinBytes },
			"Smallest `/rest/v1` or `/auth/v1` response body gzipped for clients that accept gzip (`0`: all); below "+
				"it the gzip framing costs more than it saves."),
	},
	validate: validateREST,
}

func validateREST(c *Config, p *parser) {
	if len(c.DBSchemas) == 0 {
		p.fail("DB_SCHEMAS must name at least one schema")
	}
	if c.DBAnonRole == "" {
		p.fail("DB_ANON_ROLE must name a role")
	}
	switch c.DBTxEnd {
	case "commit", "commit-allow-override", "rollback", "rollback-allow-override":
	default:
		p.fail("DB_TX_END must be commit, commit-allow-override, rollback or rollback-allow-override, got %q", c.DBTxEnd)
	}
	if c.DBMaxRows < 0 {
		p.fail("DB_MAX_ROWS must not be negative")
	}
	switch c.OpenAPIMode {
	case "follow-privileges", "ignore-privileges", "disabled":
	default:
		p.fail("OPENAPI_MODE must be follow-privileges, ignore-privileges or disabled, got %q", c.OpenAPIMode)
	}
	if c.MaxBodyBytes < 1024 {
		p.fail("MAX_BODY_BYTES must be at least 1024")
	}
	if c.CompressMinBytes < 0 {
		p.fail("COMPRESS_MIN_BYTES must not be negative")
	}
}

// RESTSpeed holds the switches of the REST hot path (issue #31).
type RESTSpeed struct {
	// SetAllRequestSettings makes every /rest/v1 request set
	// request.method, request.path, request.headers and request.cookies,
	// as PostgREST does, even when the schema cache found nothing in the
	// database that reads them (pkg/rest/schema/reads.go). Turn it on when
	// SQL reads them in a way the catalog search cannot see (a C function,
	// a name assembled from parts the search does not recognise) or when
	// DDL that reads them is deployed without NOTIFY pgrst.
	SetAllRequestSettings bool
}
