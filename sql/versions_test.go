package sqlfiles

import (
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
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

// TestMigrationVersions: versions are unique, every up has its down and
// the reverse, new versions are timestamps, and every gap in the old
// six-digit sequence is explained in docs/migrations.md.
func TestMigrationVersions(t *testing.T) {
	t.Parallel()
	entries, err := fs.ReadDir(Migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	doc, err := os.ReadFile(migrationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range checkMigrations(names, string(doc), lastSequential) {
		t.Error(problem)
	}
}

// TestMigrationRulesCatch: each rule refuses what it is for, so the test
// above can fail.
func TestMigrationRulesCatch(t *testing.T) {
	t.Parallel()
	good := []string{"000001_a.up.sql", "000001_a.down.sql", "000003_c.up.sql", "000003_c.down.sql",
		"20261127202000_d.up.sql", "20261127202000_d.down.sql"}
	const doc = "- `000002` — never used.\n"
	if p := checkMigrations(good, doc, 3); len(p) != 0 {
		t.Fatalf("a valid set refused: %q", p)
	}
	for name, tc := range map[string]struct {
		files []string
		doc   string
		want  string
	}{
		"missing down":         {append(slices.Clone(good), "20261127202100_e.up.sql"), doc, "needs both an up and a down"},
		"version used twice":   {append(slices.Clone(good), "20261127202000_x.up.sql"), doc, "used twice"},
		"new six-digit":        {append(slices.Clone(good), "000024_f.up.sql", "000024_f.down.sql"), doc, "six-digit versions end at 000023"},
		"last one removed":     {good[:2], doc, "version 000003 is missing"},
		"not a timestamp":      {append(slices.Clone(good), "20261399999999_g.up.sql", "20261399999999_g.down.sql"), doc, "not a timestamp"},
		"bad file name":        {append(slices.Clone(good), "7_h.sql"), doc, "not VERSION_name"},
		"gap not explained":    {good, "", "version 000002 is missing"},
		"another gap appeared": {good[2:], doc, "version 000001 is missing"},
	} {
		problems := strings.Join(checkMigrations(tc.files, tc.doc, 3), "\n")
		if !strings.Contains(problems, tc.want) {
			t.Errorf("%s: problems %q, want one saying %q", name, problems, tc.want)
		}
	}
}

type pair struct{ name, up, down string }

// checkMigrations returns every rule the migration file names break; doc
// is docs/migrations.md, which must list each gap in 1..last as
// "- `NNNNNN`".
func checkMigrations(files []string, doc string, last uint64) []string {
	var problems []string
	versions := map[uint64]*pair{}
	for _, f := range files {
		m := migrationName.FindStringSubmatch(f)
		if m == nil {
			problems = append(problems, fmt.Sprintf("%s: not VERSION_name.up.sql or .down.sql (VERSION: six digits up to %06d, then YYYYMMDDhhmmss)", f, lastSequential))
			continue
		}
		v, _ := strconv.ParseUint(m[1], 10, 64)
		problems = append(problems, versionShape(f, m[1], v)...)
		p := versions[v]
		if p == nil {
			p = &pair{name: m[2]}
			versions[v] = p
		}
		if p.name != m[2] {
			problems = append(problems, fmt.Sprintf("version %s is used twice: %s and %s", m[1], p.name, m[2]))
		}
		if m[3] == "up" {
			p.up = f
		} else {
			p.down = f
		}
	}
	for v, p := range versions {
		if p.up == "" || p.down == "" {
			problems = append(problems, fmt.Sprintf("version %d (%s) needs both an up and a down file; has up %q, down %q", v, p.name, p.up, p.down))
		}
	}
	for v := uint64(1); v <= last; v++ {
		if versions[v] == nil && !strings.Contains(doc, fmt.Sprintf("- `%06d`", v)) {
			problems = append(problems, fmt.Sprintf("version %06d is missing and %s does not explain why (a line \"- `%06d` …\")", v, migrationsDoc, v))
		}
	}
	return problems
}

func versionShape(file, digits string, v uint64) []string {
	if len(digits) == 6 && v > lastSequential {
		return []string{fmt.Sprintf("%s: six-digit versions end at %06d; use a UTC timestamp YYYYMMDDhhmmss", file, lastSequential)}
	}
	if len(digits) == 14 {
		if _, err := time.Parse("20060102150405", digits); err != nil {
			return []string{fmt.Sprintf("%s: %s is not a timestamp YYYYMMDDhhmmss: %v", file, digits, err)}
		}
	}
	return nil
}
