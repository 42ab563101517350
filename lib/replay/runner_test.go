package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/store"
)

// replayPack replays m in a fresh temporary workspace.
func replayPack(t *testing.T, st *store.Store, m *pack.Manifest, opts Options) ([]Step, *replaystream.Report, error) {
	t.Helper()
	ws, err := NewTempWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	defer ws.Close()
	if opts.Sandbox == nil && opts.Unconfined == "" {
		// As ctx replay does: every program in the sandbox, where there is
		// one (this test binary is its launcher: TestMain).
		if sb := testSandbox(t, ws.Dir()); sb != nil {
			defer sb.Close()
			opts.Sandbox = sb
		}
	}
	var steps []Step
	rep, err := Run(context.Background(), st, m, ws, opts, func(r *Step) error {
		steps = append(steps, *r)
		return nil
	})
	return steps, rep, err
}

// records are the stream's lines of steps.
func records(steps []Step) []replaystream.Step {
	out := make([]replaystream.Step, len(steps))
	for i, s := range steps {
		out[i] = s.Step
	}
	return out
}

func statuses(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = string(s.Status)
		if s.Reason != "" {
			out[i] += ": " + s.Reason
		}
	}
	return out
}

func driftJSON(t *testing.T, d []replaystream.Drift) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunStatuses(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{
	  "model": {"identifier": "m"}, "prompts": [],
	  "inputs": [{"name": "a.txt", "content": "A\n"}],
	  "steps": [
	    {"tool": "read_file", "parameters": {"path": "a.txt"}, "output": "A\n"},
	    {"tool": "read_file", "parameters": {"path": "a.txt"}, "output": "B\n"},
	    {"tool": "read_file", "parameters": {"path": "a.txt"}, "output": "B\n", "deterministic": false},
	    {"tool": "read_file", "parameters": {"path": "a.txt"}, "output": "A\n", "deterministic": false},
	    {"tool": "search_web", "parameters": {"q": "x"}, "output": "r"},
	    {"tool": "search_web", "parameters": {"q": "y"}, "output": "r", "deterministic": false},
	    {"tool": "bash", "parameters": {"command": "true"}, "output": ""},
	    {"tool": "bash", "parameters": {"command": "date"}, "output": "now", "deterministic": false},
	    {"type": "model_call", "tool": "read_file", "parameters": {"path": "a.txt"}, "output": "A\n", "deterministic": true},
	    {"type": "model_call", "tool": "m", "output": "thinking"},
	    {"tool": "write_file", "parameters": {"path": "b/c.txt", "content": "C"}, "output": "File written: b/c.txt (1 bytes)"},
	    {"tool": "read_file", "parameters": {"path": "b/c.txt"}, "output": "C"},
	    {"tool": "read_file", "parameters": {"path": "b/c.txt"}},
	    {"tool": "search_web", "parameters": {"q": "z"}, "output": "r"}
	  ]}`)
	steps, rep, err := replayPack(t, st, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"matched",
		"diverged",
		"diverged_expected",
		"matched",
		`failed: no executor for tool "search_web": no ctx-tool-search_web on the lookup path, no tools entry in .ctx/config.json, and no built-in of that name`,
		"recorded",
		"not_allowed: tool bash runs shell commands, which replay runs only with --allow-exec",
		"recorded",
		`failed: no executor for model_call step "read_file": no ctx-tool-read_file on the lookup path and no tools entry in .ctx/config.json (built-ins run tool_call steps only)`,
		"recorded",
		"matched",
		"matched",
		"diverged",
		`failed: no executor for tool "search_web": no ctx-tool-search_web on the lookup path, no tools entry in .ctx/config.json, and no built-in of that name`,
	}
	if got := statuses(steps); !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, s := range steps {
		if s.Index != i || s.Tool != m.Steps[i].Tool || s.Deterministic != m.Steps[i].Deterministic || s.Expected != m.Steps[i].OutputRef {
			t.Errorf("step %d: %+v does not describe the recorded step", i, s)
		}
		switch s.Status {
		case replaystream.Failed, replaystream.NotAllowed:
			if s.Actual != nil || s.ActualSize != nil {
				t.Errorf("step %d %s but has an actual output", i, s.Status)
			}
		case replaystream.Recorded:
			if s.Actual != s.Expected || s.ActualSize == nil || *s.ActualSize != *m.Steps[i].OutputSize {
				t.Errorf("step %d: a recorded step's actual is its expected: %+v", i, s)
			}
		default:
			if s.Actual == nil || s.ActualSize == nil {
				t.Errorf("step %d ran but has no actual output", i)
			}
		}
	}
	if rep.Status != replaystream.FailedReplay {
		t.Errorf("status %s; want failed", rep.Status)
	}
	wantCounts := replaystream.Counts{Steps: 14, Reexecuted: 7, Matched: 4, Diverged: 2, DivergedExpected: 1, Failed: 3, Recorded: 3, NotAllowed: 1}
	if rep.Counts != wantCounts {
		t.Errorf("counts %+v; want %+v", rep.Counts, wantCounts)
	}
	if !reflect.DeepEqual(rep.Diverged, []int{1, 12}) || !reflect.DeepEqual(rep.Failed, []int{4, 8, 13}) {
		t.Errorf("diverged %v, failed %v", rep.Diverged, rep.Failed)
	}
	if got, want := driftJSON(t, rep.Drift), `[{"kind":"missing_tool","tool":"search_web","steps":[4,13]},{"kind":"missing_tool","tool":"read_file","steps":[8]}]`; got != want {
		t.Errorf("drift %s\nwant  %s", got, want)
	}
}

// removeObject deletes h from the store, as a partial copy would lack it.
func removeObject(t *testing.T, st *store.Store, h store.Hash) {
	t.Helper()
	if err := os.Remove(st.ObjectPath(h)); err != nil {
		t.Fatal(err)
	}
}

// damageObject rewrites h's bytes in place.
func damageObject(t *testing.T, st *store.Store, h store.Hash, b string) {
	t.Helper()
	p := st.ObjectPath(h)
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMissingAndCorruptInputs(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{
	  "model": {"identifier": "m"}, "prompts": [],
	  "inputs": [{"name": "src/gone.txt", "content": "gone\n"}, {"name": "bad.txt", "content": "bad\n"}, {"name": "ok.txt", "content": "ok\n"}],
	  "steps": [
	    {"tool": "read_file", "parameters": {"path": "src/gone.txt"}, "output": "gone\n"},
	    {"tool": "read_file", "parameters": {"path": "bad.txt"}, "output": "bad\n"},
	    {"tool": "ls", "parameters": {"path": "src"}, "output": "gone.txt\n"},
	    {"tool": "read_file", "parameters": {"path": "ok.txt"}, "output": "ok\n"},
	    {"tool": "write_file", "parameters": {"path": "src/gone.txt", "content": "gone\n"}, "output": "File written: src/gone.txt (5 bytes)"},
	    {"tool": "read_file", "parameters": {"path": "src/gone.txt"}, "output": "gone\n"}
	  ]}`)
	gone, bad := m.Inputs[0].ContentRef, m.Inputs[1].ContentRef
	removeObject(t, st, gone)
	damageObject(t, st, bad, "evil\n")
	evil := store.Sum([]byte("evil\n"))

	steps, rep, err := replayPack(t, st, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"failed: input src/gone.txt is missing from the store (expected " + gone.String() + ")",
		"failed: input bad.txt is corrupt in the store (expected " + bad.String() + ", found " + evil.String() + ")",
		"failed: input src/gone.txt is missing from the store (expected " + gone.String() + ")",
		"matched",
		"matched",
		"matched",
	}
	if got := statuses(steps); !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantDrift := fmt.Sprintf(`[{"kind":"missing_input","name":"src/gone.txt","expected":"%s"},{"kind":"corrupt_input","name":"bad.txt","expected":"%s","actual":"%s"}]`, gone, bad, evil)
	if got := driftJSON(t, rep.Drift); got != wantDrift {
		t.Errorf("drift %s\nwant  %s", got, wantDrift)
	}
}

