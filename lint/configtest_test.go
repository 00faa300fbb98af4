package lint_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoHandBuiltTestConfigurations: tests start from configtest.New (a
// configuration Load returns) rather than a config.Config literal, which
// leaves every other setting at Go's zero value and misses each setting
// added later (issue #27: 32 tests built theirs by hand).
func TestNoHandBuiltTestConfigurations(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "frontend" || d.Name() == "tools" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, at := range configLiterals(f) {
			t.Errorf("%s: a hand-built config.Config; use configtest.New(t, env)", fset.Position(at))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// configLiterals returns where f writes a config.Config{…} literal.
func configLiterals(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.CompositeLit); ok {
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Config" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "config" {
					out = append(out, lit.Pos())
				}
			}
		}
		return true
	})
	return out
}

func TestConfigLiteralsRule(t *testing.T) {
	t.Parallel()
	src := "package p\nvar a = &config.Config{JWTSecret: \"x\"}\nvar b = config.Config{}\nvar c = other.Config{}\nvar d = configtest.New(nil, nil)\n"
	f, err := parser.ParseFile(token.NewFileSet(), "p_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(configLiterals(f)); got != 2 {
		t.Errorf("found %d literals, want 2", got)
	}
}
