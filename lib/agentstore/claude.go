package agentstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// claudeFolderMax is the longest project folder name Claude Code uses
// whole; a longer one is cut there and given a hash suffix.
const claudeFolderMax = 200

// ClaudeProjectFolder is the name of the folder under
// $CLAUDE_CONFIG_DIR/projects where Claude Code 2.1.328 keeps the sessions
// of the working directory dir (docs/RESTORE.md, "Each agent's store"):
// every UTF-16 code unit of dir outside [A-Za-z0-9] becomes "-" (so a
// character outside the BMP becomes "--"); a name longer than 200 units is
// cut to 200 and followed by "-" and the base-36 absolute value of the
// Java-style 32-bit hash of dir (h = 31*h + unit, over the UTF-16 units).
// ClaudeFolder adds the variable that replaces the rule and the folder
// that already exists.
func ClaudeProjectFolder(dir string) string {
	units := utf16.Encode([]rune(dir))
	name := make([]byte, len(units))
	for i, u := range units {
		if u < 128 && isAlnum(byte(u)) {
			name[i] = byte(u)
		} else {
			name[i] = '-'
		}
	}
	if len(name) <= claudeFolderMax {
		return string(name)
	}
	var h int32
	for _, u := range units {
		h = h*31 + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:claudeFolderMax]) + "-" + strconv.FormatInt(abs, 36)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ClaudeFolder is the project folder, under projects/ of the store
// claudeDir, of the working directory dir, as Claude Code finds it:
// $CLAUDE_CODE_PROJECT_DIR_NAME when $CLAUDE_CONFIG_DIR is set and the
// name is 1 to 64 of [A-Za-z0-9_-]; else, for a name the rule cuts, a
// folder that exists with the same first 200 characters and another hash
// suffix (Claude Code's lookup accepts it); else the rule's name.
func ClaudeFolder(env Getenv, claudeDir, dir string) string {
	if env(ClaudeConfigEnv) != "" {
		if n := env(ClaudeProjectNameEnv); validProjectName(n) {
			return n
		}
	}
	name := ClaudeProjectFolder(dir)
	if len(name) <= claudeFolderMax {
		return name
	}
	if isDir(filepath.Join(claudeDir, "projects", name)) {
		return name
	}
	ents, _ := os.ReadDir(filepath.Join(claudeDir, "projects"))
	prefix := name[:claudeFolderMax+1]
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			return e.Name()
		}
	}
	return name
}

// validProjectName is the form CLAUDE_CODE_PROJECT_DIR_NAME must have to
// be used.
func validProjectName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; !isAlnum(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// claudeSessions lists the sessions of one project folder: each
// SESSION.jsonl (the old sub-agent files agent-*.jsonl beside them are
// not sessions) with every regular file under SESSION/ (its sub-agents'
// transcripts and their .meta.json).
func claudeSessions(folder string) ([]Session, error) {
	ents, err := os.ReadDir(folder)
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(n, ".jsonl") || strings.HasPrefix(n, "agent-") {
			continue
		}
		id := strings.TrimSuffix(n, ".jsonl")
		s := Session{Agent: ClaudeCode, ID: id, Root: folder, Files: []string{n}}
		s.Files = append(s.Files, filesUnder(folder, id)...)
		out = append(out, s)
	}
	return out, nil
}

// maxSessionFiles bounds the files one session's folder may add.
const maxSessionFiles = 10_000

// filesUnder lists the regular files under root/rel, slash-separated and
// relative to root, in lexical order; links are not followed.
func filesUnder(root, rel string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(root, rel), func(p string, d os.DirEntry, err error) error {
		if err != nil || len(out) >= maxSessionFiles {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	return out
}