func TestRecordedOutputMustBeIntact(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{
	  "model": {"identifier": "m"}, "prompts": [{"content": "hi"}],
	  "steps": [
	    {"tool": "search", "parameters": {}, "output": "gone", "deterministic": false},
	    {"tool": "search", "parameters": {}, "output": "bad", "deterministic": false},
	    {"tool": "search", "parameters": {}, "output": "gone", "deterministic": false}
	  ]}`)
	removeObject(t, st, *m.Steps[0].OutputRef)
	damageObject(t, st, *m.Steps[1].OutputRef, "BAD")
	removeObject(t, st, m.Prompts[0].ContentRef)
	steps, rep, err := replayPack(t, st, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("failed: the recorded output %s cannot stand in: it is missing from the store", m.Steps[0].OutputRef),
		fmt.Sprintf("failed: the recorded output %s cannot stand in: it is corrupt in the store", m.Steps[1].OutputRef),
		fmt.Sprintf("failed: the recorded output %s cannot stand in: it is missing from the store", m.Steps[0].OutputRef),
	}
	if got := statuses(steps); !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bad := store.Sum([]byte("BAD"))
	wantDrift := fmt.Sprintf(`[{"kind":"missing_object","where":"steps[0].output_ref","expected":"%s"},{"kind":"corrupt_object","where":"steps[1].output_ref","expected":"%s","actual":"%s"},{"kind":"missing_object","where":"prompts[0]","expected":"%s"}]`,
		m.Steps[0].OutputRef, m.Steps[1].OutputRef, bad, m.Prompts[0].ContentRef)
	if got := driftJSON(t, rep.Drift); got != wantDrift {
		t.Errorf("drift %s\nwant  %s", got, wantDrift)
	}
	// The prompt is gone, so the replay cannot be saved as a whole pack.
	if _, _, err := replayPack(t, st, m, Options{Save: true}); err == nil || !strings.Contains(err.Error(), "prompts[0]") {
		t.Errorf("saving a replay whose prompt is missing: %v", err)
	}
}

func TestEnvironmentDrift(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [], "steps": [],
	  "environment": {"os": "macOS", "arch": "x86_64", "runtime": "python3.12"}}`)
	python := func(_ context.Context, argv []string) (string, error) {
		if argv[0] != "python3" {
			t.Errorf("asked %q for the version of python3.12", argv)
		}
		return "Python 3.11.7\n", nil
	}
	_, rep, err := replayPack(t, st, m, Options{Platform: Platform{OS: "darwin", Arch: "arm64"}, RunVersion: python})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"kind":"environment","field":"arch","recorded":"x86_64","current":"arm64"},{"kind":"environment","field":"runtime","recorded":"python3.12","current":"python 3.11.7"}]`
	if got := driftJSON(t, rep.Drift); got != want {
		t.Errorf("drift %s\nwant  %s", got, want)
	}
	if rep.Status != replaystream.Unverified {
		t.Errorf("environment drift changed the status to %s; a pack of no steps is unverified", rep.Status)
	}
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProgramExecutors(t *testing.T) {
	bin := t.TempDir()
	// ctx-tool-upper upper-cases the "text" parameter; --version says 2.0.
	writeScript(t, bin, "ctx-tool-upper", `
