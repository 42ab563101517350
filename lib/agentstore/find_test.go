package agentstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// env is a test's environment.
func env(m map[string]string) Getenv { return func(k string) string { return m[k] } }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDir(t *testing.T) {
	e := env(map[string]string{"HOME": "/h"})
	for agent, want := range map[string]string{ClaudeCode: "/h/.claude", Codex: "/h/.codex", Gemini: "/h/.gemini"} {
		if got, err := Dir(agent, e); err != nil || got != want {
			t.Errorf("Dir(%s) = %q, %v; want %q", agent, got, err, want)
		}
	}
	moved := env(map[string]string{"HOME": "/h", ClaudeConfigEnv: "/c/", CodexHomeEnv: "/x", GeminiHomeEnv: "/g"})
	for agent, want := range map[string]string{ClaudeCode: "/c", Codex: "/x", Gemini: "/g/.gemini"} {
		if got, err := Dir(agent, moved); err != nil || got != want {
			t.Errorf("Dir(%s) with its variable = %q, %v; want %q", agent, got, err, want)
		}
	}
	if _, err := Dir(Codex, env(nil)); err == nil {
		t.Error("Dir without HOME: no error")
	}
	if _, err := Dir("cursor", e); err == nil || !strings.Contains(err.Error(), "known: claude-code, codex, gemini") {
		t.Errorf("Dir of an unknown agent: %v", err)
	}
}

func TestClaudeFolder(t *testing.T) {
	base := t.TempDir()
	long := "/tmp/" + strings.Repeat("y", 300)
	// The variable names the folder only with CLAUDE_CONFIG_DIR set, and
	// only when it is a name of the allowed form.
	for _, c := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{ClaudeProjectNameEnv: "mine"}, "-w-p"},
		{map[string]string{ClaudeConfigEnv: base, ClaudeProjectNameEnv: "mine_1-x"}, "mine_1-x"},
		{map[string]string{ClaudeConfigEnv: base, ClaudeProjectNameEnv: "no/slash"}, "-w-p"},
		{map[string]string{ClaudeConfigEnv: base, ClaudeProjectNameEnv: strings.Repeat("a", 65)}, "-w-p"},
	} {
		if got := ClaudeFolder(env(c.vars), base, "/w/p"); got != c.want {
			t.Errorf("ClaudeFolder with %v = %q, want %q", c.vars, got, c.want)
		}
	}
	// A long name: the rule's, unless a folder with the same first 200
	// characters and another suffix is there.
	rule := ClaudeProjectFolder(long)
	if got := ClaudeFolder(env(nil), base, long); got != rule {
		t.Errorf("long name, no folder: %q, want %q", got, rule)
	}
	other := rule[:claudeFolderMax] + "-abc123"
	if err := os.MkdirAll(filepath.Join(base, "projects", other), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := ClaudeFolder(env(nil), base, long); got != other {
		t.Errorf("long name with an existing folder: %q, want %q", got, other)
	}
}

func TestCodexRolloutName(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 17, 46, 0, time.UTC)
	id := "01a22217-10c2-7c91-aaf1-4dd0fbb90fcb"
	name := CodexRolloutName(at, id)
	if name != "rollout-2026-11-28T12-17-46-01a22217-10c2-7c91-aaf1-4dd0fbb90fcb.jsonl" {
		t.Errorf("CodexRolloutName = %q", name)
	}
	if got, gotID, ok := ParseCodexRolloutName(name); !ok || !got.Equal(at) || gotID != id {
		t.Errorf("ParseCodexRolloutName(%q) = %v, %q, %v", name, got, gotID, ok)
	}
	if CodexDatedFolder(at) != filepath.Join("sessions", "2026", "11", "28") {
		t.Errorf("CodexDatedFolder = %q", CodexDatedFolder(at))
	}
	for _, bad := range []string{"rollout-foo.jsonl", "rollout-2026-11-28T12-17-46-not-a-uuid-at-all-xxxxxxxxxxxxxx.jsonl",
		"rollout-2026-13-28T12-17-46-01a22217-10c2-7c91-aaf1-4dd0fbb90fcb.jsonl", name + ".bak", "x" + name} {
		if _, _, ok := ParseCodexRolloutName(bad); ok {
			t.Errorf("ParseCodexRolloutName(%q) accepted it", bad)
		}
	}
}

func TestParseCodexConfig(t *testing.T) {
	for text, want := range map[string]CodexConfig{
		"": {},
		`model_provider = "stub"` + "\n[model_providers.stub]\nname = \"s\"\n": {Provider: "stub", Providers: []string{"stub"}},
		"[model_providers.\"my.p\"]\n":                                         {Providers: []string{"my.p"}},
		"model_providers.a.base_url = \"x\"\n":                                 {Providers: []string{"a"}},
		"[profiles.x]\nmodel_provider = \"inner\"\n":                           {},
		"[model_providers.b.http_headers]\nk = \"v\"\n":                        {Providers: []string{"b"}},
		"# model_provider = \"commented\"\n":                                   {},
	} {
		got := ParseCodexConfig([]byte(text))
		if got.Provider != want.Provider || !reflect.DeepEqual(got.Providers, want.Providers) {
			t.Errorf("ParseCodexConfig(%q) = %+v, want %+v", text, got, want)
		}
	}
	c := ParseCodexConfig([]byte("[model_providers.stub]\n"))
	if !c.Configures("stub") || !c.Configures("openai") || c.Configures("other") || c.Selected() != "openai" {
		t.Errorf("Configures/Selected of %+v", c)
	}
}

