package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// parser reads settings by name and collects every problem, so Load can
// report them all at once. Its methods are the only parsing there is: the
// declarations (table.go) and the groups' own loaders call them.
type parser struct {
	getenv Getenv
	errs   []error
	// inDatabase parses a pgrst.* value as PostgREST does: an empty value
	// is the value (not "use the default"), and booleans also read
	// on/off/yes/no.
	inDatabase bool
}

func (p *parser) fail(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

func (p *parser) str(name, def string) string {
	v := strings.TrimSpace(p.getenv(name))
	if v != "" || p.inDatabase {
		return v
	}
	return def
}

// secret reads NAME, or the file named by NAME_FILE. Values are never echoed
// back in errors.
func (p *parser) secret(name, def string) string {
	if f := p.getenv(name + "_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			p.fail("%s_FILE: cannot read %s: %v", name, f, err)
			return def
		}
		return strings.TrimSpace(string(b))
	}
	return p.str(name, def)
}

func (p *parser) integer(name string, def int) int {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be a whole number, got %q", name, v)
		return def
	}
	return n
}

func (p *parser) seconds(name string, def time.Duration) time.Duration {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be a whole number of seconds, got %q", name, v)
		return def
	}
	return time.Duration(n) * time.Second
}

func (p *parser) duration(name string, def time.Duration) time.Duration {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be a duration such as 1s or 500ms, got %q", name, v)
		return def
	}
	return d
}

func (p *parser) boolean(name string, def bool) bool {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	parse := strconv.ParseBool
	if p.inDatabase {
		parse = pgBool
	}
	b, err := parse(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be true or false, got %q", name, v)
		return def
	}
	return b
}

// pgBool reads a boolean as PostgREST's configuration does (true/false,
// on/off, yes/no, 1/0, t/f, y/n, any case).
func pgBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "on", "yes", "1", "t", "y":
		return true, nil
	case "false", "off", "no", "0", "f", "n":
		return false, nil
	}
	return false, errors.New("not a boolean")
}

func (p *parser) list(name string, def []string) []string {
	v := p.getenv(name)
	if strings.TrimSpace(v) == "" && !p.inDatabase {
		return def
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
