// Package lint_test checks the lint configuration against the repository,
// without the linters: golangci-lint is a long build that only `go tool
// task lint` makes, while these tests run with every `go test`.
package lint_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/labelbase/labelbase"

// pkg is one Go package of the module: its import path, whether it is a
// test helper, and what its non-test files import (import path to the
// first file importing it).
type pkg struct {
	path    string
	helper  bool
	imports map[string]string
}

// depguardRule is .golangci.yml's test-helpers rule: the packages it
// denies and the directories its files list leaves out ("!**/dir/**").
type depguardRule struct {
	denied, exempt []string
}

var (
	denyLine   = regexp.MustCompile(`(?m)^\s*- pkg: (\S+)`)
	exemptLine = regexp.MustCompile(`(?m)^\s*- "!\*\*/(.+)/\*\*"`)
)

// TestDepguardKeepsTestHelpersOut: every test helper of the module (a
// package whose code imports "testing", or named *test or fake*) is denied
// to production code by .golangci.yml's depguard rule and exempt from it
// itself, the rule names no package that is gone, and no production file
// imports a helper today.
func TestDepguardKeepsTestHelpersOut(t *testing.T) {
	t.Parallel()
	cfg, err := os.ReadFile("../.golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := modulePackages("..")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages: is the test running in lint/?", len(pkgs))
	}
	for _, p := range checkDepguard(pkgs, parseRule(string(cfg))) {
		t.Error(p)
	}
}

// TestDepguardRuleCatches: each check refuses what it is for.
func TestDepguardRuleCatches(t *testing.T) {
	t.Parallel()
	helper := pkg{path: module + "/pkg/pgtest", helper: true, imports: map[string]string{}}
	prod := pkg{path: module + "/pkg/auth", imports: map[string]string{}}
	rule := depguardRule{denied: []string{module + "/pkg/pgtest"}, exempt: []string{"pkg/pgtest"}}
	if p := checkDepguard([]pkg{helper, prod}, rule); len(p) != 0 {
		t.Fatalf("a clean tree refused: %q", p)
	}
	leak := prod
	leak.imports = map[string]string{module + "/pkg/pgtest": "pkg/auth/auth.go"}
	for name, tc := range map[string]struct {
		pkgs []pkg
		rule depguardRule
		want string
	}{
		"production imports a helper": {[]pkg{helper, leak}, rule, "pkg/auth/auth.go imports the test helper"},
		"helper not denied":           {[]pkg{helper, prod}, depguardRule{exempt: rule.exempt}, "does not deny"},
		"helper not exempt":           {[]pkg{helper, prod}, depguardRule{denied: rule.denied}, "does not exempt"},
		"stale entry":                 {[]pkg{prod}, rule, "no such test helper"},
	} {
		if p := strings.Join(checkDepguard(tc.pkgs, tc.rule), "\n"); !strings.Contains(p, tc.want) {
			t.Errorf("%s: problems %q, want one saying %q", name, p, tc.want)
		}
	}
}

func parseRule(yml string) depguardRule {
	var r depguardRule
	for _, m := range denyLine.FindAllStringSubmatch(yml, -1) {
		r.denied = append(r.denied, m[1])
	}
	for _, m := range exemptLine.FindAllStringSubmatch(yml, -1) {
		r.exempt = append(r.exempt, m[1])
	}
	return r
}

func checkDepguard(pkgs []pkg, r depguardRule) []string {
	var problems []string
	helpers := map[string]bool{}
	for _, p := range pkgs {
		if !p.helper {
			continue
		}
		helpers[p.path] = true
		dir := strings.TrimPrefix(p.path, module+"/")
		if !slices.Contains(r.denied, p.path) {
			problems = append(problems, fmt.Sprintf(".golangci.yml's depguard rule does not deny %s, a test helper", p.path))
		}
		if !slices.Contains(r.exempt, dir) {
			problems = append(problems, fmt.Sprintf(".golangci.yml's depguard rule does not exempt %s (\"!**/%s/**\"), so it may not use the other helpers", dir, dir))
		}
	}
	for _, d := range r.denied {
		if !helpers[d] {
			problems = append(problems, fmt.Sprintf(".golangci.yml denies %s: no such test helper any more", d))
		}
	}
	for _, p := range pkgs {
		if p.helper {
			continue
		}
		for imp, file := range p.imports {
			if helpers[imp] {
				problems = append(problems, fmt.Sprintf("%s imports the test helper %s into production code", file, imp))
			}
		}
	}
	return problems
}

// modulePackages reads every package of the module under root (not the
// tools modules, the web app or generated data).
func modulePackages(root string) ([]pkg, error) {
	byDir := map[string]*pkg{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "tools" || rel == "frontend" || rel == "bin" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		p := byDir[dir]
		if p == nil {
			name := filepath.Base(dir)
			p = &pkg{path: module + "/" + dir, imports: map[string]string{},
				helper: strings.HasSuffix(name, "test") || strings.HasPrefix(name, "fake")}
			byDir[dir] = p
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, is := range f.Imports {
			imp, _ := strconv.Unquote(is.Path.Value)
			if imp == "testing" {
				p.helper = true
			}
			if _, seen := p.imports[imp]; !seen {
				p.imports[imp] = rel
			}
		}
		return nil
	})
	var out []pkg
	for _, p := range byDir {
		out = append(out, *p)
	}
	return out, err
}
