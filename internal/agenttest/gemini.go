package agenttest

import (
	"path/filepath"
	"strings"
)

// GeminiSlug is the name Gemini CLI 0.61.0 gives a new project directory
// dir under ~/.gemini/tmp and ~/.gemini/history, and records in
// ~/.gemini/projects.json (docs/RESTORE.md, "Each agent's store"): the
// last element of the path, lower-cased, each character outside [a-z0-9]
// made "-", runs of "-" made one, "-" trimmed at both ends ("project" if
// nothing is left). A slug another directory owns (its .project_root
// names another path) gets "-1", "-2", ... instead.
func GeminiSlug(dir string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(filepath.Base(dir)) {
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return "project"
}
