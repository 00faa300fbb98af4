#!/bin/sh
# godeps.sh: download and compile every package the labelbase binary
# imports, except the web app's package (it embeds frontend/dist, which the
# web build is still making) and the packages that import it. `go tool task
# build` runs it beside the web app's npm install and build, which mostly
# wait on the network and on node, so that the final `go build` has only
# those few packages left to compile. Everything compiled here lands in the
# build cache under the flags `build` uses.
set -eu
web=github.com/labelbase/labelbase/frontend
# -e: the web package's go:embed fails to load before the web build; the
# list is complete all the same. Standard packages are included too.
pkgs=$(go list -e -deps -f '{{.ImportPath}} {{join .Deps " "}}' ./cmd/labelbase |
	awk -v web="$web" '{ for (i = 1; i <= NF; i++) if ($i == web) next; print $1 }')
# shellcheck disable=SC2086 # one argument per package
exec go build -v $pkgs
