package convert

import (
	"path"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// workdir rewrites absolute paths under a run's working directory as
// relative ones, so two runs of one task made in different temporary
// directories compare equal and no manifest carries a machine's paths.
// Transcripts record POSIX paths (agents run in Unix sandboxes), so the
// rules are POSIX ones whatever the converting machine.
type workdir struct{ dir string }

func newWorkdir(dir string) workdir {
	if dir == "" {
		return workdir{}
	}
	d := path.Clean(dir)
	if !strings.HasPrefix(d, "/") || d == "/" {
		// A relative or root directory says nothing that could be removed.
		return workdir{}
	}
	return workdir{dir: d}
}

// pathByte reports whether c can be part of a path word; a match of the
// working directory must not be preceded or followed by one, so /tmp/ab is
// not taken for /tmp/a.
func pathByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("._-~/+%@", c) >= 0
}

// text rewrites s. A value that is a path under the directory becomes that
// path relative to it ("/tmp/x/a.go" is "a.go", "/tmp/x" is "."); inside
// longer text such as a shell command an occurrence becomes "./a.go" or
// ".", which a shell run in the working directory reads the same way.
func (w workdir) text(s string) string {
	if w.dir == "" || !strings.Contains(s, w.dir) {
		return s
	}
	if s == w.dir {
		return "."
	}
	if rest, ok := strings.CutPrefix(s, w.dir+"/"); ok && !strings.ContainsAny(rest, " \t\r\n") {
		if rest == "" {
			return "."
		}
		return path.Clean(rest)
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], w.dir)
		if j < 0 {
			break
		}
		j += i
		end := j + len(w.dir)
		if j > 0 && pathByte(s[j-1]) {
			b.WriteString(s[i:end])
			i = end
			continue
		}
		switch {
		case end < len(s) && s[end] == '/':
			b.WriteString(s[i:j])
			b.WriteString("./")
			i = end + 1
		case end == len(s) || !pathByte(s[end]):
			b.WriteString(s[i:j])
			b.WriteString(".")
			i = end
		default:
			b.WriteString(s[i:end])
			i = end
		}
	}
	b.WriteString(s[i:])
	return b.String()
}

// name returns the name a file path takes in a pack: relative to the
// working directory, cleaned, and safe by pack.CheckName. A path outside
// the working directory (or any absolute path when the transcript does not
// say where the run worked) has no name: it stays in the step's parameters
// as written and never becomes an input or output.
func (w workdir) name(p string) (string, bool) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", false
	}
	if strings.HasPrefix(p, "/") {
		if w.dir == "" {
			return "", false
		}
		rest, ok := strings.CutPrefix(path.Clean(p), w.dir+"/")
		if !ok {
			return "", false
		}
		p = rest
	}
	n := path.Clean(p)
	if pack.CheckName(n) != nil {
		return "", false
	}
	return n, true
}
