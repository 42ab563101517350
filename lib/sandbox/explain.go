package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Explain says what the sandbox may have done to a program, from what the
// program printed (output: the start and end of its output, and the
// reason it failed), each with the flag that opens or raises it: a file
// or a Unix socket it refused (named when the line names it and the path
// lies outside what the sandbox opens), the network it closed, a bound on
// memory or processes that a program reached. refusedForks is what
// Finish counted: processes the cgroup did not let start, known for
// certain. Explain returns "" when nothing points at the sandbox.
//
// Neither Landlock nor a seccomp filter tells the program that refused
// it: the sandbox can only read the error a program printed, so every
// sentence but the cgroup's says "may have" unless a refused path is
// named.
func (s *Sandbox) Explain(output string, refusedForks int) string {
	notes := map[string]string{}
	if refusedForks > 0 {
		notes["procs"] = fmt.Sprintf("the sandbox refused %d new process%s: the step reached its bound of %d processes (--max-procs raises it)",
			refusedForks, map[bool]string{true: "", false: "es"}[refusedForks == 1], s.policy.MaxProcs)
	}
	set := func(kind, note string) {
		if _, ok := notes[kind]; !ok {
			notes[kind] = note
		}
	}
	for _, line := range strings.Split(output, "\n") {
		low := strings.ToLower(line)
		switch {
		case has(low, "permission denied", "operation not permitted", "eacces", "eperm"):
			note, named := s.refusedPath(line)
			switch {
			case note != "":
				set("path", note)
				continue
			case named:
				continue // a path the sandbox opens: the file's own permissions
			}
			if has(low, "connect", "socket", "tcp", "udp") {
				net := ""
				if !s.policy.AllowNet {
					net = ", and the network (--allow-net opens it)"
				}
				set("connect", fmt.Sprintf("the sandbox may have refused a connection (%q): it closes the host's Unix sockets%s", clip(line), net))
				continue
			}
			sockets := ""
			if s.seccomp {
				sockets = ", and no Unix socket can be made"
			}
			set("denied", fmt.Sprintf("the sandbox may have refused an access (%q): only the workspace, the system directories and PATH are open%s (--no-sandbox runs without the sandbox)", clip(line), sockets))
		case !s.policy.AllowNet && has(low, "network is unreachable", "could not resolve", "temporary failure in name resolution",
			"no such host", "name or service not known", "nodename nor servname"):
			set("net", fmt.Sprintf("the sandbox has no network (%q; --allow-net opens it)", clip(line)))
		case s.policy.MaxMemory > 0 && has(low, "cannot allocate memory", "out of memory", "memoryerror", "bad_alloc", "memory exhausted",
			"segmentation fault", "segmentation violation"):
			set("memory", fmt.Sprintf("a program may have reached the sandbox's bound of %d MiB of memory per process (%q; --max-memory raises it)", s.policy.MaxMemory>>20, clip(line)))
		case s.policy.MaxProcs > 0 && has(low, "resource temporarily unavailable", "cannot fork", "can't fork", "fork: retry",
			"failed to create new os thread", "pthread_create"):
			set("procs", fmt.Sprintf("the step may have reached the sandbox's bound of %d processes (%q; --max-procs raises it)", s.policy.MaxProcs, clip(line)))
		}
	}
	var out []string
	for _, k := range []string{"path", "connect", "denied", "net", "memory", "procs"} {
		if n, ok := notes[k]; ok && !(k == "denied" && notes["path"] != "") {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// absPath finds the absolute paths in a line of a program's error.
func absPath() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s'\"`(=\\[:])(/[^\\s'\"`:,;()\\[\\]]*)")
}

// refusedPath is the note of the first path in line that the sandbox
// closes and that exists (or whose directory does: a file it would have
// made), or "". named says whether the line names a path the sandbox
// opens that exists: then the refusal was that file's own.
func (s *Sandbox) refusedPath(line string) (note string, named bool) {
	for _, m := range absPath().FindAllStringSubmatch(line, -1) {
		p := strings.TrimRight(filepath.Clean(m[1]), ".")
		if p == "" || p == "/" {
			continue
		}
		fi, err := os.Lstat(p)
		switch {
		case err == nil && s.opens(p):
			named = true
			continue
		case err != nil:
			if _, derr := os.Stat(filepath.Dir(p)); derr != nil || s.opens(filepath.Dir(p)) {
				continue
			}
		}
		if err == nil && fi.Mode().Type() == fs.ModeSocket {
			return fmt.Sprintf("the sandbox refused the Unix socket %s: the host's Unix sockets are closed to sandboxed programs (--no-sandbox runs without the sandbox)", p), named
		}
		return fmt.Sprintf("the sandbox refused %s: only the workspace, the system directories and PATH are open (--no-sandbox runs without the sandbox)", p), named
	}
	return "", named
}

// opens says whether the sandbox lets programs reach path (by its name,
// and by the file its symlinks lead to, which is what Landlock checks).
func (s *Sandbox) opens(path string) bool {
	rw, ro := s.openDirs()
	within := func(p string) bool {
		for _, d := range append(rw, ro...) {
			if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
				return true
			}
		}
		for _, f := range append(readFiles(), writeFiles()...) {
			if p == f {
				return true
			}
		}
		return false
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return within(real)
	}
	return within(path)
}

// has says whether s holds any of the words.
func has(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// clip shortens a line of output for a note.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= 120 {
		return s
	}
	return string([]rune(s)[:119]) + "…"
}
