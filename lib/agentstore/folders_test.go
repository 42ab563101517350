package agentstore

import (
	"strings"
	"testing"
)

// TestClaudeProjectFolder holds ClaudeProjectFolder to the folders Claude
// Code 2.1.328 made for these working directories (docs/RESTORE.md, "Each
// agent's store": each was run with claude -p in the directory, and the
// folder it wrote under projects/ is the expected name).
func TestClaudeProjectFolder(t *testing.T) {
	abc := strings.Repeat("a_b.c", 45)
	for _, c := range []struct{ dir, want string }{
		{"/tmp/exp/cc/work", "-tmp-exp-cc-work"},
		// a character outside the BMP is two UTF-16 units, so two dashes
		{"/tmp/exp/long/" + strings.Repeat("a_b.c", 30) + "/proj_v1.2/ü😀x",
			"-tmp-exp-long-" + strings.Repeat("a-b-c", 30) + "-proj-v1-2----x"},
		// 200 units: whole
		{"/tmp/exp/long/" + strings.Repeat("x", 186), "-tmp-exp-long-" + strings.Repeat("x", 186)},
		// 201 units: cut at 200, and the hash
		{"/tmp/exp/long/" + strings.Repeat("y", 187), "-tmp-exp-long-" + strings.Repeat("y", 186) + "-m185ep"},
		{"/tmp/exp/long/" + abc + "/proj_v1.2/ü😀x",
			("-tmp-exp-long-" + strings.ReplaceAll(abc, "_", "-"))[:200] + "-xufhah"},
	} {
		want := strings.ReplaceAll(c.want, ".", "-")
		if got := ClaudeProjectFolder(c.dir); got != want {
			t.Errorf("ClaudeProjectFolder(%q)\n= %q\nwant %q", c.dir, got, want)
		}
	}
}

// TestGeminiSlug holds GeminiSlug to the slugs Gemini CLI 0.61.0 wrote in
// projects.json for these directories.
func TestGeminiSlug(t *testing.T) {
	for dir, want := range map[string]string{
		"/tmp/exp/gm/work":                "work",
		"/tmp/ctx-corpus/demo_project.v1": "demo-project-v1",
		"/tmp/exp/rg/new_place.v2":        "new-place-v2",
		"/tmp/x/__Ab..C__":                "ab-c",
		"/":                               "project",
	} {
		if got := GeminiSlug(dir); got != want {
			t.Errorf("GeminiSlug(%q) = %q, want %q", dir, got, want)
		}
	}
}
