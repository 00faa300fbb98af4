package rest

// The settings PostgREST lets a database configure (its in-database
// configuration): pgrst.* settings on the authenticator role, read at start
// and again on NOTIFY pgrst, 'reload config'. They override the
// environment, as PostgREST's do; DB_CONFIG=false ignores them.

import (
	"context"
	"fmt"
	"slices"
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
	// cfg is the environment's configuration, the base every reload
	// applies the database's settings to.
	cfg *config.Config
}

// envSettings are the settings as the environment gives them.
func envSettings(c *config.Config) (*settings, error) {
	return build(c, nil)
}

// build derives /rest/v1's settings from a configuration. fromDB names the
// pgrst.* keys the database supplied, so an error names what set the value.
func build(c *config.Config, fromDB []string) (*settings, error) {
	s := &settings{
		cfg: c, Schemas: c.DBSchemas, ExtraSearchPath: c.DBExtraSearchPath, TxEnd: c.DBTxEnd,
		PlanEnabled: c.DBPlanEnabled, Aggregates: c.DBAggregatesEnabled, MaxRows: int64(c.DBMaxRows),
		OpenAPIMode: c.OpenAPIMode, JWTAud: c.RESTJWTAud, AnonRole: c.DBAnonRole, Prepared: c.DBPreparedStatements,
		FromDB: fromDB,
	}
	name := func(env, key string) string {
		if slices.Contains(fromDB, key) {
			return "pgrst." + key
		}
		return env
	}
	var err error
	if s.PreRequest, err = quoteFuncName(c.DBPreRequest); err != nil {
		return nil, fmt.Errorf("%s: %w", name("DB_PRE_REQUEST", "db_pre_request"), err)
	}
	if s.RoleClaim, err = parseJSPath(c.RESTJWTRoleClaimKey); err != nil {
		return nil, fmt.Errorf("%s: %w", name("REST_JWT_ROLE_CLAIM_KEY", "jwt_role_claim_key"), err)
	}
	return s, nil
}

// dbSettingNames are the pgrst.* settings Labelbase has an equivalent
// for, as pkg/config declares them; PostgREST's others (jwt_secret,
// server_*, db_pool…) are ignored.
var dbSettingNames = config.InDatabaseSettings()

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

// withDB returns env overridden by the database's settings, each parsed
// and checked by its declaration in pkg/config. A value that does not
// parse is an error naming the setting; the caller keeps the settings it
// had.
func (env *settings) withDB(db map[string]string) (*settings, error) {
	c, applied, err := env.cfg.WithDatabaseSettings(db)
	if err != nil {
		return nil, err
	}
	s, err := build(c, applied)
	if err != nil {
		return nil, err
	}
	// The environment stays the base of the next reload.
	s.cfg = env.cfg
	return s, nil
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
