// Package migrate applies the embedded SQL migrations with golang-migrate.
package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5" // registers pgx5://
	"github.com/golang-migrate/migrate/v4/source/iofs"

	sqlfiles "github.com/labelbase/labelbase/sql"
)

// Migrator applies the project's migrations to one database.
type Migrator struct {
	m *migrate.Migrate
}

// New opens a migrator on databaseURL (postgres:// or postgresql://).
func New(databaseURL string) (*Migrator, error) {
	src, err := iofs.New(sqlfiles.Migrations, "migrations")
	if err != nil {
		return nil, fmt.Errorf("migrate: reading embedded migrations: %w", err)
	}
	u, err := driverURL(databaseURL)
	if err != nil {
		return nil, err
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, u)
	if err != nil {
		return nil, fmt.Errorf("migrate: connecting: %w", err)
	}
	return &Migrator{m: m}, nil
}

// driverURL turns a libpq URL into golang-migrate's pgx5:// form. The
// migrations table lives in its own schema so the app's public schema
// holds only the app.
func driverURL(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errors.New("migrate: database URL must start with postgres:// or postgresql://")
	}
	u.Scheme = "pgx5"
	q := u.Query()
	if q.Get("x-migrations-table") == "" {
		q.Set("x-migrations-table", "labelbase_schema_migrations")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Up applies every pending migration; on an up-to-date database it does nothing.
func (m *Migrator) Up() error {
	if err := m.m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate: up: %w", err)
	}
	return nil
}

// Down reverts every migration.
func (m *Migrator) Down() error {
	if err := m.m.Down(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate: down: %w", err)
	}
	return nil
}

// Steps applies n migrations forward (n > 0) or back (n < 0).
func (m *Migrator) Steps(n int) error {
	if err := m.m.Steps(n); err != nil {
		return fmt.Errorf("migrate: steps %d: %w", n, err)
	}
	return nil
}

// Version reports the current version, 0 when none was applied, and
// whether a failed migration left the database dirty.
func (m *Migrator) Version() (uint, bool, error) {
	v, dirty, err := m.m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("migrate: version: %w", err)
	}
	return v, dirty, nil
}

// Close releases the connection.
func (m *Migrator) Close() error {
	srcErr, dbErr := m.m.Close()
	return errors.Join(srcErr, dbErr)
}

// Latest is the highest migration version embedded in the binary.
func Latest() (uint, error) {
	vs, err := Versions()
	if err != nil || len(vs) == 0 {
		return 0, err
	}
	return uint(vs[len(vs)-1]), nil
}

// Versions are the versions of the migrations embedded in the binary, in
// ascending order: the number before the first "_" of each *.up.sql file.
func Versions() ([]uint64, error) {
	ups, err := fs.Glob(sqlfiles.Migrations, "migrations/*.up.sql")
	if err != nil {
		return nil, err
	}
	vs := make([]uint64, 0, len(ups))
	for _, f := range ups {
		v, err := strconv.ParseUint(strings.SplitN(path.Base(f), "_", 2)[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migrate: %s has no version: %w", f, err)
		}
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs, nil
}
