package pack

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestKnownFields pins the fields of each element of a log, as the event
// types define them: a field added to a type is known to Build at once,
// and one removed is unknown.
func TestKnownFields(t *testing.T) {
	want := map[string]string{
		"top":     "created end environment inputs metadata model outcome outputs parent prompts steps system_prompt task",
		"run":     "created end environment event metadata model outcome parent system_prompt task",
		"task":    "epoch id name",
		"outcome": "passed score source value",
		"end":     "message state",
		"model":   "identifier parameters",
		"source":  "content content_base64 content_ref path",
		"prompt":  "content content_base64 content_ref event metadata path role",
		"input":   "content content_base64 content_ref event metadata name path",
		"step":    "deterministic event index metadata normalized_output normalized_output_base64 normalized_output_path normalized_output_ref outcome output output_base64 output_path output_ref parameters timestamp tool type",
		"output":  "confidence content content_base64 content_ref event metadata name notes path",
	}
	for element, names := range want {
		var got []string
		for k := range knownFields(element) {
			got = append(got, k)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != names {
			t.Errorf("%s: %s\nwant %s", element, strings.Join(got, " "), names)
		}
	}
}

// TestEventsPack checks that a log written with the event types, every
// field used, packs with --strict: what writers encode is what Build
// reads.
func TestEventsPack(t *testing.T) {
	text := func(s string) *string { return &s }
	yes, zero := true, 0
	var log bytes.Buffer
	enc := json.NewEncoder(&log)
	for _, ev := range []any{
		RunEvent{Event: "run", Created: "2026-01-01T00:00:00Z", Model: LogModel{Identifier: "m", Parameters: map[string]any{"t": 0}},
			SystemPrompt: text("be brief"), Environment: map[string]any{"os": "linux"}, Metadata: map[string]any{"run": 1},
			Parent: "sha256:" + strings.Repeat("ab", 32), Task: &Task{ID: "t-1", Epoch: 2, Name: "one"},
			Outcome: &Outcome{Passed: &yes, Score: json.RawMessage(`0.5`), Value: json.RawMessage(`{"c":1}`), Source: "tests"},
			End:     &End{State: "submitted", Message: "done"}},
		PromptEvent{Event: "prompt", Role: "user", Content: Content{Content: text("hi")}, Metadata: map[string]any{"id": "p"}},
		InputEvent{Event: "input", Name: "a.bin", Content: Content{ContentBase64: "AAE="}},
		StepEvent{Event: "step", Index: &zero, Type: "tool_call", Tool: "read", Parameters: map[string]any{"path": "a.bin"},
			Output: text("x"), Deterministic: &yes, Timestamp: "2026-01-01T00:00:01Z", Metadata: map[string]any{"ok": true}},
		OutputEvent{Event: "output", Name: "r.md", Content: Content{Content: text("done")}, Confidence: "high", Notes: "n"},
	} {
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	var warnings []string
	res, err := Build(&log, HashSink{}, Options{Root: t.TempDir(), Strict: true, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Build: %v, warnings %q", err, warnings)
	}
	m := res.Manifest
	if m.Task == nil || m.Task.Epoch != 2 || m.Outcome == nil || string(m.Outcome.Value) != `{"c":1}` || m.End == nil || m.End.State != "submitted" {
		t.Errorf("task %+v outcome %+v end %+v", m.Task, m.Outcome, m.End)
	}
	if m.Parent == nil || len(m.Steps) != 1 || m.Outputs[0].Confidence != "high" || !reflect.DeepEqual(m.Inputs[0].Size, int64(2)) {
		t.Errorf("manifest %+v", m)
	}
}
