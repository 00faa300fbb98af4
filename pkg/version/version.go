// Package version says which build is running, from what the Go toolchain
// stamps into every binary (module version, VCS revision and time), so no
// release step has to remember -ldflags. `labelbase version` prints it and
// the metrics export it as labelbase_build_info.
package version

import (
	"fmt"
	"runtime/debug"
)

// Info describes the running binary.
type Info struct {
	// Version is the main module's version: a tag, a pseudo-version, or
	// "(devel)" for a build from a checkout.
	Version string
	// Revision is the VCS commit ("unknown" when the build had no VCS
	// information, e.g. -buildvcs=false); Modified says the tree had
	// uncommitted changes.
	Revision string
	Time     string
	Modified bool
	// GoVersion is the toolchain that built it.
	GoVersion string
}

// Get reads the binary's build information.
func Get() Info {
	info := Info{Version: "unknown", Revision: "unknown", Time: "unknown", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	if bi.Main.Version != "" {
		info.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the one-line form `labelbase version` prints.
func (i Info) String() string {
	dirty := ""
	if i.Modified {
		dirty = " (modified)"
	}
	return fmt.Sprintf("labelbase %s, revision %s%s, built %s with %s", i.Version, i.Revision, dirty, i.Time, i.GoVersion)
}