func TestGeminiProject(t *testing.T) {
	g := t.TempDir()
	p := GeminiProjects{Projects: map[string]string{"/a/new_place.v2": "new-place-v2", "/known": "kn"}}
	if s, known := GeminiProject(g, p, "/known"); s != "kn" || !known {
		t.Errorf("a known directory: %q %v", s, known)
	}
	if s, known := GeminiProject(g, p, "/b/new_place.v2"); s != "new-place-v2-1" || known {
		t.Errorf("a slug projects.json gives another: %q %v", s, known)
	}
	write(t, filepath.Join(g, "tmp", "free", ".project_root"), "/elsewhere/free")
	if s, _ := GeminiProject(g, p, "/c/free"); s != "free-1" {
		t.Errorf("a slug a marker gives another: %q", s)
	}
	write(t, filepath.Join(g, "history", "mine", ".project_root"), "/d/mine")
	if s, _ := GeminiProject(g, p, "/d/mine"); s != "mine" {
		t.Errorf("a slug whose marker names this directory: %q", s)
	}
	if ValidGeminiSlug("Up") || ValidGeminiSlug("") || !ValidGeminiSlug("a-1") {
		t.Error("ValidGeminiSlug")
	}
}

// TestFind lays out each agent's store as the agent does and finds the
// sessions of one directory and of all.
func TestFind(t *testing.T) {
	home := t.TempDir()
	e := env(map[string]string{"HOME": home})
	proj, other := "/w/proj_a.b", "/w/other"
	claude := filepath.Join(home, ".claude", "projects")
	write(t, filepath.Join(claude, ClaudeProjectFolder(proj), "s1.jsonl"), "{}\n")
	write(t, filepath.Join(claude, ClaudeProjectFolder(proj), "s1", "subagents", "agent-a.jsonl"), "{}\n")
	write(t, filepath.Join(claude, ClaudeProjectFolder(proj), "s1", "subagents", "agent-a.meta.json"), "{}")
	write(t, filepath.Join(claude, ClaudeProjectFolder(proj), "agent-old.jsonl"), "{}\n")
	write(t, filepath.Join(claude, ClaudeProjectFolder(other), "s2.jsonl"), "{}\n")
	meta := func(cwd string) string {
		return `{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"` + cwd + `","model_provider":"openai"}}` + "\n"
	}
	r1 := "rollout-2026-01-02T03-04-05-00000000-0000-4000-8000-000000000001.jsonl"
	r2 := "rollout-2026-01-02T03-04-05-00000000-0000-4000-8000-000000000002.jsonl"
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "01", "02", r1), meta(proj))
	write(t, filepath.Join(home, ".codex", "sessions", "2030", "05", "06", r2), meta(other))
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "01", "02", "rollout-foo.jsonl"), meta(proj))
	gem := filepath.Join(home, ".gemini")
	write(t, GeminiProjectsFile(gem), `{"projects": {"`+proj+`": "proj-a-b"}}`)
	chats := GeminiChats(gem, "proj-a-b")
	write(t, filepath.Join(chats, "session-2026-01-02T03-04gggg0001.jsonl"), `{"sessionId":"gggg0001-x","kind":"main"}`+"\n")
	write(t, filepath.Join(chats, "session-2026-01-02T03-05gggg0002.json"), `{"sessionId":"gggg0002-x","messages":[{"a":[1,{"b":2}]}],"kind":"main"}`)
	write(t, filepath.Join(chats, "session-2026-01-02T03-06gggg0003.jsonl"), `{"sessionId":"gggg0003-x","kind":"subagent"}`+"\n")
	write(t, filepath.Join(chats, "notes.jsonl"), `{"sessionId":"n"}`+"\n")
	// A resumed session written to a second file: the newer one.
	old := filepath.Join(chats, "session-2026-01-02T03-07gggg0004.jsonl")
	write(t, old, `{"sessionId":"gggg0004-x","kind":"main"}`+"\n")
	write(t, filepath.Join(chats, "session-2026-01-02T03-08gggg0004.jsonl"), `{"sessionId":"gggg0004-x","kind":"main"}`+"\n")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}

	summary := func(ss []Session) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Agent+" "+s.ID+" "+strings.Join(s.Files, ","))
		}
		return out
	}
	for _, c := range []struct {
		agent, dir string
		want       []string
	}{
		{ClaudeCode, proj, []string{"claude-code s1 s1.jsonl,s1/subagents/agent-a.jsonl,s1/subagents/agent-a.meta.json"}},
		{ClaudeCode, "", []string{"claude-code s1 s1.jsonl,s1/subagents/agent-a.jsonl,s1/subagents/agent-a.meta.json", "claude-code s2 s2.jsonl"}},
		{Codex, proj, []string{"codex 00000000-0000-4000-8000-000000000001 " + r1}},
		{Codex, "", []string{"codex 00000000-0000-4000-8000-000000000001 " + r1, "codex 00000000-0000-4000-8000-000000000002 " + r2}},
		{Gemini, proj, []string{"gemini gggg0001-x session-2026-01-02T03-04gggg0001.jsonl", "gemini gggg0002-x session-2026-01-02T03-05gggg0002.json",
			"gemini gggg0004-x session-2026-01-02T03-08gggg0004.jsonl"}},
		{Gemini, other, nil},
	} {
		got, looked, err := Find(c.agent, e, c.dir)
		if err != nil {
			t.Fatalf("Find(%s, %q): %v", c.agent, c.dir, err)
		}
		if !reflect.DeepEqual(summary(got), c.want) {
			t.Errorf("Find(%s, %q) = %q\nwant %q", c.agent, c.dir, summary(got), c.want)
		}
		if len(looked) == 0 {
			t.Errorf("Find(%s, %q) says it looked nowhere", c.agent, c.dir)
		}
	}
	if got, _, _ := Find(Gemini, e, proj); len(got) > 0 && got[0].Cwd != proj {
		t.Errorf("a Gemini session's Cwd = %q, want the project's %q", got[0].Cwd, proj)
	}
	// A store that does not exist holds nothing, and is no error.
	if got, looked, err := Find(Codex, env(map[string]string{"HOME": home, CodexHomeEnv: "/nowhere"}), ""); err != nil || got != nil || looked[0] != "/nowhere/sessions" {
		t.Errorf("Find in a missing store: %v %v %v", got, looked, err)
	}
}