if [ "$1" = --version ]; then echo "upper 2.0"; echo more; exit 0; fi
sed -e 's/.*"text":"\([^"]*\)".*/\1/' | tr a-z A-Z | tr -d '\n'
`)
	// A plugin wins over the built-in of the same name.
	writeScript(t, bin, "ctx-tool-read_file", `
[ "$1" = --version ] && { echo 9; exit 0; }
printf 'plugin for step %s' "$CTX_STEP_INDEX"
`)
	writeScript(t, bin, "ctx-tool-broken", `
[ "$1" = --version ] && exit 1
echo "partial output"; echo "first problem" >&2; echo "cannot reach the index" >&2; exit 4
`)
	writeScript(t, bin, "ctx-tool-slow", `sleep 10`)
	writeScript(t, bin, "count.sh", `wc -c | tr -d ' \n'`)

	st := storetest.New(t)
	m := packtest.Pack(t, st, `{
	  "model": {"identifier": "m"}, "prompts": [],
	  "steps": [
	    {"tool": "upper", "parameters": {"text": "abc"}, "output": "ABC"},
	    {"tool": "upper", "parameters": {"text": "xyz"}, "output": "XYZ"},
	    {"tool": "read_file", "parameters": {"path": "x"}, "output": "whatever"},
	    {"tool": "broken", "parameters": {}, "output": "x"},
	    {"tool": "slow", "parameters": {}, "output": "x"},
	    {"tool": "count", "parameters": {"a": "bc"}, "output": "11"},
	    {"tool": "plain", "parameters": {}, "output": "x"}
	  ],
	  "environment": {"tool_versions": {"upper": "upper 1.0", "broken": "3", "count": "0.1", "plain": "1", "unused": "5"}}}`)
	steps, rep, err := replayPack(t, st, m, Options{
		LookupDirs:  []string{bin},
		StepTimeout: 500 * time.Millisecond,
		Tools: map[string]ConfigTool{
			"count": {Command: []string{"./count.sh"}, Version: "0.2"},
			"plain": {Command: []string{"no-such-program-anywhere"}},
		},
		ConfigDir: bin,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"matched",
		"matched",
		"diverged",
		"failed: ctx-tool-broken exited with status 4: cannot reach the index",
		"failed: ctx-tool-slow: timed out after 500ms (see --step-timeout)",
		"matched",
		`failed: config tool plain: exec: "no-such-program-anywhere": executable file not found in $PATH`,
	}
	if got := statuses(steps); !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if want := store.Sum([]byte("plugin for step 2")); steps[2].Actual == nil || *steps[2].Actual != want {
		t.Errorf("step 2 was not run by ctx-tool-read_file: %+v", steps[2])
	}
	wantDrift := `[{"kind":"tool_version","tool":"upper","recorded":"upper 1.0","current":"upper 2.0"},{"kind":"tool_version","tool":"broken","recorded":"3","current":null},{"kind":"tool_version","tool":"count","recorded":"0.1","current":"0.2"},{"kind":"tool_version","tool":"plain","recorded":"1","current":null}]`
	if got := driftJSON(t, rep.Drift); got != wantDrift {
		t.Errorf("drift %s\nwant  %s", got, wantDrift)
	}
}

// A tool name with a path separator is never looked up: a pack cannot
// point replay at a program beside or below the lookup path.
func TestToolNameWithSlashIsNotLookedUp(t *testing.T) {
	bin := t.TempDir()
	os.Mkdir(filepath.Join(bin, "ctx-tool-sub"), 0o755)
	writeScript(t, filepath.Join(bin, "ctx-tool-sub"), "x", "echo ran > ran.txt")
	writeScript(t, bin, "ctx-tool-", "echo ran > ran.txt")
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [],
	  "steps": [{"tool": "sub/x", "output": "x"}, {"tool": "../ctx-tool-", "output": "x"}]}`)
	steps, _, err := replayPack(t, st, m, Options{LookupDirs: []string{bin, filepath.Join(bin, "ctx-tool-sub")}})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		if s.Status != replaystream.Failed || !strings.HasPrefix(s.Reason, "no executor for tool") {
			t.Errorf("step %d: %s %s", i, s.Status, s.Reason)
		}
	}
}

