package agentstore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// GeminiSlug is the name Gemini CLI 0.61.0 gives a new project directory
// dir under ~/.gemini/tmp and ~/.gemini/history, and records in
// ~/.gemini/projects.json (docs/RESTORE.md, "Each agent's store"): the
// last element of the path, lower-cased, each character outside [a-z0-9]
// made "-", runs of "-" made one, "-" trimmed at both ends ("project" if
// nothing is left). A slug another directory owns (its .project_root
// names another path) gets "-1", "-2", ... instead (GeminiProject).
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

// GeminiProjectHash is the projectHash Gemini CLI records for the
// project directory dir: the SHA-256 of its path, in hex.
func GeminiProjectHash(dir string) string {
	h := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(h[:])
}

// GeminiProjects is ~/.gemini/projects.json: each project directory's
// slug, and whatever else the file holds, kept as it is.
type GeminiProjects struct {
	Projects map[string]string
	// others are the file's other top-level keys, written back as read.
	others map[string]json.RawMessage
}

// GeminiProjectsFile is the path of projects.json in the Gemini folder.
func GeminiProjectsFile(geminiDir string) string { return filepath.Join(geminiDir, "projects.json") }

// ReadGeminiProjects reads projects.json (missing: no projects).
func ReadGeminiProjects(geminiDir string) (GeminiProjects, error) {
	b, err := os.ReadFile(GeminiProjectsFile(geminiDir))
	if errors.Is(err, os.ErrNotExist) {
		return GeminiProjects{Projects: map[string]string{}}, nil
	}
	if err != nil {
		return GeminiProjects{Projects: map[string]string{}}, err
	}
	p, err := ParseGeminiProjects(b)
	if err != nil {
		return p, fmt.Errorf("%s: %v", GeminiProjectsFile(geminiDir), err)
	}
	return p, nil
}

// ParseGeminiProjects reads the text of projects.json.
func ParseGeminiProjects(b []byte) (GeminiProjects, error) {
	p := GeminiProjects{Projects: map[string]string{}}
	if err := json.Unmarshal(b, &p.others); err != nil {
		return p, err
	}
	if raw, ok := p.others["projects"]; ok {
		if err := json.Unmarshal(raw, &p.Projects); err != nil {
			return p, fmt.Errorf("projects: %v", err)
		}
		if p.Projects == nil {
			p.Projects = map[string]string{}
		}
	}
	delete(p.others, "projects")
	return p, nil
}

// Encode is projects.json as Gemini CLI writes it (two-space indent),
// with the other keys it held.
func (p GeminiProjects) Encode() []byte {
	all := map[string]any{"projects": p.Projects}
	for k, v := range p.others {
		all[k] = v
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		panic(err) // strings, and values read as JSON
	}
	return b
}

// ValidGeminiSlug reports whether Gemini CLI accepts s as a slug (any
// other value in projects.json makes it reset the whole registry).
func ValidGeminiSlug(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// GeminiMarker is the ownership marker of a slug: tmp/SLUG/.project_root
// and history/SLUG/.project_root hold the project's path.
func GeminiMarkers(geminiDir, slug string) []string {
	return []string{
		filepath.Join(geminiDir, "tmp", slug, ".project_root"),
		filepath.Join(geminiDir, "history", slug, ".project_root"),
	}
}

// GeminiProject returns the slug of the project directory dir: the one
// projects.json records, else a new one (GeminiSlug, then "-1", "-2", ...
// past the slugs another directory has, in projects.json or by a marker),
// with known false.
func GeminiProject(geminiDir string, p GeminiProjects, dir string) (slug string, known bool) {
	if s, ok := p.Projects[dir]; ok && ValidGeminiSlug(s) {
		return s, true
	}
	taken := map[string]bool{}
	for d, s := range p.Projects {
		if d != dir {
			taken[s] = true
		}
	}
	base := GeminiSlug(dir)
	for i := 0; ; i++ {
		slug = base
		if i > 0 {
			slug = base + "-" + strconv.Itoa(i)
		}
		if !taken[slug] && !ownedElsewhere(geminiDir, slug, dir) {
			return slug, false
		}
	}
}

// ownedElsewhere reports whether a marker of slug names another directory.
func ownedElsewhere(geminiDir, slug, dir string) bool {
	for _, m := range GeminiMarkers(geminiDir, slug) {
		if b, err := os.ReadFile(m); err == nil && strings.TrimSpace(string(b)) != dir {
			return true
		}
	}
	return false
}

// GeminiChats is the folder of a project's sessions.
func GeminiChats(geminiDir, slug string) string {
	return filepath.Join(geminiDir, "tmp", slug, "chats")
}

// GeminiSessionName is the file name Gemini CLI gives a session id
// started at t: session-YYYY-MM-DDThh-mm-SHORT.jsonl, SHORT the first 8
// characters of the id. Gemini CLI finds a file's session by SHORT after
// the last "-" (its /-([a-zA-Z0-9]{8})\.jsonl?$/: --delete-session,
// the retention sweep), so the "-" before it matters.
func GeminiSessionName(t time.Time, id string) string {
	return "session-" + t.UTC().Format("2006-01-02T15-04") + "-" + GeminiShortID(id) + ".jsonl"
}

// GeminiShortID is the part of a session id Gemini CLI's file names hold:
// its first 8 characters.
func GeminiShortID(id string) string { return id[:min(8, len(id))] }

// Gemini CLI 0.61.0 deletes old sessions at every start, before anything
// else (its cleanupExpiredSessions): general.sessionRetention in
// settings.json is on by default with maxAge "30d" (and no maxCount), and
// a session of the project whose lastUpdated is older than maxAge is
// deleted, with its other files. lastUpdated is the metadata's, as the
// {"$set": {"lastUpdated": ...}} records after it change it (a .json
// session: its top-level key). A file it cannot read as a session is
// deleted too. ctx restore stamps what it writes with the time of the
// restore (GeminiTouch), so a session restored is kept for maxAge from
// then, as one Gemini CLI itself had just written.
const GeminiRetentionDays = 30

// GeminiTouch is the record Gemini CLI appends when a session is used:
// {"$set":{"lastUpdated":T}} and a newline, T as it writes times.
func GeminiTouch(t time.Time) []byte {
	return []byte(`{"$set":{"lastUpdated":"` + t.UTC().Format("2006-01-02T15:04:05.000Z") + `"}}` + "\n")
}

// IsGeminiTouch reports whether line (without its newline) is a record
// that only says when the session was last used: {"$set":
// {"lastUpdated": STRING}}, nothing else.
func IsGeminiTouch(line []byte) bool {
	var rec map[string]map[string]json.RawMessage
	if json.Unmarshal(line, &rec) != nil || len(rec) != 1 {
		return false
	}
	set, ok := rec["$set"]
	if !ok || len(set) != 1 {
		return false
	}
	var s string
	return json.Unmarshal(set["lastUpdated"], &s) == nil
}

// GeminiMeta is what ctx reads of a session's metadata (the first line of
// a .jsonl session, the top of a .json one).
type GeminiMeta struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	Kind        string `json:"kind"`
}

