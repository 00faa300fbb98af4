// Package docs_test checks the documentation against the repository: every
// relative link in README.md and docs/*.md reaches a file (and, with
// #anchor, a heading of it), and the README's two commands are tasks.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pending are documents other branches are writing; a link to one is not
// broken while it is missing. Remove an entry once its file has landed.
var pending = map[string]bool{
	"SECURITY.md": true, "docs/realtime.md": true, "docs/storage.md": true, "docs/scaling.md": true,
}

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+)$`)
	htmlID  = regexp.MustCompile(`<a id="([^"]+)">`)
	// GitHub's heading anchors: lower case, punctuation dropped, spaces
	// become hyphens.
	notSlug = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

func anchors(md string) map[string]bool {
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(md, -1) {
		s := strings.ToLower(strings.TrimSpace(m[1]))
		s = notSlug.ReplaceAllString(s, "")
		out[strings.ReplaceAll(s, " ", "-")] = true
	}
	for _, m := range htmlID.FindAllStringSubmatch(md, -1) {
		out[m[1]] = true
	}
	return out
}

func TestDocLinksResolve(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../README.md")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			full := filepath.Join(filepath.Dir(f), path)
			if path == "" {
				full = f
			}
			abs, _ := filepath.Abs(full)
			rel, _ := filepath.Rel(root, abs)
			body, err := os.ReadFile(full)
			if err != nil {
				if !pending[filepath.ToSlash(rel)] {
					t.Errorf("%s: link %q: %v", f, target, err)
				}
				continue
			}
			if anchor != "" && strings.HasSuffix(full, ".md") && !anchors(string(body))[anchor] {
				t.Errorf("%s: link %q: %s has no heading for #%s", f, target, rel, anchor)
			}
		}
	}
}

// TestReadmeCommandsAreTasks: the two commands the README promises exist.
func TestReadmeCommandsAreTasks(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	taskfile, err := os.ReadFile("../Taskfile.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"run", "test"} {
		if !strings.Contains(string(readme), "go tool task "+task+" ") {
			t.Errorf("README.md no longer shows `go tool task %s`", task)
		}
		if !regexp.MustCompile(`(?m)^  ` + task + `:$`).Match(taskfile) {
			t.Errorf("Taskfile.yml has no task %q, which README.md tells newcomers to run", task)
		}
	}
}

// The anchor rule itself, on headings this repository has.
func TestAnchors(t *testing.T) {
	t.Parallel()
	a := anchors("## Two-factor authentication (TOTP)\n## Moving to hosted Supabase\n<a id=\"auth-v1\"></a>\n")
	for _, want := range []string{"two-factor-authentication-totp", "moving-to-hosted-supabase", "auth-v1"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
}

// TestReadmeMapsEveryDoc: the README's map reaches every document in
// docs/, so a newcomer finds each one click from the front door, and the
// README stays a front door (the detail lives in docs/).
func TestReadmeMapsEveryDoc(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if !strings.Contains(string(readme), "](docs/"+d) {
			t.Errorf("README.md's map does not link docs/%s", d)
		}
	}
	if n := strings.Count(string(readme), "\n"); n > 150 {
		t.Errorf("README.md is %d lines: move the detail into docs/ and link it", n)
	}
}
