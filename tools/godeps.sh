#!/bin/sh
# godeps.sh: download and compile every package the labelbase binary
# imports, except the project's own. `go tool task build` runs it beside
# the web app's npm install, which mostly waits on the network, so that the
# final `go build` compiles only the project's packages. Every package it
# compiles lands in the build cache under the same flags `build` uses.
set -eu
# -e: frontend's go:embed of dist/ fails to load before the web build;
# its own dependencies are still listed.
# Standard packages too: those only the project imports (net/http/pprof)
# would otherwise wait for the final build.
pkgs=$(go list -e -deps -f '{{if or .Standard (ne .Module.Path "github.com/labelbase/labelbase")}}{{.ImportPath}}{{end}}' ./cmd/labelbase)
# shellcheck disable=SC2086 # one argument per package
exec go build -v $pkgs
