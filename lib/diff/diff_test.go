package diff

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// run is a small manifest for tests: content is given as text and hashed.
type run struct {
	model   string
	params  string
	system  string
	prompts [][2]string // role, text
	inputs  [][2]string // name, text
	steps   [][3]string // tool, parameters, output ("" for none)
	outputs [][2]string // name, text
	env     string
}

func (r run) manifest() *pack.Manifest {
	h := func(s string) store.Hash { return store.Sum([]byte(s)) }
	m := &pack.Manifest{
		Version: pack.Version, Created: ptr("2026-01-01T00:00:00Z"),
		Model:   pack.Model{Identifier: r.model, Parameters: json.RawMessage(or(r.params, "{}"))},
		Prompts: []pack.Prompt{}, Inputs: []pack.File{}, Steps: []pack.Step{}, Outputs: []pack.Output{},
		Environment: json.RawMessage(or(r.env, "{}")),
	}
	if m.Model.Identifier == "" {
		m.Model.Identifier = "m1"
	}
	if r.system != "" {
		s := h(r.system)
		m.SystemPrompt = &s
	}
	for _, p := range r.prompts {
		m.Prompts = append(m.Prompts, pack.Prompt{Role: p[0], ContentRef: h(p[1])})
	}
	for _, f := range r.inputs {
		m.Inputs = append(m.Inputs, pack.File{Name: f[0], ContentRef: h(f[1]), Size: int64(len(f[1]))})
	}
	for i, s := range r.steps {
		st := pack.Step{Index: i, Type: "tool_call", Tool: s[0], Parameters: json.RawMessage(or(s[1], "{}")), Deterministic: true}
		if s[2] != "" {
			o, n := h(s[2]), int64(len(s[2]))
			st.OutputRef, st.OutputSize = &o, &n
		}
		m.Steps = append(m.Steps, st)
	}
	for _, o := range r.outputs {
		m.Outputs = append(m.Outputs, pack.Output{Name: o[0], ContentRef: h(o[1]), Size: int64(len(o[1]))})
	}
	_, hash, err := pack.Encode(m)
	if err != nil {
		panic(err)
	}
	m.Hash = hash.String()
	return m
}

