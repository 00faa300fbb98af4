package main

import (
	"fmt"
	"slices"
	"strings"
)

// helpFor answers `labelbase help [COMMAND]` and `labelbase COMMAND ...
// -h|--help` from the usage text alone, so help never needs a database or
// a setting. ok is false when args ask for no help.
func helpFor(args []string) (text string, ok bool, err error) {
	var cmd string
	switch {
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		if len(args) == 1 {
			return usage, true, nil
		}
		cmd = args[1]
	case slices.ContainsFunc(args[1:], isHelpFlag):
		cmd = args[0]
	default:
		return "", false, nil
	}
	entries := usageEntries()[cmd]
	if len(entries) == 0 {
		return "", true, usageError{fmt.Sprintf("no help for %q: it is not a command", cmd)}
	}
	return "Usage:\n" + strings.Join(entries, "") + "\nSee `labelbase help` for every command and docs/configuration.md for the settings.\n", true, nil
}

// isHelpFlag is what the flag package also takes for a request for help.
func isHelpFlag(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

// usageEntries splits the usage text into each command's lines: an entry
// starts with "  labelbase NAME" and goes on over the more indented lines
// after it.
func usageEntries() map[string][]string {
	out := map[string][]string{}
	var cur string
	for line := range strings.Lines(usage) {
		if rest, ok := strings.CutPrefix(line, "  labelbase "); ok {
			cur = strings.Fields(rest)[0]
			out[cur] = append(out[cur], line)
			continue
		}
		if cur != "" && strings.HasPrefix(line, "        ") {
			out[cur] = append(out[cur], line)
			continue
		}
		cur = ""
	}
	return out
}
