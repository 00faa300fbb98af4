#!/bin/sh
# heartbeat.sh LABEL COMMAND [ARG...]
#
# Runs COMMAND with its output in a log and, while it runs, prints one line
# at most every 5 seconds: how long it has run and its latest output line
# (with `go build -v` the package being compiled, with npm's http log level
# the package being fetched). A first build on an empty cache compiles or
# downloads for minutes; without this the console says nothing for that long
# and looks hung. On success it prints a one-line summary; on failure the
# whole log, so nothing is lost. The exit status is COMMAND's.
set -u
label=$1
shift
log=$(mktemp "${TMPDIR:-/tmp}/labelbase-heartbeat.XXXXXX")
trap 'rm -f "$log"' EXIT
# Ctrl-C reaches COMMAND (same process group); stop waiting with it.
trap 'exit 130' INT TERM

start=$(date +%s)
"$@" >"$log" 2>&1 &
pid=$!
last=""
while kill -0 "$pid" 2>/dev/null; do
	i=0
	while [ $i -lt 5 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	kill -0 "$pid" 2>/dev/null || break
	now=$(tail -n 1 "$log" | cut -c1-110)
	if [ "$now" = "$last" ]; then
		echo "$label: $(($(date +%s) - start))s, still working"
	else
		echo "$label: $(($(date +%s) - start))s, $(wc -l <"$log" | tr -d ' ') lines so far; latest: $now"
		last=$now
	fi
done
wait "$pid"
rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$log" >&2
	echo "$label: failed after $(($(date +%s) - start))s (exit $rc)" >&2
	exit "$rc"
fi
echo "$label: done in $(($(date +%s) - start))s"