// A lookup directory given as a relative path still finds the program the
// user installed, never a file of that name in the workspace.
func TestRelativeLookupDir(t *testing.T) {
	top := t.TempDir()
	t.Chdir(top)
	os.Mkdir("tools", 0o755)
	writeScript(t, "tools", "ctx-tool-who", "[ \"$1\" = --version ] && exit 0; printf installed")
	writeScript(t, top, "count.sh", "printf configured")
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [],
	  "steps": [
	    {"tool": "bash", "parameters": {"command": "mkdir tools && printf '#!/bin/sh\\nprintf planted' > tools/ctx-tool-who && cp tools/ctx-tool-who count.sh && chmod +x tools/ctx-tool-who count.sh"}, "output": ""},
	    {"tool": "who", "parameters": {}, "output": "installed"},
	    {"tool": "count", "parameters": {}, "output": "configured"}
	  ]}`)
	steps, _, err := replayPack(t, st, m, Options{AllowExec: true, LookupDirs: []string{"tools"},
		Tools: map[string]ConfigTool{"count": {Command: []string{"./count.sh"}}}, ConfigDir: "."})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(steps); !reflect.DeepEqual(got, []string{"matched", "matched", "matched"}) {
		t.Errorf("statuses %v", got)
	}
}

// The plugin runs in the workspace, with the step's index in its
// environment.
func TestPluginRunsInWorkspace(t *testing.T) {
	bin := t.TempDir()
	writeScript(t, bin, "ctx-tool-where", `
