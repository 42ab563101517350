package convert

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// atifSchema compiles the JSON Schema of ATIF v1.0 to v1.7. Upstream
// publishes none (Harbor validates with pydantic): this one was DERIVED by
// hand from the ATIF RFC v1.7 and Harbor's v1.5 models, and validates all
// of Harbor's golden trajectories (see its description).
func atifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	f, err := os.Open(filepath.Join("testdata", "atif-v1.7.schema.DERIVED.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := c.AddResource("atif.json", f); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("atif.json")
	if err != nil {
		t.Fatal(err)
	}
	// The schema is no help if it takes anything.
	var bad any
	_ = json.Unmarshal([]byte(`{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"m","tool_calls":[]}]}`), &bad)
	if s.Validate(bad) == nil {
		t.Fatal("the schema takes tool calls on a user step")
	}
	return s
}

// packATIF converts a corpus file, packs it into st and writes the pack
// as ATIF.
func packATIF(t *testing.T, st *store.Store, path string) []byte {
	t.Helper()
	_, log, _, err := convertFile(t, path, Options{Model: "test-model"})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	// A transcript of several runs (an OpenHands output.jsonl) gives a
	// log each: the first is written.
	first, err := io.ReadAll(pack.NewLogs(bytes.NewReader(log)).Next())
	if err != nil {
		t.Fatal(err)
	}
	m := packtest.Pack(t, st, string(first))
	var out bytes.Buffer
	blob := func(ref string) ([]byte, error) {
		h, err := store.ParseRef(ref)
		if err != nil {
			return nil, err
		}
		return st.ReadAll(h)
	}
	if err := WriteATIF(&out, m, blob); err != nil {
		t.Fatalf("WriteATIF: %v", err)
	}
	return out.Bytes()
}

func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%.400s", err, b)
	}
	return v
}

// checkATIF validates a trajectory against the schema and the rules the
// schema cannot say: step ids run 1, 2, 3...; a result's source_call_id
// names a tool call of its own step.
func checkATIF(t *testing.T, schema *jsonschema.Schema, name string, b []byte) map[string]any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	if err := schema.Validate(v); err != nil {
		t.Fatalf("%s: the ATIF does not validate: %#v", name, err)
	}
	doc := v.(map[string]any)
	for i, s := range doc["steps"].([]any) {
		sm := s.(map[string]any)
		if id := sm["step_id"].(float64); int(id) != i+1 {
			t.Errorf("%s: steps[%d].step_id is %v", name, i, id)
		}
		ids := map[string]bool{}
		calls, _ := sm["tool_calls"].([]any)
		for _, c := range calls {
			id := c.(map[string]any)["tool_call_id"].(string)
			if ids[id] {
				t.Errorf("%s: steps[%d] has tool_call_id %s twice", name, i, id)
			}
			ids[id] = true
		}
		obs, _ := sm["observation"].(map[string]any)
		res, _ := obs["results"].([]any)
		for _, r := range res {
			if src, ok := r.(map[string]any)["source_call_id"].(string); ok && !ids[src] {
				t.Errorf("%s: steps[%d] has a result for %s, no call of its own", name, i, src)
			}
		}
	}
	return doc
}

// TestATIFRoundTrip converts each ATIF file of the corpus to a log, packs
// it and writes the pack back as ATIF: every step, tool call and
// observation comes back as it was, field by field, and so does the rest
// of the trajectory.
func TestATIFRoundTrip(t *testing.T) {
	st := storetest.New(t)
	schema := atifSchema(t)
	n := 0
	for path, format := range corpusFiles(t) {
		if format != "atif" {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			_, _, warns, err := convertFile(t, path, Options{Model: "test-model"})
			if err != nil {
				t.Fatal(err)
			}
			lenient := slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "not as ATIF has it") })
			if lenient {
				// A trajectory that breaks the format is written back as
				// it was read, odd values and all: JSON, not ATIF to the
				// letter, so neither validated nor compared.
				decodeAny(t, packATIF(t, st, path))
				return
			}
			orig := decodeAny(t, readCorpus(t, path)).(map[string]any)
			if sv, _ := orig["schema_version"].(string); !strings.HasPrefix(sv, "ATIF-") {
				// An ATIF-like variant is read, not written back: the way
				// back writes ATIF.
				return
			}
			out := packATIF(t, st, path)
			checkATIF(t, schema, filepath.Base(path), out)
			back := decodeAny(t, out).(map[string]any)
			os, bs := orig["steps"].([]any), back["steps"].([]any)
			if len(os) != len(bs) {
				t.Fatalf("%d steps back, %d in the trajectory", len(bs), len(os))
			}
			for i := range os {
				compareFields(t, fmt.Sprintf("steps[%d]", i), os[i], bs[i])
			}
			for k := range orig {
				if k != "steps" {
					compareFields(t, k, orig[k], back[k])
				}
			}
			for k := range back {
				if _, ok := orig[k]; !ok {
					t.Errorf("%s: added by the round trip", k)
				}
			}
		})
	}
	if n < 10 {
		t.Errorf("only %d ATIF files in the corpus", n)
	}
}

