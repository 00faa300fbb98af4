package config

import (
	"strconv"
	"strings"
	"time"
)

// How to add a setting
//
// Every setting is declared once, in the group it belongs to (the
// settings_*.go files): its environment name, its default, what it means,
// and where Load puts it. That one declaration drives Load, the generated
// docs/configuration.md and, for PostgREST's settings, the in-database
// pgrst.* overrides. To add one:
//
//  1. Add the field to Config (config.go), or to the group's own struct.
//  2. Declare it in the group's settings list with the helper for its kind
//     (text, secret, integer, seconds, duration, boolean, list), e.g.
//     integer("DB_POOL_SIZE", 10, func(c *Config) *int { return &c.DBPoolSize }, "connections per pool").
//     Add .inDatabase("db_x") when PostgREST reads it as pgrst.db_x, and
//     .defaultDoc("…") when the default is computed (ANON_KEY).
//  3. Check its value in the group's validate, with an error that names it.
//  4. Run `go test ./pkg/config -run TestConfigurationDoc -update` to
//     regenerate docs/configuration.md; the test fails while it is stale.
//
// A new group (realtime, storage, replicas…) lives in a file of its own:
// declare a group value there and add it to groups below. A group may
// keep its values in a struct of its own (Config.Realtime, …): the
// setting helpers take any accessor func(*Config) *T.
var groups = []*group{
	&serverGroup, &adminGroup, &databaseGroup, &keysGroup, &authGroup,
	&rateLimitGroup, &mfaGroup, &mailerGroup, &restGroup, &crawlGroup,
	&securityGroup, &replicasGroup, &realtimeGroup, &storageGroup,
}

// group is a section of the configuration: its settings in the order the
// documentation lists them, and the checks that need them all.
type group struct {
	title    string
	doc      string
	settings []setting
	// validate reports every bad value with p.fail; it runs once all
	// groups are loaded, so it may read other groups' fields.
	validate func(c *Config, p *parser)
	// derive fills computed defaults once everything is valid.
	derive func(c *Config)
}

// setting is one environment variable.
type setting struct {
	name string
	// def is the default as an operator would write it ("" for none).
	def string
	// defDoc replaces def in the documentation for computed defaults.
	defDoc string
	doc    string
	// file: the value may also come from the file named by NAME_FILE.
	file bool
	// pgrst is the key of PostgREST's in-database setting (pgrst.<key>)
	// that overrides this one, "" when the database cannot set it.
	pgrst string
	load  func(p *parser, c *Config)
}

func (s setting) inDatabase(key string) setting { s.pgrst = key; return s }

func (s setting) defaultDoc(d string) setting { s.defDoc = d; return s }

// decl declares a setting parsed by read (one of the parser's methods, so
// the parsing and its error messages are the parser's) into the field at
// returns.
func decl[T any](name string, def T, shown string, at func(*Config) *T, read func(*parser, string, T) T, doc string) setting {
	return setting{name: name, def: shown, doc: doc, load: func(p *parser, c *Config) { *at(c) = read(p, name, def) }}
}

func text(name, def string, at func(*Config) *string, doc string) setting {
	return decl(name, def, def, at, (*parser).str, doc)
}

// secret is a text setting that may come from NAME_FILE and whose value
// is never echoed in errors.
func secret(name string, at func(*Config) *string, doc string) setting {
	s := decl(name, "", "", at, (*parser).secret, doc)
	s.file = true
	return s
}

func integer(name string, def int, at func(*Config) *int, doc string) setting {
	return decl(name, def, strconv.Itoa(def), at, (*parser).integer, doc)
}

// seconds is a duration written as a whole number of seconds (GoTrue's
// style: JWT_EXP=3600).
func seconds(name string, def time.Duration, at func(*Config) *time.Duration, doc string) setting {
	return decl(name, def, strconv.Itoa(int(def/time.Second)), at, (*parser).seconds, doc)
}

// duration is a Go duration (1s, 500ms, 1m).
func duration(name string, def time.Duration, at func(*Config) *time.Duration, doc string) setting {
	return decl(name, def, shortDuration(def), at, (*parser).duration, doc)
}

func boolean(name string, def bool, at func(*Config) *bool, doc string) setting {
	return decl(name, def, strconv.FormatBool(def), at, (*parser).boolean, doc)
}

// list is a comma-separated list.
func list(name string, def []string, at func(*Config) *[]string, doc string) setting {
	return decl(name, def, strings.Join(def, ","), at, (*parser).list, doc)
}

// shortDuration writes 1m rather than time's 1m0s, as an operator would.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// declared returns every setting in documentation order.
func declared() []setting {
	var out []setting
	for _, g := range groups {
		out = append(out, g.settings...)
	}
	return out
}
