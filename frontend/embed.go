// Package frontend embeds the built web app so the labelbase binary serves
// it with no files beside it.
//
// Vite builds into dist/. Until it has run (a fresh clone, or `go test`
// without a frontend build) dist/ does not exist and the binary serves
// dist-fallback/, a page that says how to build the app. The one pattern
// below matches both, because go:embed refuses a pattern with no match.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist*
var files embed.FS

// Files returns the built app, or the fallback page when it was not built.
// Built reports which.
func Files() (app fs.FS, built bool) {
	if sub, err := fs.Sub(files, "dist"); err == nil {
		if _, err := fs.Stat(sub, "index.html"); err == nil {
			return sub, true
		}
	}
	sub, err := fs.Sub(files, "dist-fallback")
	if err != nil {
		panic(err)
	}
	return sub, false
}
