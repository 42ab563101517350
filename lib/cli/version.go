package cli

import "runtime/debug"

// version is set at link time (`-ldflags "-X
// github.com/contextsubstrate/ctx/lib/cli.version=v1.2.3"`). It is the one
// package-level variable of the project: the linker can only set variables.
var version string

// Version returns the version of ctx: the link-time value, else the module
// version from the build info, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