// compareFields reports every field that differs, by its path.
func compareFields(t *testing.T, path string, a, b any) {
	t.Helper()
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for k := range am {
			compareFields(t, path+"."+k, am[k], bm[k])
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				t.Errorf("%s.%s: added: %.200v", path, k, bm[k])
			}
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			compareFields(t, fmt.Sprintf("%s[%d]", path, i), al[i], bl[i])
		}
		return
	}
	if !jsonEqual(a, b) {
		t.Errorf("%s: %.200v, back as %.200v", path, a, b)
	}
}

// jsonEqual compares two decoded values, numbers by value.
func jsonEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		af, _ := an.Float64()
		bf, _ := bn.Float64()
		return af == bf
	}
	return reflect.DeepEqual(a, b)
}

// readCorpus reads a corpus file, decompressed when it is gzip.
func readCorpus(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

// TestATIFFromEveryFormat writes a pack of every other corpus file as
// ATIF: it validates against the schema, has a step per prompt, model
// call and event, and a tool call (with its result, where there is one)
// per tool_call step.
func TestATIFFromEveryFormat(t *testing.T) {
	st := storetest.New(t)
	schema := atifSchema(t)
	for path, format := range corpusFiles(t) {
		if format == "atif" {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			doc := checkATIF(t, schema, filepath.Base(path), packATIF(t, st, path))
			if doc["schema_version"] != ATIFVersion {
				t.Errorf("schema_version %v", doc["schema_version"])
			}
			_, log, _, _ := convertFile(t, path, Options{Model: "test-model"})
			m := checkLogs(t, path, log)[0]
			calls, results := 0, 0
			for _, s := range doc["steps"].([]any) {
				sm := s.(map[string]any)
				c, _ := sm["tool_calls"].([]any)
				calls += len(c)
				if obs, ok := sm["observation"].(map[string]any); ok {
					results += len(obs["results"].([]any))
				}
			}
			wantCalls, wantResults := 0, 0
			for _, s := range m.Steps {
				if s.Type == "tool_call" {
					wantCalls++
					if s.OutputRef != nil {
						wantResults++
					}
				}
			}
			if calls != wantCalls || results != wantResults {
				t.Errorf("%d tool calls and %d results, the pack has %d and %d", calls, results, wantCalls, wantResults)
			}
		})
	}
}