func ptr(s string) *string { return &s }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func base() run {
	return run{
		system:  "be careful",
		prompts: [][2]string{{"user", "fix the test"}},
		inputs:  [][2]string{{"a.go", "package a"}},
		steps: [][3]string{
			{"read_file", `{"path":"a.go"}`, "package a"},
			{"edit_file", `{"path":"a.go","old":"a","new":"b"}`, "ok"},
			{"bash", `{"command":"go test"}`, "PASS"},
		},
		outputs: [][2]string{{"report.md", "fixed"}},
		env:     `{"os":"linux","tool_versions":{"bash":"5.1"}}`,
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(r *run)
		align string
		want  []string // "type section change detail" per entry
		first int      // -1: null
	}{
		{"identical", func(r *run) {}, "", nil, -1},
		{"system prompt", func(r *run) { r.system = "be bold" }, "",
			[]string{"prompt_drift system_prompt modified system prompt changed from " + sh("be careful") + " to " + sh("be bold")}, -1},
		{"user prompt added", func(r *run) { r.prompts = append(r.prompts, [2]string{"user", "and docs"}) }, "",
			[]string{"prompt_drift prompts added prompt 1 (user) added (" + sh("and docs") + ")"}, -1},
		{"prompt role", func(r *run) { r.prompts[0][0] = "assistant" }, "",
			[]string{"prompt_drift prompts modified prompt 0: role changed from user to assistant"}, -1},
		{"model", func(r *run) { r.model = "m2"; r.params = `{"temperature":0.5}` }, "",
			[]string{"model_drift model modified model identifier changed from m1 to m2",
				"model_drift model added model parameter /temperature added (0.5)"}, -1},
		{"input", func(r *run) { r.inputs[0][1] = "package b" }, "",
			[]string{"input_drift inputs modified input a.go changed from " + sh("package a") + " (9 B) to " + sh("package b") + " (9 B)"}, -1},
		{"tool", func(r *run) { r.steps[2][0] = "execute_command" }, "",
			[]string{"tool_drift steps modified step 2: tool changed from bash to execute_command"}, 2},
		{"param and output", func(r *run) { r.steps[0][1] = `{"path":"b.go"}`; r.steps[0][2] = "package b" }, "",
			[]string{"param_drift steps modified step 0 read_file: parameter /path changed from a.go to b.go",
				"reasoning_drift steps modified step 0 read_file: output changed from " + sh("package a") + " (9 B) to " + sh("package b") + " (9 B)"}, 0},
		{"params in another order are the same", func(r *run) { r.steps[1][1] = `{"new":"b","old":"a","path":"a.go"}` }, "", nil, -1},
		{"step removed", func(r *run) { r.steps = r.steps[:2] }, "",
			[]string{"tool_drift steps removed step 2 bash: removed (only in A)"}, 2},
		{"step inserted, by index", func(r *run) {
			r.steps = append([][3]string{r.steps[0], {"list_dir", `{"path":"."}`, "a.go"}}, r.steps[1:]...)
		}, "", []string{
			"tool_drift steps modified step 1: tool changed from edit_file to list_dir",
			"tool_drift steps modified step 2: tool changed from bash to edit_file",
			"tool_drift steps added step 3 bash: added (only in B)"}, 1},
		{"step inserted, by sequence", func(r *run) {
			r.steps = append([][3]string{r.steps[0], {"list_dir", `{"path":"."}`, "a.go"}}, r.steps[1:]...)
		}, AlignSequence, []string{"tool_drift steps added step 1 list_dir: added (only in B)"}, 1},
		{"inserted step then changed parameters, by sequence", func(r *run) {
			r.steps = append([][3]string{r.steps[0], {"list_dir", `{}`, "a.go"}}, r.steps[1:]...)
			r.steps[3][1] = `{"command":"go vet"}`
		}, AlignSequence, []string{
			"tool_drift steps added step 1 list_dir: added (only in B)",
			"param_drift steps modified step 2 (3 in B) bash: parameter /command changed from \"go test\" to \"go vet\""}, 1},
		{"output", func(r *run) { r.outputs = [][2]string{{"notes.md", "x"}} }, "",
			[]string{"output_drift outputs added output notes.md added (" + sh("x") + ", 1 B)",
				"output_drift outputs removed output report.md removed (was " + sh("fixed") + ", 5 B)"}, -1},
		{"environment", func(r *run) { r.env = `{"os":"darwin","tool_versions":{"bash":"5.2"}}` }, "",
			[]string{"environment_drift environment modified environment os changed from linux to darwin",
				"environment_drift environment modified tool version of bash changed from 5.1 to 5.2"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := base()
			tt.edit(&b)
			a := base().manifest()
			r, err := Compare(a, b.manifest(), Options{Align: tt.align})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range r.Drift {
				got = append(got, e.Type+" "+e.Section+" "+e.Change+" "+e.Detail)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("drift:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
			}
			if r.Summary.Total != len(tt.want) {
				t.Errorf("summary total %d, want %d", r.Summary.Total, len(tt.want))
			}
			switch {
			case tt.first < 0 && r.FirstDivergence != nil:
				t.Errorf("first_divergence %d, want null", *r.FirstDivergence)
			case tt.first >= 0 && (r.FirstDivergence == nil || *r.FirstDivergence != tt.first):
				t.Errorf("first_divergence %v, want %d", r.FirstDivergence, tt.first)
			}
		})
	}
}

func TestCompareEntryFields(t *testing.T) {
	b := base()
	b.steps[1][2] = "not ok"
	r, err := Compare(base().manifest(), b.manifest(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Drift) != 1 {
		t.Fatalf("want one entry, got %d", len(r.Drift))
	}
	got, _ := json.Marshal(r.Drift[0])
	want := `{"type":"reasoning_drift","section":"steps","step":1,"change":"modified","tool":"edit_file",` +
		`"a":"` + store.Sum([]byte("ok")).String() + `","b":"` + store.Sum([]byte("not ok")).String() + `",` +
		`"a_size":2,"b_size":6,"detail":"step 1 edit_file: output changed from ` + sh("ok") + ` (2 B) to ` + sh("not ok") + ` (6 B)"}`
	if string(got) != want {
		t.Errorf("entry:\n got %s\nwant %s", got, want)
	}
}

func TestCompareUnknownAlignment(t *testing.T) {
	if _, err := Compare(base().manifest(), base().manifest(), Options{Align: "fuzzy"}); err == nil {
		t.Fatal("an unknown alignment is accepted")
	}
}

func sh(s string) string { return store.Sum([]byte(s)).Short() }

// TestReportAlignment: the report carries the alignment it compared by, for
// a view that draws the two runs side by side; the JSON report does not.
func TestReportAlignment(t *testing.T) {
	a := base()
	b := base()
	b.steps = append([][3]string{b.steps[0], {"list_dir", `{"path":"."}`, "a.go"}}, b.steps[1:]...)
	for _, tt := range []struct {
		align string
		want  []Pair
	}{
		{AlignIndex, []Pair{{0, 0}, {1, 1}, {2, 2}, {-1, 3}}},
		{AlignSequence, []Pair{{0, 0}, {-1, 1}, {1, 2}, {2, 3}}},
	} {
		r, err := Compare(a.manifest(), b.manifest(), Options{Align: tt.align})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Alignment, tt.want) {
			t.Errorf("%s: alignment %v, want %v", tt.align, r.Alignment, tt.want)
		}
		doc, _ := json.Marshal(r)
		if strings.Contains(string(doc), "lignment") {
			t.Errorf("%s: the JSON report carries the alignment: %s", tt.align, doc)
		}
	}
}

// TestCompareModelCallsOutcomesAndNormalized covers what a step's tool
// does not say alone: a model call names its model, a refused call did
// not run, and a normalised output is the plain result.
func TestCompareModelCallsOutcomesAndNormalized(t *testing.T) {
	h := func(s string) *store.Hash { x := store.Sum([]byte(s)); return &x }
	step := func(typ, tool, out string) pack.Step {
		return pack.Step{Type: typ, Tool: tool, Parameters: json.RawMessage("{}"), OutputRef: h(out)}
	}
	manifest := func(model string, steps ...pack.Step) *pack.Manifest {
		m := base().manifest()
		m.Model.Identifier, m.Steps = model, steps
		for i := range m.Steps {
			m.Steps[i].Index = i
		}
		return m
	}
	withNorm := func(s pack.Step, norm string) pack.Step { s.NormalizedOutputRef = h(norm); return s }
	refused := func(s pack.Step) pack.Step { s.Outcome = pack.OutcomeRejected; return s }
	tests := []struct {
		name string
		a, b *pack.Manifest
		want []string // type section field detail
	}{
		{"another model, the same answer",
			manifest("ollama/gemma3", step("model_call", "gemma3", "Yes")),
			manifest("ollama/llama3.1", step("model_call", "ollama/llama3.1", "Yes")),
			[]string{"model_drift model /identifier model identifier changed from ollama/gemma3 to ollama/llama3.1"}},
		{"another model, another answer",
			manifest("a", step("model_call", "a", "Yes")),
			manifest("b", step("model_call", "b", "No")),
			[]string{"model_drift model /identifier model identifier changed from a to b",
				"reasoning_drift steps  step 0 model call: output changed from " + sh("Yes") + " to " + sh("No")}},
		{"a step's own model changed",
			manifest("a", step("model_call", "sub-1", "x")),
			manifest("a", step("model_call", "sub-2", "x")),
			[]string{"model_drift steps /tool step 0: model changed from sub-1 to sub-2"}},
		{"a model call against a tool call",
			manifest("a", step("model_call", "a", "x")),
			manifest("a", step("tool_call", "ls", "x")),
			[]string{"tool_drift steps  step 0: tool changed from a to ls"}},
		{"refused in B",
			manifest("a", step("tool_call", "Bash", "ok")),
			manifest("a", refused(step("tool_call", "Bash", "refused"))),
			[]string{"tool_drift steps outcome step 0 Bash: ran in A, refused (never ran) in B"}},
		{"refused in both",
			manifest("a", refused(step("tool_call", "Bash", "refused"))),
			manifest("a", refused(step("tool_call", "Bash", "refused"))), nil},
		{"normalised outputs equal, verbatim ones not",
			manifest("a", withNorm(step("tool_call", "Glob", "/tmp/x/a.go"), "a.go\n")),
			manifest("a", withNorm(step("tool_call", "Glob", "/tmp/y/a.go"), "a.go\n")), nil},
		{"normalised outputs differ",
			manifest("a", withNorm(step("tool_call", "Read", "     1\u2192a"), "a")),
			manifest("a", withNorm(step("tool_call", "Read", "     1\u2192b"), "b")),
			[]string{"reasoning_drift steps normalized_output step 0 Read: output (normalized) changed from " + sh("a") + " to " + sh("b")}},
		{"one side without a normalised output",
			manifest("a", withNorm(step("tool_call", "Read", "     1\u2192a"), "a")),
			manifest("a", step("tool_call", "Read", "a")),
			[]string{"reasoning_drift steps  step 0 Read: output changed from " + sh("     1\u2192a") + " to " + sh("a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, align := range []string{AlignIndex, AlignSequence} {
				r, err := Compare(tt.a, tt.b, Options{Align: align})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range r.Drift {
					got = append(got, e.Type+" "+e.Section+" "+e.Field+" "+e.Detail)
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("%s:\n got %s\nwant %s", align, strings.Join(got, "\n     "), strings.Join(tt.want, "\n     "))
				}
			}
		})
	}
}

// TestDriftTypesOnce holds the one list of drift types (Types) to the
// summary's counters: each type once, each with its counter, and no
// counter without its type.
func TestDriftTypesOnce(t *testing.T) {
	b, err := json.Marshal(Summary{})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]int
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "total")
	seen := map[string]bool{}
	var s Summary
	for i, dt := range Types() {
		if seen[dt.Type] || dt.Short == "" || dt.Type != dt.Short+"_drift" {
			t.Errorf("type %+v: repeated or misnamed", dt)
		}
		seen[dt.Type] = true
		if _, ok := fields[dt.Type]; !ok {
			t.Errorf("type %s has no counter in Summary", dt.Type)
		}
		for j := 0; j <= i; j++ {
			s.add(dt.Type)
		}
	}
	if len(fields) != len(seen) {
		t.Errorf("Summary counts %d types, Types lists %d", len(fields), len(seen))
	}
	for i, c := range s.Counts() {
		if c.N != i+1 || c.DriftType != Types()[i] {
			t.Errorf("Counts()[%d] = %+v: not in the order of Types", i, c)
		}
	}
}
