package auth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlStatement finds a statement in a string literal: a keyword that opens
// one, in the upper case the package writes SQL in (so "Update your
// password" is prose).
var sqlStatement = regexp.MustCompile(`\b(SELECT|INSERT INTO|UPDATE \S+ SET|DELETE FROM|WITH \w+ AS \(|LOCK TABLE)\b`)

// TestSQLLivesInStoreFiles: the package's SQL is in store.go and the
// *_store.go files, as store.go's comment says, so a reader finds every
// statement there and handlers read as the steps of their flow (issue #27:
// 29 statements had grown outside them).
func TestSQLLivesInStoreFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "store.go" || strings.HasSuffix(name, "_store.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, at := range sqlLiterals(f) {
			t.Errorf("%s: a SQL statement outside the store files; move it into a *_store.go function", fset.Position(at))
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked: is the test running in pkg/auth?", checked)
	}
}

// sqlLiterals returns where f's string literals hold a SQL statement.
func sqlLiterals(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil && sqlStatement.MatchString(s) {
			out = append(out, lit.Pos())
		}
		return true
	})
	return out
}

// The rule finds the statements the package writes and passes its prose.
func TestSQLLiteralsRule(t *testing.T) {
	t.Parallel()
	src := "package p\n" +
		"var a = `SELECT allowed FROM auth.take_rate_limit_token($1)`\n" +
		"var b = \"DELETE FROM auth.rate_limits WHERE bucket = $1\"\n" +
		"var c = `UPDATE auth.users SET email = $2 WHERE id = $1`\n" +
		"var d = \"INSERT INTO auth.sessions (user_id) VALUES ($1)\"\n" +
		"var e = `WITH gone AS (DELETE FROM x RETURNING 1) SELECT count(*) FROM gone`\n" +
		"var f = \"Update your password to continue\"\n" +
		"var g = \"select a role\"\n"
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(sqlLiterals(f)); got != 5 {
		t.Errorf("found %d statements, want 5", got)
	}
}
