package session

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		if strings.HasPrefix(c.tag, "gemini.") {
			// Gemini CLI's: stamped as used at the time of the restore.
			body, last := bytes.TrimSuffix(got, []byte("\n")), []byte(nil)
			if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
				got, last = got[:i+1], body[i+1:]
			}
			if !agentstore.IsGeminiTouch(last) {
				t.Errorf("%s restored: its last line %s does not stamp it as used", c.tag, last)
			}
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

// writerIn writes files of text into dir, and returns their paths.
func writerIn(t *testing.T, dir string) func(name, text string) string {
	return func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, []byte(text))
		return p
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
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
		got, err := compare(write("cur", c.cur), write("old", c.old), nil)
		var ce *ConflictError
		if got != c.want || (c.want == "") != errors.As(err, &ce) {
			t.Errorf("compare(%d bytes over %d) = %q, %v; want %q", len(c.cur), len(c.old), got, err, c.want)
		}
	}
	if got, err := compare(write("cur", "x"), filepath.Join(dir, "absent"), nil); got != Written || err != nil {
		t.Errorf("compare over nothing = %q, %v", got, err)
	}
}

// TestCompareStamped: two Gemini CLI sessions that differ only in the
// time a restore stamped them with are the same session; a session
// there without a stamp gets one; one that went on is another.
func TestCompareStamped(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	touch := func(day int) string {
		return string(agentstore.GeminiTouch(time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC)))
	}
	meta := `{"sessionId":"s","projectHash":"h","lastUpdated":"2026-01-01T00:00:00.000Z"}` + "\n"
	own := `{"$set":{"lastUpdated":"2026-01-01T00:00:00.000Z"}}` + "\n" // the agent's own, kept
	b1, b2 := meta+`{"id":"u1","type":"user"}`+"\n"+own, `{"id":"g1","type":"gemini"}`+"\n"+own
	long := strings.Repeat(`{"id":"x","content":"`+strings.Repeat("y", 100)+`"}`+"\n", 1000)
	for _, c := range []struct {
		name, old, cur, want string
	}{
		{"restored again, later", b1 + b2 + touch(2), b1 + b2 + touch(20), Unchanged},
		{"stamped twice", b1 + b2 + touch(2) + touch(3), b1 + b2 + touch(20), Unchanged},
		{"restored before stamps", b1 + b2, b1 + b2 + touch(20), Updated},
		{"grown since", b1 + touch(2), b1 + b2 + touch(20), Updated},
		{"a long session grown", long + touch(2), long + b2 + touch(20), Updated},
		{"gone on there", b1 + b2 + `{"id":"u2","type":"user"}` + "\n" + touch(2), b1 + b2 + touch(20), ""},
		{"another session", meta + `{"id":"u9","type":"user"}` + "\n" + touch(2), b1 + b2 + touch(20), ""},
	} {
		got, err := compare(write("cur.jsonl", c.cur), write("old.jsonl", c.old), touchLines)
		var ce *ConflictError
		if got != c.want || (c.want == "") != errors.As(err, &ce) {
			t.Errorf("%s: compare = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	doc := func(at, text string) string {
		return "{\n  \"sessionId\": \"s\",\n  \"lastUpdated\": \"" + at + "\",\n  \"messages\": [{\"content\": \"" + text + "\"}]\n}"
	}
	for _, c := range []struct {
		name, old, cur, want string
	}{
		{"restored again, later", doc("2026-11-02T00:00:00.000Z", "hi"), doc("2026-11-20T00:00:00.000Z", "hi"), Unchanged},
		{"another session", doc("2026-11-02T00:00:00.000Z", "ho"), doc("2026-11-20T00:00:00.000Z", "hi"), ""},
	} {
		got, err := compare(write("cur.json", c.cur), write("old.json", c.old), docLastUpdated)
		var ce *ConflictError
		if got != c.want || (c.want == "") != errors.As(err, &ce) {
			t.Errorf(".json %s: compare = %q, %v; want %q", c.name, got, err, c.want)
		}
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

// TestCaptureDiverged: a session that does not extend its tag's capture
// is a branch: its parent the capture it does extend, found among the
// captures before the tag's when no restore record says it (a copy of
// the session made by hand), or by the record when no tag names the pack
// it was restored from (a pack pulled under another name); the tag of
// the session's own line stays.
func TestCaptureDiverged(t *testing.T) {
	st := storetest.New(t)
	line := func(uuid, text, cwd string) string {
		return `{"type":"user","message":{"role":"user","content":"` + text + `"},"uuid":"` + uuid + `","timestamp":"2026-05-01T10:00:00.000Z","sessionId":"s-1","cwd":"` + cwd + `"}` + "\n"
	}
	h1, h2 := t.TempDir(), t.TempDir()
	p1 := filepath.Join(h1, ".claude", "projects", "-w", "s-1.jsonl")
	writeFile(t, p1, []byte(line("u1", "one", "/w")))
	capture := func(home string) Captured {
		t.Helper()
		rep, err := Capture(st, CaptureOptions{Env: envOf(home)})
		if err != nil || len(rep.Captured) != 1 {
			t.Fatalf("Capture: %+v, %v; want one session captured", rep, err)
		}
		return rep.Captured[0]
	}
	first := capture(h1)
	writeFile(t, p1, []byte(line("u1", "one", "/w")+line("u2", "two", "/w")))
	second := capture(h1)

	// A copy of the first capture's file, continued in another home.
	p2 := filepath.Join(h2, ".claude", "projects", "-w", "s-1.jsonl")
	writeFile(t, p2, []byte(line("u1", "one", "/w")+line("v2", "elsewhere", "/w")))
	got := capture(h2)
	if got.Status != Diverged || got.Parent == nil || *got.Parent != first.Pack || got.Tag != "claude-code.s-1.2" {
		t.Errorf("a copy continued elsewhere: %+v, want diverged from %s, tagged claude-code.s-1.2", got, first.Pack)
	}
	if h, err := st.ReadRef("claude-code.s-1"); err != nil || h.URI() != second.Pack {
		t.Errorf("the tag of the first line moved: %v %v, want %s", h, err, second.Pack)
	}

	// The first capture restored into a third home for another
	// directory, and continued there, with no tag of the session left
	// in the store: the restore record gives its parent.
	for _, tag := range []string{"claude-code.s-1", "claude-code.s-1.2"} {
		if err := st.DeleteRef(tag); err != nil {
			t.Fatal(err)
		}
	}
	h3, cwd := t.TempDir(), t.TempDir()
	h, _ := store.ParseHex(strings.TrimPrefix(first.Pack, "ctx://"))
	res, err := Restore(st, h, RestoreOptions{Cwd: cwd, Env: envOf(h3)})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(res.File, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line("x2", "third", cwd))
	f.Close()
	got = capture(h3)
	if got.Status != Grown || got.Parent == nil || *got.Parent != first.Pack || got.Tag != "claude-code.s-1" {
		t.Errorf("a restored session continued: %+v, want grown from %s", got, first.Pack)
	}
}

// TestCaptureOddIDs: a session whose id cannot name a tag is kept under
// a tag made from it, with a warning, each warning of a session naming
// it, once; the other sessions are captured as ever.
func TestCaptureOddIDs(t *testing.T) {
	st := storetest.New(t)
	h := t.TempDir()
	rec := func(id string) []byte {
		return []byte(`{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-05-01T10:00:00.000Z","sessionId":"x","cwd":"/w"}` + "\n" +
			`{"type":"user","message":{"role":"user","content":"again"},"uuid":"u2","timestamp":"2026-05-01T10:00:01.000Z","sessionId":"x","cwd":"/w"}` + "\n")
	}
	writeFile(t, filepath.Join(h, ".claude", "projects", "-w", "weird id.jsonl"), rec("weird id"))
	writeFile(t, filepath.Join(h, ".claude", "projects", "-w", "plain.jsonl"), rec("plain"))
	long := strings.Repeat("l", 200)
	writeFile(t, filepath.Join(h, ".claude", "projects", "-w", long+".jsonl"), rec(long))
	var warned []string
	rep, err := Capture(st, CaptureOptions{Env: envOf(h), Warn: func(s string) { warned = append(warned, s) }})
	if err != nil || len(rep.Captured) != 3 || len(rep.Failed) != 0 {
		t.Fatalf("Capture: %+v, %v; want the 3 sessions", rep, err)
	}
	tags := map[string]string{}
	for _, c := range rep.Captured {
		tags[c.Session] = c.Tag
		if err := store.CheckTagName(c.Tag); err != nil || c.Tag != Tag("claude-code", c.Session) {
			t.Errorf("%q tagged %q: %v", c.Session, c.Tag, err)
		}
	}
	if tags["plain"] != "claude-code.plain" || !strings.HasPrefix(tags["weird id"], "claude-code.weird-id-") || len(tags[long]) > 128-tagRoom {
		t.Errorf("tags: %q", tags)
	}
	// One warning of each kind per session, each naming its session.
	counts := map[string]int{}
	for _, w := range warned {
		if !strings.HasPrefix(w, "claude-code session ") {
			t.Errorf("a warning that names no session: %q", w)
		}
		counts[w]++
		if counts[w] > 1 {
			t.Errorf("said twice: %q", w)
		}
		if strings.Contains(w, "--model") {
			t.Errorf("a warning names a flag ctx capture does not have: %q", w)
		}
	}
	if !strings.Contains(strings.Join(warned, "\n"), `claude-code session plain: the transcript names no model; using "unknown"`) {
		t.Errorf("no warning of the model: %q", warned)
	}
	if !strings.Contains(strings.Join(warned, "\n"), `claude-code session weird id: its id cannot be part of a tag name as it is: tagged claude-code.weird-id-`) {
		t.Errorf("no warning of the tag made for the odd id: %q", warned)
	}
	again, err := Capture(st, CaptureOptions{Env: envOf(h)})
	if err != nil || again.Unchanged != 3 {
		t.Errorf("a second capture: %+v, %v; want 3 unchanged", again, err)
	}
}

// TestRestoreGeminiDocument: a .json session of Gemini CLI (one
// document) restored exactly has its projectHash made the new
// directory's and its lastUpdated the time of the restore, every other
// byte as recorded; restored again later, it is unchanged.
func TestRestoreGeminiDocument(t *testing.T) {
	const name = "codemie__session-2026-01-16T11-01-file-ops-37b7abef.json.gz"
	zr, err := gzip.NewReader(bytes.NewReader(corpus(t, "gemini-cli/"+name)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.New(t)
	src, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(src, ".gemini", "tmp", "old", "chats", "session-2026-01-16T11-01-file-ops-37b7abef.json"), doc)
	rep, err := Capture(st, CaptureOptions{Env: envOf(src), Agents: []string{"gemini"}})
	if err != nil || len(rep.Captured) != 1 {
		t.Fatalf("Capture: %+v, %v", rep, err)
	}
	h, err := st.ReadRef(rep.Captured[0].Tag)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	dst := t.TempDir()
	var notes []string
	res, err := Restore(st, h, RestoreOptions{Cwd: cwd, Env: envOf(dst), Now: func() time.Time { return at }, Note: func(s string) { notes = append(notes, s) }})
	if err != nil || res.Mode != "exact" || res.Status != Written {
		t.Fatalf("Restore: %+v, %v", res, err)
	}
	got, err := os.ReadFile(res.File)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Replace(doc, []byte(`"projectHash": "907f20644716c92a8309a8b7c1ceec79d422233ff220b7fdb8772b360bd8273f"`),
		[]byte(`"projectHash": "`+agentstore.GeminiProjectHash(cwd)+`"`), 1)
	want = bytes.Replace(want, []byte(`"lastUpdated": "2026-01-16T12:34:29.824Z"`), []byte(`"lastUpdated": "2026-11-28T09:00:00.000Z"`), 1)
	if bytes.Equal(want, doc) || !bytes.Equal(got, want) {
		t.Errorf("the restored document is not the recorded one with its projectHash and lastUpdated set")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "2026-11-28T09:00:00.000Z") {
		t.Errorf("notes: %q, want the time the session is stamped with", notes)
	}
	res, err = Restore(st, h, RestoreOptions{Cwd: cwd, Env: envOf(dst), Now: func() time.Time { return at.Add(48 * time.Hour) }})
	if err != nil || res.Status != Unchanged {
		t.Errorf("restored again two days later: %+v, %v; want unchanged", res, err)
	}
}
