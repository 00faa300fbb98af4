package rest

// The settings PostgREST lets a database configure (its in-database
// configuration): pgrst.* settings on the authenticator role, read at start
// and again on NOTIFY pgrst, 'reload config'. They override the
// environment, as PostgREST's do; DB_CONFIG=false ignores them.

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
)

// settings are /rest/v1's reloadable settings: one immutable snapshot per
// load, swapped in whole, so a request sees one consistent set.
type settings struct {
	Schemas         []string
	ExtraSearchPath []string
	TxEnd           string
	PlanEnabled     bool
	Aggregates      bool
	// MaxRows caps a read's rows; 0 is no cap.
	MaxRows int64
	// PreRequest is the quoted name of the function run before each
	// statement, "" for none.
	PreRequest  string
	OpenAPIMode string
	JWTAud      string
	// AnonRole is the role of requests without a token.
	AnonRole string
	// Prepared prepares each statement once per connection.
	Prepared bool
	// RoleClaim is the parsed jwt-role-claim-key.
	RoleClaim jsPath
	// FromDB lists the pgrst.* settings the database supplied (for logs).
	FromDB []string
}

// envSettings are the settings as the environment gives them.
func envSettings(c *config.Config) (*settings, error) {
	s := &settings{
		Schemas: c.DBSchemas, ExtraSearchPath: c.DBExtraSearchPath, TxEnd: c.DBTxEnd,
		PlanEnabled: c.DBPlanEnabled, Aggregates: c.DBAggregatesEnabled, MaxRows: int64(c.DBMaxRows),
		OpenAPIMode: c.OpenAPIMode, JWTAud: c.RESTJWTAud, AnonRole: c.DBAnonRole, Prepared: c.DBPreparedStatements,
	}
	var err error
	if s.PreRequest, err = quoteFuncName(c.DBPreRequest); err != nil {
		return nil, fmt.Errorf("DB_PRE_REQUEST: %w", err)
	}
	if s.RoleClaim, err = parseJSPath(c.RESTJWTRoleClaimKey); err != nil {
		return nil, fmt.Errorf("REST_JWT_ROLE_CLAIM_KEY: %w", err)
	}
	return s, nil
}

// dbSettingNames are the pgrst.* settings Labelbase has an equivalent
// for; PostgREST's others (jwt_secret, server_*, db_pool…) are ignored.
var dbSettingNames = []string{
	"pgrst.db_aggregates_enabled", "pgrst.db_anon_role", "pgrst.db_extra_search_path", "pgrst.db_max_rows",
	"pgrst.db_plan_enabled", "pgrst.db_pre_request", "pgrst.db_prepared_statements", "pgrst.db_schemas",
	"pgrst.db_tx_end", "pgrst.jwt_aud", "pgrst.jwt_role_claim_key", "pgrst.openapi_mode",
}

// dbSettingsSQL reads the pgrst.* settings of the connected role (the
// authenticator) as PostgREST does: a setting for the role in this
// database wins over one for the role in every database; a setting on the
// database alone (ALTER DATABASE … SET) does not count.
const dbSettingsSQL = `
WITH role_setting AS (
  SELECT s.setdatabase AS db, unnest(s.setconfig) AS setting
    FROM pg_catalog.pg_db_role_setting s
   WHERE s.setrole = CURRENT_USER::regrole::oid
     AND s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
), kv AS (
  SELECT db, substr(setting, 1, strpos(setting, '=') - 1) AS k, substr(setting, strpos(setting, '=') + 1) AS v
    FROM role_setting
)
SELECT DISTINCT ON (k) k, v FROM kv WHERE k = ANY($1) ORDER BY k, db DESC`

// loadDBSettings reads the database's pgrst.* settings.
func loadDBSettings(ctx context.Context, pool *pgxpool.Pool) (map[string]string, error) {
	rows, err := pool.Query(ctx, dbSettingsSQL, dbSettingNames)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(k, "pgrst.")] = v
	}
	return out, rows.Err()
}

// withDB returns env overridden by the database's settings. A value that
// does not parse is an error naming the setting; the caller keeps the
// settings it had.
func (env *settings) withDB(db map[string]string) (*settings, error) {
	s := *env
	s.FromDB = nil
	for _, k := range dbSettingNames {
		k = strings.TrimPrefix(k, "pgrst.")
		v, ok := db[k]
		if !ok {
			continue
		}
		if err := s.set(k, v); err != nil {
			return nil, fmt.Errorf("pgrst.%s: %w", k, err)
		}
		s.FromDB = append(s.FromDB, k)
	}
	return &s, nil
}

func (s *settings) set(k, v string) error {
	var err error
	switch k {
	case "db_aggregates_enabled":
		s.Aggregates, err = pgBool(v)
	case "db_plan_enabled":
		s.PlanEnabled, err = pgBool(v)
	case "db_prepared_statements":
		s.Prepared, err = pgBool(v)
	case "db_anon_role":
		if s.AnonRole = strings.TrimSpace(v); s.AnonRole == "" {
			err = fmt.Errorf("must name a role")
		}
	case "db_tx_end":
		switch v {
		case "commit", "commit-allow-override", "rollback", "rollback-allow-override":
			s.TxEnd = v
		default:
			err = fmt.Errorf("must be commit, commit-allow-override, rollback or rollback-allow-override, got %q", v)
		}
	case "db_max_rows":
		var n int64
		n, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err == nil && n < 0 {
			err = fmt.Errorf("must not be negative")
		}
		s.MaxRows = n
	case "db_pre_request":
		s.PreRequest, err = quoteFuncName(v)
	case "db_schemas":
		s.Schemas = splitList(v)
		if len(s.Schemas) == 0 {
			err = fmt.Errorf("must name at least one schema")
		}
	case "db_extra_search_path":
		s.ExtraSearchPath = splitList(v)
	case "openapi_mode":
		switch v {
		case "follow-privileges", "ignore-privileges", "disabled":
			s.OpenAPIMode = v
		default:
			err = fmt.Errorf("must be follow-privileges, ignore-privileges or disabled, got %q", v)
		}
	case "jwt_aud":
		s.JWTAud = v
	case "jwt_role_claim_key":
		s.RoleClaim, err = parseJSPath(v)
	}
	return err
}

// pgBool reads a boolean as PostgREST's config does (true/false, on/off,
// yes/no, 1/0, any case).
func pgBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "yes", "1", "t", "y":
		return true, nil
	case "false", "off", "no", "0", "f", "n":
		return false, nil
	}
	return false, fmt.Errorf("must be a boolean, got %q", v)
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// quoteFuncName turns "schema.name" (or "name") into a quoted identifier
// for SELECT name(); "" stays "".
func quoteFuncName(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	parts := strings.Split(v, ".")
	if len(parts) > 2 {
		return "", fmt.Errorf("must be a function name, optionally schema-qualified, got %q", v)
	}
	for i, p := range parts {
		p = strings.Trim(strings.TrimSpace(p), `"`)
		if p == "" {
			return "", fmt.Errorf("must be a function name, optionally schema-qualified, got %q", v)
		}
		parts[i] = p
	}
	return pgx.Identifier(parts).Sanitize(), nil
}
