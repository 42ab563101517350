package suite

import (
	"encoding/json"
	"testing"
)

// FuzzResults feeds the results reader any bytes: an error or verdicts,
// never a panic.
func FuzzResults(f *testing.F) {
	for _, s := range []string{`{"resolved": ["a"]}`, `{"instances": [{"instance_id": "b", "resolved": true}]}`, `{"a": {"resolved": false}}`,
		`{"resolved_ids": [], "unresolved_ids": ["x"], "error_ids": ["a"]}`,
		`{"results": [{"task_id": "a", "trial_name": "a.1-of-2", "is_resolved": null, "failure_mode": "agent_timeout"}]}`,
		`{"task_id": "a", "trial_name": "a.2-of-2", "is_resolved": true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rf := &resultsFile{name: "f.json", source: "f.json"}
		if err := rf.parse(b, func(string) {}); err != nil {
			return
		}
		rs := []Run{{Task: "a", Epoch: 1}, {Task: "a", Epoch: 2}}
		_ = (&Results{files: []*resultsFile{rf}}).apply(rs, func(string) {}, func(string) {})
		if _, err := json.Marshal(rs); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzHarborTrial feeds the reader of a Harbor trial's result.json any
// bytes: an error or an outcome, never a panic; a trial that passed has
// a reward at or above the threshold.
func FuzzHarborTrial(f *testing.F) {
	for _, s := range []string{
		`{"task_name": "t", "trial_name": "t__a", "verifier_result": {"rewards": {"reward": 1.0}}}`,
		`{"task_name": "t", "trial_name": "t__b", "verifier_result": {"rewards": {"accuracy": 0.5}}, "agent_result": {"n_input_tokens": 3}}`,
		`{"task_name": "t", "trial_name": "t__c", "verifier_result": null, "exception_info": {"exception_type": "E", "exception_message": "m"}}`,
		`{"task_name": "t", "trial_name": "t__d", "verifier_result": {"rewards": {"a": 1, "b": 0}}, "agent_info": {"model_info": {"name": "m"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h harborTrial
		if err := decodeAt(b, &h, ""); err != nil {
			return
		}
		e := h.result(0.5, AddOptions{})
		if e.passed != nil && *e.passed {
			if r, ok := number(e.score); !ok || r < 0.5 {
				t.Fatalf("passed with score %s", e.score)
			}
		}
		if e.passed == nil && e.errored == "" && h.Exception != nil {
			t.Fatal("an exception without a verdict is not errored")
		}
		o, _ := e.outcome("result.json", nil)
		if _, err := json.Marshal(o); err != nil {
			t.Fatal(err)
		}
	})
}