[ "$1" = --version ] && { echo 1; exit 0; }
[ "$PWD" = "$CTX_WORKSPACE" ] && cat input.txt && printf '%s %s' "$CTX_STEP_INDEX" "$CTX_TOOL"
`)
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [],
	  "inputs": [{"name": "input.txt", "content": "in\n"}],
	  "steps": [{"tool": "read_file", "parameters": {"path": "input.txt"}, "output": "in\n"},
	            {"tool": "where", "parameters": {}, "output": "in\n1 where"}]}`)
	steps, _, err := replayPack(t, st, m, Options{LookupDirs: []string{bin}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(steps); !reflect.DeepEqual(got, []string{"matched", "matched"}) {
		t.Errorf("statuses %v", got)
	}
}

func TestSave(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{
	  "model": {"identifier": "m"}, "prompts": [{"content": "do it"}], "system_prompt": "sys",
	  "inputs": [{"name": "a.txt", "content": "A\n"}],
	  "steps": [
	    {"tool": "read_file", "parameters": {"path": "a.txt"}, "output": "A\n", "timestamp": "2026-01-01T00:00:00Z"},
	    {"tool": "edit_file", "parameters": {"path": "a.txt", "old_string": "A", "new_string": "B"}, "output": "ok", "timestamp": "2026-01-01T00:00:01Z"},
	    {"tool": "search", "parameters": {}, "output": "r", "deterministic": false, "timestamp": "2026-01-01T00:00:02Z"},
	    {"tool": "search", "parameters": {}, "output": "r", "timestamp": "2026-01-01T00:00:03Z"}
	  ],
	  "outputs": [{"name": "a.txt", "content": "B\n", "confidence": "high"}, {"name": "never.txt", "content": "x"}],
	  "environment": {"os": "plan9", "tool_versions": {"read_file": "1.0", "other": "2"}},
	  "metadata": {"run": 7}}`)
	var warnings []string
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	_, rep, err := replayPack(t, st, m, Options{Save: true, Tags: []string{"replayed"}, BuiltinVersion: "ctx test",
		Now: func() time.Time { return at }, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Saved, "ctx://") {
		t.Fatalf("saved %q", rep.Saved)
	}
	h, err := store.ParseHex(strings.TrimPrefix(rep.Saved, "ctx://"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pack.Load(st, h)
	if err != nil {
		t.Fatal(err)
	}
	if problems := pack.CheckClosure(st, s); len(problems) > 0 {
		t.Errorf("the saved pack's closure: %v", problems)
	}
	if s.Parent == nil || s.Parent.String() != m.Hash {
		t.Errorf("parent %v; want %s", s.Parent, m.Hash)
	}
	if s.CreatedText() != "2026-03-01T12:00:00Z" || string(s.Metadata) != `{"run":7}` || *s.SystemPrompt != *m.SystemPrompt || s.Prompts[0].ContentRef != m.Prompts[0].ContentRef {
		t.Errorf("created %s, metadata %s, system prompt or prompts changed", s.CreatedText(), s.Metadata)
	}
	ok := store.Sum([]byte("File edited: a.txt"))
	for i, want := range []struct {
		ref *store.Hash
		ts  string
	}{{m.Steps[0].OutputRef, "2026-03-01T12:00:00Z"}, {&ok, "2026-03-01T12:00:00Z"}, {m.Steps[2].OutputRef, "2026-01-01T00:00:02Z"}, {nil, "2026-01-01T00:00:03Z"}} {
		got := s.Steps[i]
		if !reflect.DeepEqual(got.OutputRef, want.ref) || *got.Timestamp != want.ts {
			t.Errorf("step %d: output %v at %s; want %v at %s", i, got.OutputRef, *got.Timestamp, want.ref, want.ts)
		}
	}
	if b, err := st.ReadAll(ok); err != nil || string(b) != "File edited: a.txt" {
		t.Errorf("the replayed output was not stored: %q, %v", b, err)
	}
	// The outputs are the recorded ones, never.txt too: a replay does not
	// deliver them again (docs/REPLAY.md).
	if !reflect.DeepEqual(s.Outputs, m.Outputs) || !reflect.DeepEqual(s.Inputs, m.Inputs) {
		t.Errorf("outputs %+v, inputs %+v; want the recorded ones", s.Outputs, s.Inputs)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	cur := CurrentPlatform().OS
	if got, want := string(s.Environment), `{"os":"`+cur+`","tool_versions":{"other":"2","read_file":"ctx test"}}`; got != want {
		t.Errorf("environment %s; want %s", got, want)
	}
	if tag, err := st.ReadRef("replayed"); err != nil || tag != h {
		t.Errorf("tag: %v, %v", tag, err)
	}
}

func TestEmitErrorStops(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [], "steps": [{"tool": "x", "output": "1"}, {"tool": "x", "output": "2"}]}`)
	ws, err := NewTempWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Remove()
	defer ws.Close()
	calls := 0
	stop := errors.New("reader went away")
	_, err = Run(context.Background(), st, m, ws, Options{}, func(*Step) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Run = %v after %d steps; want the emit error after 1", err, calls)
	}
}