// TestATIFOutMapsAPack checks the mapping on a small log: the system
// prompt, a prompt, reasoning and text of one model call with its tool
// calls and results, usage as metrics, a refused call, an event.
func TestATIFOutMapsAPack(t *testing.T) {
	log := `{"event":"run","created":"2026-01-01T00:00:00Z","model":{"identifier":"m1"},"system_prompt":"be brief","metadata":{"source_format":"codex","session_id":"s-1"}}
{"event":"prompt","content":"list files","metadata":{"at_step":0}}
{"event":"step","type":"model_call","tool":"m1","parameters":{"thinking":true},"output":"hmm","deterministic":false}
{"event":"step","type":"model_call","tool":"m1","parameters":{},"output":"I will look","deterministic":false,"timestamp":"2026-01-01T00:00:01Z","metadata":{"usage":{"input_tokens":100,"output_tokens":20,"cached_input_tokens":64}}}
{"event":"step","type":"tool_call","tool":"shell","parameters":{"command":"ls"},"output":"a.go\n","metadata":{"tool_call_id":"c1"}}
{"event":"step","type":"tool_call","tool":"shell","parameters":{"command":"rm -rf /"},"output":"exec command rejected by user","outcome":"rejected","metadata":{"tool_call_id":"c2"}}
{"event":"step","type":"event","tool":"turn_aborted","parameters":{},"output":"interrupted","deterministic":false}
{"event":"prompt","content":"thanks","metadata":{"at_step":5}}
`
	st := storetest.New(t)
	m := packtest.Pack(t, st, log)
	var out bytes.Buffer
	err := WriteATIF(&out, m, func(ref string) ([]byte, error) {
		h, err := store.ParseRef(ref)
		if err != nil {
			return nil, err
		}
		return st.ReadAll(h)
	})
	if err != nil {
		t.Fatal(err)
	}
	doc := checkATIF(t, atifSchema(t), "log", out.Bytes())
	var got []string
	for _, s := range doc["steps"].([]any) {
		sm := s.(map[string]any)
		line := fmt.Sprintf("%v %v %q", sm["step_id"], sm["source"], sm["message"])
		if rc, ok := sm["reasoning_content"]; ok {
			line += fmt.Sprintf(" reasoning=%q", rc)
		}
		for _, c := range asList(sm["tool_calls"]) {
			cm := c.(map[string]any)
			line += fmt.Sprintf(" call=%v:%v", cm["tool_call_id"], cm["function_name"])
			if ctx, ok := cm["extra"].(map[string]any)["ctx"].(map[string]any); ok && ctx["outcome"] != nil {
				line += fmt.Sprintf("(%v)", ctx["outcome"])
			}
		}
		if obs, ok := sm["observation"].(map[string]any); ok {
			for _, r := range asList(obs["results"]) {
				rm := r.(map[string]any)
				line += fmt.Sprintf(" result=%v:%q", rm["source_call_id"], rm["content"])
			}
		}
		if mt, ok := sm["metrics"].(map[string]any); ok {
			line += fmt.Sprintf(" metrics=%v/%v/%v", mt["prompt_tokens"], mt["completion_tokens"], mt["cached_tokens"])
		}
		got = append(got, line)
	}
	want := []string{
		`1 system "be brief"`,
		`2 user "list files"`,
		`3 agent "I will look" reasoning="hmm" call=c1:shell call=c2:shell(rejected) result=c1:"a.go\n" result=c2:"exec command rejected by user" metrics=100/20/64`,
		`4 system "interrupted"`,
		`5 user "thanks"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a := doc["agent"].(map[string]any); a["name"] != "codex" || a["model_name"] != "m1" || doc["session_id"] != "s-1" {
		t.Errorf("agent %v, session %v", a, doc["session_id"])
	}
	fm := doc["final_metrics"].(map[string]any)
	if fm["total_prompt_tokens"] != float64(100) || fm["total_steps"] != float64(5) {
		t.Errorf("final_metrics %v", fm)
	}
	if ctx := doc["extra"].(map[string]any)["ctx"].(map[string]any); ctx["pack"] != m.Hash {
		t.Errorf("extra.ctx.pack %v, want %s", ctx["pack"], m.Hash)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestATIFLenient reads trajectories that break the format: each converts
// (never refused while it has steps), the odd part read as the table
// says, and a warning says what was odd and where.
func TestATIFLenient(t *testing.T) {
	cases := []struct {
		name, in, warn string
		want           []string // type tool output [error], per step
	}{
		{"a source the format does not have",
			`{"schema_version":"ATIF-v1.5","agent":{},"steps":[{"step_id":1,"source":"bot","message":"hi"}]}`,
			`1× a step whose source is "bot" (read as an event step named for it) (.steps[0].source)`,
			[]string{"event bot hi"}},
		{"a result's content an object",
			`{"schema_version":"ATIF-v1.4","agent":{},"steps":[{"step_id":1,"source":"system","message":"m","observation":{"results":[{"content":{"command":"ls"}}]}}]}`,
			`1× a message or content that is an object, not text (its JSON text read) (.steps[0].observation.results[0].content)`,
			[]string{"event system m", `event observation {"command":"ls"}`}},
		{"arguments as JSON text",
			`{"schema_version":"ATIF-v1.5","agent":{},"steps":[{"step_id":1,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":"{\"a\":1}"}]}]}`,
			`1× arguments given as JSON text, not an object (.steps[0].tool_calls[0].arguments)`,
			[]string{"model_call m ", `tool_call f {"a":1} `}},
		{"results null, the result in the next step",
			`{"schema_version":"ATIF-v1.6","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"agent","message":"go","tool_calls":[{"tool_call_id":"c","function_name":"ls","arguments":{}}],"observation":{"results":null}},{"step_id":2,"source":"system","message":"","observation":{"results":[{"source_call_id":"c","content":"a b"}]}}]}`,
			`1× an observation with no results (results absent or null) (.steps[0].observation)`,
			[]string{"model_call m go", "tool_call ls {} a b", "event system "}},
		{"a result naming a call the trajectory does not hold",
			`{"schema_version":"ATIF-v1.4","agent":{},"steps":[{"step_id":1,"source":"system","message":"done","observation":{"results":[{"source_call_id":"subtask-1","content":"ok"}]}}]}`,
			`1 tool result(s) answer no call`,
			[]string{"event system done", "event orphan_result ok"}},
		{"counts that disagree, a step that is no object",
			`{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"q"},7],"final_metrics":{"total_steps":5}}`,
			`1× final_metrics.total_steps 5, but 2 steps (.final_metrics.total_steps)`,
			[]string{}},
		{"a version this reader does not know",
			`{"schema_version":"ATIF-v2.0","agent":{"name":"a","version":"1","model_name":"m"},"steps":[{"step_id":1,"source":"agent","message":"x"}]}`,
			`1× a schema_version this reader does not know (ATIF-v2.0): read as the latest it knows`,
			[]string{"model_call m x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var warns []string
			if _, err := Convert(strings.NewReader(c.in), nil, &out, Options{From: "atif", Model: "m", Warn: func(s string) { warns = append(warns, s) }}); err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, c.warn) }) {
				t.Errorf("warnings %q, want one saying %q", warns, c.warn)
			}
			checkPacks(t, c.name, out.Bytes())
			got := []string{}
			for _, line := range strings.Split(out.String(), "\n") {
				var ev struct {
					Event, Type, Tool, Output string
					Parameters                map[string]any
				}
				if json.Unmarshal([]byte(line), &ev) != nil || ev.Event != "step" {
					continue
				}
				s := ev.Type + " " + ev.Tool + " " + ev.Output
				if ev.Type == "tool_call" {
					p, _ := json.Marshal(ev.Parameters)
					s = ev.Type + " " + ev.Tool + " " + string(p) + " " + ev.Output
				}
				got = append(got, s)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("steps %q, want %q", got, c.want)
			}
		})
	}
}
