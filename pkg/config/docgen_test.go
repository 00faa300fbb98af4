package config

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from the declarations")

const docPath = "../../docs/configuration.md"

// TestConfigurationDocIsCurrent fails while docs/configuration.md differs
// from what the declarations generate; -update rewrites it.
func TestConfigurationDocIsCurrent(t *testing.T) {
	want := configurationDoc()
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run go test ./pkg/config -run TestConfigurationDocIsCurrent -update", docPath)
	}
}

// configurationDoc renders docs/configuration.md from the groups.
func configurationDoc() string {
	var b strings.Builder
	b.WriteString(`# Configuration

<!-- Generated from pkg/config's declarations by
     go test ./pkg/config -run TestConfigurationDocIsCurrent -update
     Do not edit by hand: edit the declaration, then regenerate. -->

Labelbase reads environment variables once, at start, and validates them: every bad value is
reported by name, all at once, and secrets are never echoed. Supabase's names are used where
Supabase has one. A setting marked *file* may also be given as ` + "`NAME_FILE`" + `, a path whose
contents are the value (container secret mounts).

`)
	for _, g := range groups {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", g.title, g.doc)
		b.WriteString("| setting | default | meaning |\n|---|---|---|\n")
		for _, s := range g.settings {
			fmt.Fprintf(&b, "| `%s`%s | %s | %s%s |\n", s.name, fileMark(s), defaultCell(s), cell(s.doc), pgrstNote(s))
		}
		b.WriteString("\n")
	}
	b.WriteString(`## Outside the gateway

Read by commands and tests, not by ` + "`serve`" + `:

| variable | default | meaning |
|---|---|---|
| ` + "`LABELBASE_DATA_DIR`" + ` | ` + "`.data`" + ` | ` + "`labelbase dev`" + ` only: where the private cluster and the dev secret live. |
| ` + "`PG_BIN_DIR`" + ` | found | ` + "`labelbase dev`" + ` and tests: the directory with ` + "`initdb`, `pg_ctl`, `postgres`" + `, or ` + "`npm`" + ` for the npm package. |
| ` + "`TEST_DATABASE_URL`" + ` | — | Tests: use this server instead of starting a throwaway cluster. |
| ` + "`LABELBASE_ACCEPTANCE`" + ` | — | ` + "`1`" + ` runs the supabase-js, parity and browser suites in ` + "`pkg/app`" + ` (` + "`go tool task test`" + ` sets it). |
`)
	return b.String()
}

func fileMark(s setting) string {
	if s.file {
		return " (file)"
	}
	return ""
}

func defaultCell(s setting) string {
	switch {
	case s.defDoc != "":
		return s.defDoc
	case s.def == "":
		return "—"
	}
	return "`" + s.def + "`"
}

func pgrstNote(s setting) string {
	if s.pgrst == "" {
		return ""
	}
	return " In-database: `pgrst." + s.pgrst + "`."
}

// cell keeps a table cell one cell: a | inside it would split it.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
