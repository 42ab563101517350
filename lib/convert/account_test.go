package convert

import (
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// TestCensus checks what the census counts as call-like and result-like
// records, whatever the format.
func TestCensus(t *testing.T) {
	cases := []struct {
		name           string
		in             string
		calls, results int
	}{
		{"anthropic blocks", `[{"role":"assistant","content":[{"type":"tool_use","id":"a"},{"type":"server_tool_use","id":"b"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}]`, 2, 1},
		{"openai tool_calls and role tool", `[{"role":"assistant","tool_calls":[{"id":"c1"},{"id":"c2"}]},{"role":"tool","tool_call_id":"c1"},{"role":"tool","tool_call_id":"c2"}]`, 2, 2},
		{"the same call repeated counts once", `[{"type":"function_call","call_id":"x"},{"type":"function_call","call_id":"x","id":"x"},{"type":"function_call_output","call_id":"x"}]`, 1, 1},
		{"calls with no id count each", `[{"type":"function_call"},{"type":"function_call"}]`, 2, 0},
		{"gemini parts", `[{"role":"model","parts":[{"functionCall":{"name":"f"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f"}}]}]`, 1, 1},
		{"gemini cli toolCalls with results", `{"messages":[{"type":"gemini","toolCalls":[{"id":"t","result":[]},{"id":"u"}]}]}`, 2, 1},
		{"openhands v1", `[{"kind":"ActionEvent","source":"agent","tool_call_id":"a"},{"kind":"ObservationEvent","source":"environment","tool_call_id":"a"},{"kind":"UserRejectObservation","tool_call_id":"b"}]`, 1, 2},
		{"atif results", `{"steps":[{"tool_calls":[{"tool_call_id":"a"}],"observation":{"results":[{"source_call_id":"a"}]}}]}`, 1, 1},
		{"a grader's expected call is not counted", `{"response":{"output":[{"type":"function_call","call_id":"r"}]},"expected_action":{"type":"function_call","name":"f"}}`, 1, 0},
		{"tau2 tool messages name the call by id", `[{"role":"tool","id":"c"},{"type":"function_call_output","call_id":"c"}]`, 0, 1},
		{"plain text has none", `[{"role":"user","content":"hi"},{"role":"assistant","content":"<read_file>x</read_file>"}]`, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := jcs.Decode([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			tl := newTally()
			tl.census(v)
			if tl.calls != c.calls || tl.results != c.results {
				t.Errorf("calls %d results %d, want %d %d", tl.calls, tl.results, c.calls, c.results)
			}
		})
	}
}