// TestRejectedStepNeverRuns: a call refused in the recorded run is never
// executed, whatever executor there is (a program, a built-in shell with
// AllowExec), and is counted as skipped; with nothing else run, the
// replay is unverified.
func TestRejectedStepNeverRuns(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	writeScript(t, bin, "ctx-tool-deploy", "touch "+marker+"\necho deployed\n")
	st := storetest.New(t)
	m := packtest.Pack(t, st, fmt.Sprintf(`{"model": {"identifier": "m"}, "prompts": [], "steps": [
	  {"tool": "deploy", "outcome": "rejected", "output": "The user doesn't want to proceed with this tool use."},
	  {"tool": "bash", "parameters": {"command": "touch %s"}, "outcome": "rejected", "output": "refused"}]}`, marker))
	steps, rep, err := replayPack(t, st, m, Options{AllowExec: true, LookupDirs: []string{bin}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused call was executed")
	}
	for i, s := range steps {
		if s.Status != replaystream.SkippedRejected || s.Actual == nil || *s.Actual != *m.Steps[i].OutputRef {
			t.Errorf("step %d: %+v; want skipped_rejected with the refusal as its actual", i, s)
		}
	}
	want := replaystream.Counts{Steps: 2, SkippedRejected: 2}
	if rep.Counts != want || rep.Status != replaystream.Unverified || !strings.Contains(rep.Reason, "2 skipped") {
		t.Errorf("report %+v; want counts %+v, unverified", rep, want)
	}
}

// TestNormalizedOutput: a step is compared with its normalised output
// when it has one: the unchanged file matches, and the replayed run keeps
// the recording, so it shows no drift; another file diverges.
func TestNormalizedOutput(t *testing.T) {
	st := storetest.New(t)
	log := `{"model": {"identifier": "m"}, "prompts": [], "inputs": [{"name": "a.txt", "content": "%s"}], "steps": [
	  {"tool": "Read", "parameters": {"file_path": "a.txt"}, "output": "     1\u2192hello\n", "normalized_output": "hello\n"}]}`
	m := packtest.Pack(t, st, fmt.Sprintf(log, `hello\n`))
	steps, rep, err := replayPack(t, st, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Status != replaystream.Matched || *steps[0].Expected != *m.Steps[0].NormalizedOutputRef || rep.Status != replaystream.Exact {
		t.Fatalf("step %+v, report %s; want matched against the normalised output, exact", steps[0], rep.Status)
	}
	r, _, err := replaystream.Replayed(m, &replaystream.Stream{Steps: records(steps), Report: *rep})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Steps, m.Steps) {
		t.Errorf("the replayed run's step %+v; want the recorded %+v", r.Steps[0], m.Steps[0])
	}

	changed := packtest.Pack(t, st, fmt.Sprintf(strings.Replace(log, `"output"`, `"timestamp": "2026-01-01T00:00:00Z", "output"`, 1), `bye\n`))
	steps, rep, err = replayPack(t, st, changed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Status != replaystream.Diverged || rep.Status != replaystream.Degraded {
		t.Fatalf("step %+v, report %s; want diverged, degraded", steps[0], rep.Status)
	}
	r, _, _ = replaystream.Replayed(changed, &replaystream.Stream{Steps: records(steps), Report: *rep})
	if got := r.Steps[0]; *got.OutputRef != *steps[0].Actual || *got.NormalizedOutputRef != *steps[0].Actual {
		t.Errorf("the replayed step %+v; want what ran as its output and its normalised output", got)
	}
}

// TestShellCommandNotFound: status 127 (and 126) means the shell could not
// run the command: the step fails, it is not a divergence.
func TestShellCommandNotFound(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [], "steps": [
	  {"tool": "bash", "parameters": {"command": "no-such-program-ctx --flag"}, "output": "ok"},
	  {"tool": "bash", "parameters": {"command": "exit 3"}, "output": ""}]}`)
	steps, rep, err := replayPack(t, st, m, Options{AllowExec: true})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Status != replaystream.Failed || !strings.Contains(steps[0].Reason, "status 127 (command not found)") || !strings.Contains(steps[0].Reason, "no-such-program-ctx") {
		t.Errorf("step 0: %+v; want failed, command not found", steps[0])
	}
	if steps[1].Status != replaystream.Matched {
		t.Errorf("step 1: %+v; a command that ran and exited 3 ran", steps[1])
	}
	if rep.Status != replaystream.FailedReplay || rep.Counts.Reexecuted != 1 {
		t.Errorf("report %+v", rep)
	}
}

// TestSWEAgentTools: in a run SWE-agent made, its commands are SWE-agent's
// (edit is its search/replace, never the built-in path edit), a shell step
// holding one of them runs it, and submit, which has no executor, is a
// missing tool named submit.
func TestSWEAgentTools(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [], "metadata": {"source_format": "swe-agent"},
	  "inputs": [{"name": "t.py", "content": "def f(a)\n    return a\n"}], "steps": [
	  {"tool": "open", "parameters": {"path": "t.py"}, "output": "[File: t.py (2 lines total)]\n1:def f(a)\n2:    return a\n"},
	  {"tool": "edit", "parameters": {"search": "def f(a)", "replace": "def f(a):"}, "output": "x"},
	  {"tool": "bash", "parameters": {"command": "goto 2\n"}, "output": "[File: ./t.py (2 lines total)]\n1:def f(a):\n2:    return a\n"},
	  {"tool": "submit", "parameters": {}, "output": "diff"},
	  {"tool": "bash", "parameters": {"command": "submit"}, "output": "diff"},
	  {"tool": "bash", "parameters": {"command": "open t.py\nrm t.py"}, "output": ""}]}`)
	steps, rep, err := replayPack(t, st, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"matched", "diverged", "matched",
		`failed: no executor for SWE-agent's submit: SWE-agent's submit writes the git diff of the task's repository against its base commit, which a pack does not hold (a ctx-tool-submit program can run it)`,
		`failed: no executor for SWE-agent's submit: SWE-agent's submit writes the git diff of the task's repository against its base commit, which a pack does not hold (a ctx-tool-bash program can run it)`,
		// Two commands: a shell's job, and a shell runs only with --allow-exec.
		"not_allowed: tool bash runs shell commands, which replay runs only with --allow-exec"}
	if got := statuses(steps); !reflect.DeepEqual(got, want) {
		t.Errorf("statuses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := driftJSON(t, rep.Drift); got != `[{"kind":"missing_tool","tool":"submit","steps":[3,4]}]` {
		t.Errorf("drift %s", got)
	}
	// The same tool names in a run of another agent are the built-ins.
	other := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [],
	  "inputs": [{"name": "t.py", "content": "a\n"}], "steps": [
	  {"tool": "edit", "parameters": {"path": "t.py", "old_string": "a", "new_string": "b"}, "output": "File edited: t.py"}]}`)
	if steps, _, _ := replayPack(t, st, other, Options{}); steps[0].Status != replaystream.Matched {
		t.Errorf("a built-in edit outside SWE-agent runs: %+v", steps[0])
	}
}

func TestRuntimeDrift(t *testing.T) {
	versions := map[string]string{"python3": "Python 3.12.4\n", "node": "v20.11.1\n", "go": "go version go1.22.5 linux/amd64\n"}
	run := func(_ context.Context, argv []string) (string, error) {
		if v, ok := versions[argv[0]]; ok {
			return v, nil
		}
		return "", fmt.Errorf("no %s on this machine", argv[0])
	}
	for _, tt := range []struct{ recorded, want string }{
		{"", "null"},
		{"python3.12", "null"},
		{"CPython 3.12.4", "null"},
		{"cpython 3.11", `{"current":"python 3.12.4"}`},
		{"python", "null"},
		{"node v20.11.1", "null"},
		{"nodejs 18", `{"current":"node 20.11.1"}`},
		{"go1.23.4", `{"current":"go 1.22.5"}`},
		{"ruby 3.2", `{"reason":"no ruby on this machine"}`},
		{"jvm 21", `{"reason":"a runtime ctx does not know how to ask for"}`},
		{"pypy3.9", `{"reason":"a runtime ctx does not know how to ask for"}`},
	} {
		d := runtimeDrift(context.Background(), tt.recorded, run)
		got := "null"
		if d != nil {
			v := map[string]any{}
			if d.current != nil {
				v["current"] = *d.current
			}
			if d.reason != "" {
				v["reason"] = d.reason
			}
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tt.want {
			t.Errorf("runtime %q: %s; want %s", tt.recorded, got, tt.want)
		}
	}
}
