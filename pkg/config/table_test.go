package config

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var minimal = map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": "0123456789abcdef0123456789abcdef"}

func load(t *testing.T, extra map[string]string) *Config {
	t.Helper()
	c, err := Load(func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		return minimal[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEveryReadIsDeclared: Load reads exactly the declared names (and
// NAME_FILE for file settings), so no setting escapes the table and the
// generated documentation.
func TestEveryReadIsDeclared(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	_, _ = Load(func(k string) string { read[k] = true; return minimal[k] })
	names := map[string]setting{}
	for _, s := range declared() {
		if _, dup := names[s.name]; dup {
			t.Errorf("%s is declared twice", s.name)
		}
		names[s.name] = s
	}
	for k := range read {
		base := k
		if s, ok := names[strings.TrimSuffix(k, "_FILE")]; ok && s.file {
			base = s.name
		}
		if _, ok := names[base]; !ok {
			t.Errorf("Load reads %s, which is not declared", k)
		}
	}
	for name, s := range names {
		if !read[name] {
			t.Errorf("%s is declared but Load never reads it", name)
		}
		if s.file && !read[name+"_FILE"] {
			t.Errorf("%s is a file setting but Load never reads %s_FILE", name, name)
		}
	}
}

var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)

// TestDeclarationsAreDocumented: every setting has a name of the usual
// shape and a sentence saying what it does.
func TestDeclarationsAreDocumented(t *testing.T) {
	t.Parallel()
	for _, g := range groups {
		if g.title == "" || g.doc == "" {
			t.Errorf("group %q lacks a title or doc", g.title)
		}
		for _, s := range g.settings {
			if !envName.MatchString(s.name) {
				t.Errorf("%q is not an environment variable name", s.name)
			}
			if len(s.doc) < 10 || !strings.HasSuffix(s.doc, ".") {
				t.Errorf("%s: doc %q must be a sentence", s.name, s.doc)
			}
		}
	}
}

// TestDocumentedDefaultsAreTheDefaults: setting each variable to the
// default the documentation shows changes nothing, so the table cannot
// show one default while Load uses another.
func TestDocumentedDefaultsAreTheDefaults(t *testing.T) {
	t.Parallel()
	want := load(t, nil)
	for _, s := range declared() {
		if s.def == "" || s.defDoc != "" {
			continue
		}
		if got := load(t, map[string]string{s.name: s.def}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s=%q (its documented default) gives a different configuration", s.name, s.def)
		}
	}
}

// TestWithDatabaseSettings: pgrst.* values are parsed by the same
// declarations, PostgREST-style, override a copy only, and a bad one is
// refused under its pgrst name.
func TestWithDatabaseSettings(t *testing.T) {
	t.Parallel()
	env := load(t, map[string]string{"DB_MAX_ROWS": "50", "REST_JWT_AUD": "https://env.example"})
	got, applied, err := env.WithDatabaseSettings(map[string]string{
		"db_aggregates_enabled": "on", "db_schemas": "chat, public", "jwt_aud": "", "db_tx_end": "rollback",
		"server_port": "3000",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !got.DBAggregatesEnabled || strings.Join(got.DBSchemas, ",") != "chat,public" || got.RESTJWTAud != "" ||
		got.DBTxEnd != "rollback" || got.DBMaxRows != 50 {
		t.Errorf("applied wrongly: %+v", got)
	}
	if strings.Join(applied, ",") != "db_schemas,db_tx_end,db_aggregates_enabled,jwt_aud" {
		t.Errorf("applied = %q", applied)
	}
	if env.DBAggregatesEnabled || env.RESTJWTAud != "https://env.example" {
		t.Error("the environment's configuration changed")
	}
	for k, v := range map[string]string{
		"db_tx_end": "sometimes", "db_max_rows": "-1", "db_plan_enabled": "maybe", "db_schemas": " , ",
		"db_anon_role": " ", "openapi_mode": "public",
	} {
		if _, _, err := env.WithDatabaseSettings(map[string]string{k: v}); err == nil || !strings.Contains(err.Error(), "pgrst."+k+": ") {
			t.Errorf("%s=%q: %v, want an error naming pgrst.%s", k, v, err, k)
		}
	}
	names := InDatabaseSettings()
	if len(names) != 12 || names[0] != "pgrst.db_schemas" {
		t.Errorf("InDatabaseSettings = %q", names)
	}
}
