package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestTaskOutcomeEnd checks the run's task, outcome and end state: taken
// from the document form and from the run event alike, written into the
// canonical manifest at their sorted places, by the fast writer and the
// reference alike, and absent (same hash as before) when not given.
func TestTaskOutcomeEnd(t *testing.T) {
	const fields = `"task":{"id":"django__django-11099","epoch":2,"name":"fix"},` +
		`"outcome":{"passed":false,"score":0.25,"value":{"FAIL_TO_PASS":["t1"]},"source":"report.json"},` +
		`"end":{"state":"iteration_limit","message":"Agent reached maximum iteration"}`
	doc := `{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t"}],` + fields + `}`
	stream := `{"event":"run","model":{"identifier":"m"},` + fields + "}\n" + `{"event":"step","tool":"t"}` + "\n"
	plain := `{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t"}]}`

	var hashes []string
	for _, log := range []string{doc, stream} {
		res, warnings, err := build(t, log, Options{Strict: true})
		if err != nil || len(warnings) > 0 {
			t.Fatalf("Build: %v %q", err, warnings)
		}
		m := res.Manifest
		canon, _, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`"created":null,"end":{"message":"Agent reached maximum iteration","state":"iteration_limit"},"environment"`,
			`"outcome":{"passed":false,"score":0.25,"source":"report.json","value":{"FAIL_TO_PASS":["t1"]}},"outputs"`,
			`"system_prompt":null,"task":{"epoch":2,"id":"django__django-11099","name":"fix"},"version"`,
		} {
			if !bytes.Contains(canon, []byte(want)) {
				t.Errorf("canonical form\n%s\nlacks %s", canon, want)
			}
		}
		sameEncoding(t, m)
		back := mustParse(t, canon)
		if back.Task == nil || *back.Task != *m.Task || back.End == nil || *back.End != *m.End || back.Outcome == nil || *back.Outcome.Passed {
			t.Errorf("parsed back: %+v %+v %+v", back.Task, back.Outcome, back.End)
		}
		hashes = append(hashes, hashOf(t, m))
	}
	if hashes[0] != hashes[1] {
		t.Errorf("document and stream differ: %s %s", hashes[0], hashes[1])
	}
	res, _, err := build(t, plain, Options{})
	if err != nil {
		t.Fatal(err)
	}
	canon, _, _ := Encode(res.Manifest)
	for _, k := range []string{`"task"`, `"outcome"`, `"end"`} {
		if bytes.Contains(canon, []byte(k)) {
			t.Errorf("a log without %s has it in its manifest: %s", k, canon)
		}
	}
	if hashOf(t, res.Manifest) == hashes[0] {
		t.Error("the fields do not change the hash")
	}
}

// TestTaskOutcomeEndProblems names each bad field by its path.
func TestTaskOutcomeEndProblems(t *testing.T) {
	cases := []struct{ name, fields, problem string }{
		{"task not object", `"task":"x"`, "task: must be an object, not a string"},
		{"task id missing", `"task":{"epoch":1}`, "task.id: missing"},
		{"task id empty", `"task":{"id":""}`, "task.id: empty"},
		{"task id number", `"task":{"id":27}`, `task.id: must be a string, not a number (write it as "27")`},
		{"epoch zero", `"task":{"id":"a","epoch":0}`, "task.epoch: must be an integer from 1, not 0"},
		{"epoch fraction", `"task":{"id":"a","epoch":1.5}`, "task.epoch: must be an integer from 1, not 1.5"},
		{"epoch string", `"task":{"id":"a","epoch":"2"}`, `task.epoch: must be an integer from 1, not "2"`},
		{"name number", `"task":{"id":"a","name":3}`, "task.name: must be a string, not a number"},
		{"outcome empty", `"outcome":{"source":"x"}`, "outcome: gives none of passed, score and value"},
		{"passed string", `"outcome":{"passed":"yes"}`, "outcome.passed: must be true or false, not a string"},
		{"score array", `"outcome":{"score":[1]}`, "outcome.score: must be a number or a string, not an array"},
		{"score huge", `"outcome":{"score":123456789012345678901}`, "outcome.score"},
		{"outcome array", `"outcome":[]`, "outcome: must be an object, not an array"},
		{"end state missing", `"end":{"message":"x"}`, "end.state: missing"},
		{"end state unknown", `"end":{"state":"done"}`, `end.state: "done" is not a state (one of finished, submitted, error`},
		{"end message number", `"end":{"state":"error","message":1}`, "end.message: must be a string, not a number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, log := range []string{
				`{"model":{"identifier":"m"},"prompts":[],"steps":[],` + c.fields + `}`,
				`{"event":"run","model":{"identifier":"m"},` + c.fields + "}\n",
			} {
				_, _, err := build(t, log, Options{})
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("error is %T: %v", err, err)
				}
				if !strings.Contains(err.Error(), c.problem) {
					t.Errorf("problems\n%s\ndo not include %q", err, c.problem)
				}
			}
		})
	}
	// An unknown field inside is a warning (an error with --strict).
	_, warnings, err := build(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],"task":{"id":"a","colour":1}}`, Options{})
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "task.colour") {
		t.Errorf("unknown field: %v %q", err, warnings)
	}
	if _, _, err := build(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],"end":{"state":"error","why":1}}`, Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "end.why: unknown field") {
		t.Errorf("strict: %v", err)
	}
}

// TestOutcomeEncodesAsGiven keeps a score's and a value's JSON canonical.
func TestOutcomeEncodesAsGiven(t *testing.T) {
	res, _, err := build(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],"outcome":{"score":"C","value":{"b":1.50,"a":[true]}}}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Manifest.Outcome
	if string(o.Score) != `"C"` || string(o.Value) != `{"a":[true],"b":1.5}` || o.Passed != nil {
		t.Errorf("outcome %s %s %v", o.Score, o.Value, o.Passed)
	}
	b, _ := json.Marshal(o)
	if string(b) != `{"score":"C","value":{"a":[true],"b":1.5}}` {
		t.Errorf("marshalled %s", b)
	}
}