// TestGeminiSessionName: the name Gemini CLI 0.61.0 gave the corpus
// session, and the short id its /-([a-zA-Z0-9]{8})\.jsonl?$/ finds in it
// (--delete-session and the retention sweep go by it).
func TestGeminiSessionName(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 17, 59, 72e6, time.UTC)
	got := GeminiSessionName(at, "43abe552-f689-4897-b26e-875e82c1ecd5")
	if got != "session-2026-11-28T12-17-43abe552.jsonl" {
		t.Errorf("GeminiSessionName = %q, want Gemini CLI's session-2026-11-28T12-17-43abe552.jsonl", got)
	}
	m := regexp.MustCompile(`-([a-zA-Z0-9]{8})\.jsonl?$`).FindStringSubmatch(got)
	if m == nil || m[1] != "43abe552" {
		t.Errorf("Gemini CLI's short id of %q: %v, want 43abe552", got, m)
	}
}

// TestGeminiTouch: the record restore appends is one Gemini CLI writes
// itself, and only such a record is taken for one.
func TestGeminiTouch(t *testing.T) {
	line := GeminiTouch(time.Date(2026, 11, 28, 12, 18, 1, 77e6, time.UTC))
	if string(line) != `{"$set":{"lastUpdated":"2026-11-28T12:18:01.077Z"}}`+"\n" {
		t.Errorf("GeminiTouch = %q, want the corpus session's last line", line)
	}
	for l, want := range map[string]bool{
		strings.TrimSuffix(string(line), "\n"):                        true,
		`{"$set": {"lastUpdated": "x"}}`:                              true,
		`{"$set":{"lastUpdated":"x","summary":"s"}}`:                  false,
		`{"$set":{"lastUpdated":1}}`:                                  false,
		`{"$set":{"lastUpdated":"x"},"id":"m"}`:                       false,
		`{"id":"m","type":"user","content":[{"text":"lastUpdated"}]}`: false,
		`{"$rewindTo":"u2"}`:                                          false,
	} {
		if IsGeminiTouch([]byte(l)) != want {
			t.Errorf("IsGeminiTouch(%s) = %v, want %v", l, !want, want)
		}
	}
}

// TestGeminiProjectsKeepsOtherKeys: projects.json read and written back
// keeps what it holds besides the projects.
func TestGeminiProjectsKeepsOtherKeys(t *testing.T) {
	p, err := ParseGeminiProjects([]byte(`{"projects": {"/a": "a"}, "version": 2, "extra": {"k": [1, "x"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	p.Projects["/b"] = "b"
	var back map[string]any
	if err := json.Unmarshal(p.Encode(), &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"projects": map[string]any{"/a": "a", "/b": "b"}, "version": 2.0, "extra": map[string]any{"k": []any{1.0, "x"}}}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("projects.json written back: %v, want %v", back, want)
	}
}

// TestLookupTakesConvertFormats: an agent is named by ctx's name or by
// ctx convert's format of its sessions; the error lists both.
func TestLookupTakesConvertFormats(t *testing.T) {
	for _, n := range []string{"gemini", "gemini-cli"} {
		if a, err := Lookup(n); err != nil || a.Name != Gemini {
			t.Errorf("Lookup(%q) = %v, %v", n, a, err)
		}
	}
	_, err := Lookup("atif")
	if err == nil || err.Error() != `unknown agent "atif" (known: claude-code, codex, gemini (or gemini-cli))` {
		t.Errorf("Lookup(atif): %v", err)
	}
}
