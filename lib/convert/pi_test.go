package convert

import (
	"strings"
	"testing"
)

// piTree is a version 3 session that branched: the user asked, the agent
// edited, then the user went back to the first answer (/tree) and asked
// another way. The conversation is the path from the last entry.
func piTree() string {
	return strings.Join([]string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T10:00:00.000Z","cwd":"/w"}`,
		`{"type":"model_change","id":"e1","parentId":null,"timestamp":"2026-01-01T09:00:00.000Z","provider":"p","modelId":"m1"}`,
		`{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T09:00:01.000Z","message":{"role":"user","content":"fix a.txt","timestamp":1}}`,
		`{"type":"message","id":"e3","parentId":"e2","timestamp":"2026-01-01T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Editing."},{"type":"toolCall","id":"c1","name":"edit","arguments":{"path":"/w/a.txt","oldText":"x","newText":"y"}}],"provider":"p","model":"m1","stopReason":"toolUse"}}`,
		`{"type":"message","id":"e4","parentId":"e3","timestamp":"2026-01-01T09:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":[{"type":"text","text":"Successfully replaced text in a.txt."}],"isError":false}}`,
		// the abandoned branch
		`{"type":"message","id":"e5","parentId":"e4","timestamp":"2026-01-01T09:00:04.000Z","message":{"role":"user","content":"now b.txt"}}`,
		`{"type":"message","id":"e6","parentId":"e5","timestamp":"2026-01-01T09:00:05.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"rm b.txt"}}],"provider":"p","model":"m1","stopReason":"aborted"}}`,
		// back to e4, another way
		`{"type":"branch_summary","id":"e7","parentId":"e4","timestamp":"2026-01-01T09:00:06.000Z","fromId":"e6","summary":"tried b.txt"}`,
		`{"type":"message","id":"e8","parentId":"e7","timestamp":"2026-01-01T09:00:07.000Z","message":{"role":"user","content":[{"type":"text","text":"write c.txt"}]}}`,
		`{"type":"message","id":"e9","parentId":"e8","timestamp":"2026-01-01T09:00:08.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"write","arguments":{"path":"c.txt","content":"hi\n"}},{"type":"toolCall","id":"c4","name":"bash","arguments":{"command":"cat c.txt"}}],"provider":"p","model":"m1","stopReason":"error","errorMessage":"terminated"}}`,
		`{"type":"message","id":"e10","parentId":"e9","timestamp":"2026-01-01T09:00:09.000Z","message":{"role":"toolResult","toolCallId":"c3","toolName":"write","content":[{"type":"text","text":"Successfully wrote 3 bytes to c.txt"}],"isError":false}}`,
	}, "\n")
}

func TestPiTree(t *testing.T) {
	evs, warns := events(t, "", piTree())
	if len(warns) != 1 || !strings.Contains(warns[0], "2 entries are on branches") {
		t.Errorf("warnings %q, want one counting the 2 entries of the abandoned branch", warns)
	}
	run := evs[0]
	if run["created"] != "2026-01-01T09:00:00.000Z" || run["model"].(map[string]any)["identifier"] != "m1" {
		t.Errorf("run %v: want created at the first entry (the header is later) and model m1", run)
	}
	var got []string
	for _, s := range ofEvent(evs, "step") {
		o, _ := s["outcome"].(string)
		n, _ := s["normalized_output"].(string)
		got = append(got, strings.TrimSpace(s["type"].(string)+" "+s["tool"].(string)+" "+o+" "+n))
	}
	want := []string{
		// the model_change entry is bookkeeping: in metadata, not a step
		"model_call m1",
		"model_call m1",
		"tool_call edit  File edited: a.txt",
		"event branch_summary",
		"tool_call write  File written: c.txt (3 bytes)",
		// cut off by the error before it ran, and nothing answered it
		"tool_call bash rejected",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("steps\n%q\nwant\n%q", got, want)
	}
	var prompts []string
	for _, p := range ofEvent(evs, "prompt") {
		prompts = append(prompts, p["content"].(string))
	}
	if strings.Join(prompts, "|") != "fix a.txt|write c.txt" {
		t.Errorf("prompts %q", prompts)
	}
	if outs := ofEvent(evs, "output"); len(outs) != 1 || outs[0]["name"] != "c.txt" {
		t.Errorf("outputs %v", outs)
	}
}

func TestPiMalformed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"type":"message","id":"e1"}`, "begins with its header"},
		{`{"type":"session","id":"s","cwd":"/w"}` + "\n" + `{"type":"message","id":5}`, "line 2: .id: must be a string"},
		{`{"type":"session","id":"s","cwd":"/w"}` + "\n" + `{"type":"message","message":{"content":"x"}}`, "line 2: .message.role: missing"},
		{`{"type":"session","id":"s","cwd":"/w"}` + "\n" + `{"type":`, "line 2"},
	} {
		_, err := Convert(strings.NewReader(c.in), nil, &strings.Builder{}, Options{From: "pi"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}
