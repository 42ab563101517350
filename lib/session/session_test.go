package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// corpus is a file of the corpus the real agents made.
func corpus(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func envOf(home string) agentstore.Getenv {
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

const (
	claudeID   = "e6aab877-4103-471e-ac8a-9b0b75066ef0"
	claudeDir  = "claude-code-jsonl/modelstub-runs/"
	corpusCwd  = "/tmp/ctx-corpus/demo_project.v1"
	subagent   = claudeID + "/subagents/agent-afcd148203892e95a.jsonl"
	codexID    = "01a22217-10c2-7c91-aaf1-4dd0fbb90fcb"
	codexName  = "rollout-2026-11-28T12-17-46-" + codexID + ".jsonl"
	codexFile  = "codex-rollout/modelstub-runs/codex-0.169.0__" + codexName
	geminiFile = "gemini-cli/modelstub-runs/gemini-cli-0.61.0__session-2026-11-28T12-17-43abe552.jsonl"
)

// home lays out a home with the corpus sessions of the three agents.
func home(t *testing.T) string {
	t.Helper()
	h := t.TempDir()
	folder := filepath.Join(h, ".claude", "projects", agentstore.ClaudeProjectFolder(corpusCwd))
	writeFile(t, filepath.Join(folder, claudeID+".jsonl"), corpus(t, claudeDir+claudeID+".jsonl"))
	writeFile(t, filepath.Join(folder, subagent), corpus(t, claudeDir+subagent))
	writeFile(t, filepath.Join(h, ".codex", "sessions", "2026", "11", "28", codexName), corpus(t, codexFile))
	writeFile(t, filepath.Join(h, ".gemini", "tmp", "demo-project-v1", "chats", "session-2026-11-28T12-17-43abe552.jsonl"), corpus(t, geminiFile))
	return h
}

// TestCaptureRestore captures the three agents' sessions, captures again
// (nothing), and restores each exactly into another home: the bytes are
// the recorded ones but for the working directory.
func TestCaptureRestore(t *testing.T) {
	st := storetest.New(t)
	src := home(t)
	rep, err := Capture(st, CaptureOptions{Env: envOf(src)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Captured) != 3 || rep.Sessions != 3 || len(rep.Failed) != 0 {
		t.Fatalf("Capture: %+v, want the 3 sessions", rep)
	}
	files := map[string]int{}
	for _, c := range rep.Captured {
		files[c.Tag] = c.Files
		if c.Status != "new" || c.Parent != nil || c.Steps == 0 {
			t.Errorf("captured %+v, want a new pack with steps", c)
		}
	}
	if files["claude-code."+claudeID] != 2 || files["codex."+codexID] != 1 {
		t.Errorf("files per session: %v", files)
	}
	again, err := Capture(st, CaptureOptions{Env: envOf(src)})
	if err != nil || len(again.Captured) != 0 || again.Unchanged != 3 {
		t.Fatalf("a second Capture: %+v, %v; want 3 unchanged", again, err)
	}

	dst, cwd := t.TempDir(), filepath.Join(t.TempDir(), "new_place.v2")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tag, orig, old, new string }{
		{"claude-code." + claudeID, claudeDir + claudeID + ".jsonl", `"cwd":"` + corpusCwd + `"`, `"cwd":"` + cwd + `"`},
		{"codex." + codexID, codexFile, corpusCwd, cwd},
		{"gemini.43abe552-f689-4897-b26e-875e82c1ecd5", geminiFile, agentstore.GeminiProjectHash(corpusCwd), agentstore.GeminiProjectHash(cwd)},
	} {
		h, err := st.ReadRef(c.tag)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Restore(st, h, RestoreOptions{Cwd: cwd, Env: envOf(dst)})
		if err != nil {
			t.Fatalf("Restore %s: %v", c.tag, err)
		}
		if res.Mode != "exact" || res.Status != Written || !strings.HasPrefix(res.File, dst) {
			t.Errorf("Restore %s: %+v", c.tag, res)
		}
		got, err := os.ReadFile(res.File)
		if err != nil {
			t.Fatal(err)
		}
		if back := bytes.ReplaceAll(got, []byte(c.new), []byte(c.old)); !bytes.Equal(back, corpus(t, c.orig)) {
			t.Errorf("%s restored: not the recorded bytes with only %q made %q", c.tag, c.old, c.new)
		}
		if !bytes.Contains(got, []byte(c.new)) {
			t.Errorf("%s restored: %q is nowhere", c.tag, c.new)
		}
		res, err = Restore(st, h, RestoreOptions{Cwd: cwd, Env: envOf(dst)})
		if err != nil || res.Status != Unchanged {
			t.Errorf("Restore %s again: %+v, %v; want unchanged", c.tag, res, err)
		}
	}
}

// TestCaptureGrown: a session that grew is a child of its last capture;
// a line still being written is not taken; a session that cannot be
// converted keeps its files.
func TestCaptureGrown(t *testing.T) {
	st := storetest.New(t)
	h := t.TempDir()
	p := filepath.Join(h, ".claude", "projects", "-w", "s-1.jsonl")
	line := func(uuid, text string) string {
		return `{"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `","timestamp":"2026-05-01T10:00:00.000Z","sessionId":"s-1","cwd":"/w"}` + "\n"
	}
	writeFile(t, p, []byte(line("u1", "one")))
	first, err := Capture(st, CaptureOptions{Env: envOf(h)})
	if err != nil || len(first.Captured) != 1 {
		t.Fatalf("Capture: %+v %v", first, err)
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line("u2", "two")[:40])
	if rep, _ := Capture(st, CaptureOptions{Env: envOf(h)}); len(rep.Captured) != 0 {
		t.Errorf("a half-written line was captured: %+v", rep)
	}
	f.WriteString(line("u2", "two")[40:])
	f.Close()
	grown, err := Capture(st, CaptureOptions{Env: envOf(h)})
	if err != nil || len(grown.Captured) != 1 || grown.Captured[0].Status != "grown" || *grown.Captured[0].Parent != first.Captured[0].Pack {
		t.Fatalf("Capture of the grown session: %+v %v", grown, err)
	}
	m, err := pack.Resolve(st, "claude-code.s-1")
	if err != nil || m.Parent == nil || m.Parent.URI() != first.Captured[0].Pack || len(m.Prompts) != 2 {
		t.Errorf("the tag names %v (parent %v), want the grown pack, child of the first", m, m.Parent)
	}

	writeFile(t, filepath.Join(h, ".claude", "projects", "-w", "bad.jsonl"), []byte("{\"type\":\"user\",\"message\":17}\n"))
	var warned []string
	rep, err := Capture(st, CaptureOptions{Env: envOf(h), Warn: func(s string) { warned = append(warned, s) }})
	if err != nil || len(rep.Captured) != 1 || rep.Captured[0].Steps != 0 {
		t.Fatalf("Capture of a session the converter refuses: %+v %v", rep, err)
	}
	m, err = pack.Resolve(st, "claude-code.bad")
	if err != nil || len(m.Inputs) != 1 || !strings.Contains(string(m.Metadata), "capture_error") {
		t.Errorf("the pack of an unconvertible session: %+v %v", m, err)
	}
	if len(warned) == 0 || !strings.Contains(strings.Join(warned, "\n"), "its files are kept") {
		t.Errorf("no warning of the session kept without steps: %q", warned)
	}
}

func TestFilesRefusesUnsafeNames(t *testing.T) {
	md := func(agent, id string, main bool) json.RawMessage {
		b, _ := json.Marshal(map[string]any{metaKey: fileMeta{Agent: agent, ID: id, Main: main}})
		return b
	}
	m := &pack.Manifest{Inputs: []pack.File{
		{Name: FilePrefix + "claude-code/../../etc/passwd", Metadata: md("claude-code", "s", false)},
		{Name: FilePrefix + "claude-code//abs", Metadata: md("claude-code", "s", false)},
		{Name: FilePrefix + "codex/s.jsonl", Metadata: md("claude-code", "s", false)},
		{Name: FilePrefix + "claude-code/s/b.jsonl", Metadata: md("claude-code", "s", false)},
		{Name: FilePrefix + "claude-code/s.jsonl", Metadata: md("claude-code", "s", true)},
		{Name: FilePrefix + "claude-code/s/a.jsonl", Metadata: md("claude-code", "s", false)},
		{Name: FilePrefix + "claude-code/t.jsonl", Metadata: md("claude-code", "t", false)},
		{Name: "src/main.go"},
	}}
	agent, id, files, ok := Files(m)
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	if !ok || agent != "claude-code" || id != "s" || strings.Join(rels, " ") != "s.jsonl s/a.jsonl s/b.jsonl" {
		t.Errorf("Files = %s %s %q %v", agent, id, rels, ok)
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, []byte(text))
		return p
	}
	big := strings.Repeat("x", 100<<10)
	for _, c := range []struct {
		old, cur, want string
	}{
		{"abc", "abc", Unchanged},
		{big, big, Unchanged},
		{"ab", "abc", Updated},
		{big, big + "y", Updated},
		{"", "abc", Updated},
		{"abc", "ab", ""},
		{big + "y", big, ""},
		{"abd", "abc", ""},
		{big + "a" + big, big + "b" + big, ""},
	} {
		got, err := compare(write("cur", c.cur), write("old", c.old))
		var ce *ConflictError
		if got != c.want || (c.want == "") != errors.As(err, &ce) {
			t.Errorf("compare(%d bytes over %d) = %q, %v; want %q", len(c.cur), len(c.old), got, err, c.want)
		}
	}
	if got, err := compare(write("cur", "x"), filepath.Join(dir, "absent")); got != Written || err != nil {
		t.Errorf("compare over nothing = %q, %v", got, err)
	}
}

func TestCaptureCacheDamagedIsEmpty(t *testing.T) {
	st := storetest.New(t)
	a, b := store.Sum([]byte("a")), store.Sum([]byte("b"))
	c := loadCaptureCache(st)
	c.put(a, b)
	c.save(st)
	if d, ok := loadCaptureCache(st).get(a); !ok || d != b {
		t.Fatalf("the cache did not keep its entry")
	}
	if err := st.WriteCache(captureCacheName, []byte(captureCacheHeader+a.Hex()+" zz\n")); err != nil {
		t.Fatal(err)
	}
	if _, ok := loadCaptureCache(st).get(a); ok {
		t.Error("a damaged cache answered")
	}
}