// ReadGeminiMeta reads the metadata of the session file at path.
func ReadGeminiMeta(path string) (GeminiMeta, error) {
	var m GeminiMeta
	if strings.HasSuffix(path, ".jsonl") {
		line, err := FirstLine(path)
		if err != nil {
			return m, err
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return m, fmt.Errorf("%s: the first line is not the session's metadata: %v", path, err)
		}
		return m, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	if m, err = ParseGeminiMetaDoc(f); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// ParseGeminiMetaDoc reads the metadata at the top of a .json session
// (one document): its keys are read in order and the messages skipped,
// not held.
func ParseGeminiMetaDoc(r io.Reader) (GeminiMeta, error) {
	var m GeminiMeta
	dec := json.NewDecoder(io.LimitReader(r, 1<<30))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return m, errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return m, err
		}
		key, _ := t.(string)
		v, err := dec.Token()
		if err != nil {
			return m, err
		}
		if _, ok := v.(json.Delim); ok {
			// An object or array (the messages): skipped a token at a
			// time, never held.
			if err := skip(dec); err != nil {
				return m, err
			}
			continue
		}
		s, _ := v.(string)
		switch key {
		case "sessionId":
			m.SessionID = s
		case "projectHash":
			m.ProjectHash = s
		case "startTime":
			m.StartTime = s
		case "kind":
			m.Kind = s
		}
	}
	return m, nil
}

// skip reads the rest of the object or array just opened.
func skip(dec *json.Decoder) error {
	depth := 1
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// geminiSessions lists the sessions of the project folders slugs under
// tmp/ (nil: every folder). A session written to several files (Gemini CLI
// writes a resumed session to a new one) is its newest.
func geminiSessions(geminiDir string, slugs []string, cwds map[string]string) ([]Session, error) {
	if !isDir(filepath.Join(geminiDir, "tmp")) {
		return nil, os.ErrNotExist
	}
	if slugs == nil {
		ents, err := os.ReadDir(filepath.Join(geminiDir, "tmp"))
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.IsDir() {
				slugs = append(slugs, e.Name())
			}
		}
	}
	type found struct {
		s     Session
		mtime time.Time
	}
	byID := map[string]found{}
	for _, slug := range slugs {
		chats := GeminiChats(geminiDir, slug)
		ents, err := os.ReadDir(chats)
		if err != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if !e.Type().IsRegular() || !strings.HasPrefix(n, "session-") || !(strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".json")) {
				continue
			}
			meta, err := ReadGeminiMeta(filepath.Join(chats, n))
			if err != nil || meta.SessionID == "" || meta.Kind == "subagent" {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			if old, ok := byID[meta.SessionID]; ok && !fi.ModTime().After(old.mtime) {
				continue
			}
			byID[meta.SessionID] = found{Session{Agent: Gemini, ID: meta.SessionID, Root: chats, Files: []string{n}, Cwd: cwds[slug]}, fi.ModTime()}
		}
	}
	var out []Session
	for _, f := range byID {
		out = append(out, f.s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
