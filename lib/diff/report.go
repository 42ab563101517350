package diff

import "encoding/json"

// Drift types of contract section 6: the seed's five, then the three that
// cover what the five do not.
const (
	PromptDrift      = "prompt_drift"
	ToolDrift        = "tool_drift"
	ParamDrift       = "param_drift"
	ReasoningDrift   = "reasoning_drift"
	OutputDrift      = "output_drift"
	ModelDrift       = "model_drift"
	InputDrift       = "input_drift"
	EnvironmentDrift = "environment_drift"
)

// Changes: modified on both sides, added (only in B), removed (only in A).
const (
	Modified = "modified"
	Added    = "added"
	Removed  = "removed"
)

// Sections of a pack, in the order a report lists them.
const (
	SectionModel        = "model"
	SectionSystemPrompt = "system_prompt"
	SectionPrompts      = "prompts"
	SectionInputs       = "inputs"
	SectionSteps        = "steps"
	SectionOutputs      = "outputs"
	SectionEnvironment  = "environment"
)

// Report is the drift report between two runs, A and B.
type Report struct {
	A               string  `json:"a"` // "sha256:<hex>" of A's manifest
	B               string  `json:"b"`
	Drift           []Entry `json:"drift"`
	Summary         Summary `json:"summary"`
	FirstDivergence *int    `json:"first_divergence"` // first step index with any drift, or null
	// Verdict is how the two runs were judged, when that differs (passed
	// in A, no verdict in B). It is no drift of the runs' contents: it is
	// not counted in the summary and does not change the exit status, but
	// a report that has one never says there is no difference.
	Verdict *VerdictChange `json:"verdict,omitempty"`

	// Alignment is which step of A was compared with which step of B, in
	// order, the steps of one side only included: what a side-by-side
	// view draws. It is not part of the JSON report.
	Alignment []Pair `json:"-"`

	// Advice, when Options.Advise asked for it, says when another
	// alignment would read better (one sentence), or is empty. It is not
	// part of the JSON report.
	Advice string `json:"-"`
}

// VerdictChange is each run's verdict (pack's verdict words, with its
// score: "passed (score 1)", "errored (test_timeout)", "no verdict"), and
// the change as a sentence.
type VerdictChange struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Detail string `json:"detail"`
}

// Entry is one drift point. Which of the optional fields are set depends on
// the type; a and b hold each side's value or ref, null where absent.
type Entry struct {
	Type    string `json:"type"`
	Section string `json:"section"`
	// Step is the step's index: in A, or in B for an added step.
	Step *int `json:"step,omitempty"`
	// StepB is B's index of the step when it differs from Step (only with
	// sequence alignment).
	StepB *int `json:"step_b,omitempty"`
	// Index is the position of a user prompt.
	Index *int `json:"index,omitempty"`
	// Name is the name of an input or output.
	Name string `json:"name,omitempty"`
	// Field is a JSON pointer into the model or environment object, or the
	// changed field of an output (confidence, notes).
	Field  string `json:"field,omitempty"`
	Change string `json:"change"`
	Tool   string `json:"tool,omitempty"`
	Role   string `json:"role,omitempty"`
	// ARole and BRole are both roles of a prompt whose role changed.
	ARole  string          `json:"a_role,omitempty"`
	BRole  string          `json:"b_role,omitempty"`
	Params []Param         `json:"params,omitempty"`
	A      json.RawMessage `json:"a,omitempty"`
	B      json.RawMessage `json:"b,omitempty"`
	ASize  *int64          `json:"a_size,omitempty"`
	BSize  *int64          `json:"b_size,omitempty"`
	// Detail is the entry as one plain sentence, what --human prints.
	Detail string `json:"detail"`
}

// Param is one changed parameter: where it is (a JSON pointer into the
// parameters) and its value on each side, null where absent.
type Param struct {
	Path   string          `json:"path"`
	Change string          `json:"change"`
	A      json.RawMessage `json:"a"`
	B      json.RawMessage `json:"b"`
}

// Summary counts the entries of each type.
type Summary struct {
	PromptDrift      int `json:"prompt_drift"`
	ToolDrift        int `json:"tool_drift"`
	ParamDrift       int `json:"param_drift"`
	ReasoningDrift   int `json:"reasoning_drift"`
	OutputDrift      int `json:"output_drift"`
	ModelDrift       int `json:"model_drift"`
	InputDrift       int `json:"input_drift"`
	EnvironmentDrift int `json:"environment_drift"`
	Total            int `json:"total"`
}

// DriftType is a drift type with the short name tables and pages show.
type DriftType struct {
	Type, Short string
}

// Types lists the drift types in the order of a report's sections: the
// one order of every human summary, table and page.
func Types() []DriftType {
	return []DriftType{
		{ModelDrift, "model"}, {PromptDrift, "prompt"}, {InputDrift, "input"}, {ToolDrift, "tool"},
		{ParamDrift, "param"}, {ReasoningDrift, "reasoning"}, {OutputDrift, "output"}, {EnvironmentDrift, "environment"},
	}
}

// count is the counter of type t.
func (s *Summary) count(t string) *int {
	switch t {
	case PromptDrift:
		return &s.PromptDrift
	case ToolDrift:
		return &s.ToolDrift
	case ParamDrift:
		return &s.ParamDrift
	case ReasoningDrift:
		return &s.ReasoningDrift
	case OutputDrift:
		return &s.OutputDrift
	case ModelDrift:
		return &s.ModelDrift
	case InputDrift:
		return &s.InputDrift
	case EnvironmentDrift:
		return &s.EnvironmentDrift
	}
	return nil
}

// add counts one entry of type t.
func (s *Summary) add(t string) {
	if n := s.count(t); n != nil {
		*n++
	}
	s.Total++
}

// TypeCount is a drift type and how many entries it has.
type TypeCount struct {
	DriftType
	N int
}

// Counts lists the non-zero counts in report order (Types).
func (s Summary) Counts() []TypeCount {
	var out []TypeCount
	for _, t := range Types() {
		if n := *s.count(t.Type); n > 0 {
			out = append(out, TypeCount{t, n})
		}
	}
	return out
}
