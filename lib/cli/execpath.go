package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// LookupDirs returns the directories searched for ctx-* programs, in order:
// each entry of $CTX_EXEC_PATH, the directory of the running executable
// (symlinks resolved), then each entry of $PATH. Empty entries and repeats are
// dropped. The dispatcher and replay's tool executors share it, so `ctx foo`
// and a ctx-tool-foo executor are found the same way.
func LookupDirs() []string {
	var dirs []string
	seen := map[string]bool{}
	add := func(d string) {
		if d == "" {
			return
		}
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range filepath.SplitList(os.Getenv("CTX_EXEC_PATH")) {
		add(d)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		add(filepath.Dir(exe))
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		add(d)
	}
	return dirs
}

// LookupProgram finds the first executable file called name in dirs. It
// refuses names with a path separator, so a verb or tool name taken from the
// command line or a pack can never point at an arbitrary file.
func LookupProgram(name string, dirs []string) (string, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", false
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}
