package sqlfiles

import (
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// migrationName is golang-migrate's VERSION_name.{up,down}.sql with the
// two version shapes this project has used: six digits (000001–000023,
// frozen) and, from 2026-11-27 on, a 14-digit UTC timestamp
// (YYYYMMDDhhmmss), which branches working in parallel cannot both take.
var migrationName = regexp.MustCompile(`^(\d{6}|\d{14})_([a-z0-9_]+)\.(up|down)\.sql$`)

// lastSequential is the last six-digit version; every later one is a
// timestamp.
const lastSequential = 23

// migrationsDoc must explain every gap in the six-digit sequence.
const migrationsDoc = "../docs/migrations.md"

type pair struct{ name, up, down string }

func readVersions(t *testing.T) map[uint64]*pair {
	t.Helper()
	entries, err := fs.ReadDir(Migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	versions := map[uint64]*pair{}
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			t.Errorf("%s: not VERSION_name.up.sql or .down.sql (VERSION: 6 digits up to %06d, then YYYYMMDDhhmmss)", e.Name(), lastSequential)
			continue
		}
		v, _ := strconv.ParseUint(m[1], 10, 64)
		checkVersionShape(t, e.Name(), m[1], v)
		p := versions[v]
		if p == nil {
			p = &pair{name: m[2]}
			versions[v] = p
		}
		if p.name != m[2] {
			t.Errorf("version %s is used twice: %s and %s", m[1], p.name, m[2])
		}
		if m[3] == "up" {
			p.up = e.Name()
		} else {
			p.down = e.Name()
		}
	}
	return versions
}

func checkVersionShape(t *testing.T, file, digits string, v uint64) {
	t.Helper()
	if len(digits) == 6 && v > lastSequential {
		t.Errorf("%s: six-digit versions end at %06d; use a UTC timestamp YYYYMMDDhhmmss", file, lastSequential)
	}
	if len(digits) == 14 {
		if _, err := time.Parse("20060102150405", digits); err != nil {
			t.Errorf("%s: %s is not a timestamp YYYYMMDDhhmmss: %v", file, digits, err)
		}
	}
}

// TestMigrationVersions: versions are unique, every up has its down and
// the reverse, new versions are timestamps, and every gap in the old
// six-digit sequence is explained in docs/migrations.md.
func TestMigrationVersions(t *testing.T) {
	t.Parallel()
	versions := readVersions(t)
	for v, p := range versions {
		if p.up == "" || p.down == "" {
			t.Errorf("version %d (%s) needs both an up and a down file; has up %q, down %q", v, p.name, p.up, p.down)
		}
	}
	doc, err := os.ReadFile(migrationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	for v := uint64(1); v <= lastSequential; v++ {
		if versions[v] != nil {
			continue
		}
		if !strings.Contains(string(doc), fmt.Sprintf("- `%06d`", v)) {
			t.Errorf("version %06d is missing and %s does not explain why (a line \"- `%06d` …\")", v, migrationsDoc, v)
		}
	}
}
