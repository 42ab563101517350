package pack

import (
	"reflect"
	"strings"
)

// The events of an execution log's NDJSON form (contract section 4), one
// per line. Writers of logs (ctx convert, and any recorder of live runs)
// encode these types; Build knows a log's fields by their JSON names, so
// a field is added here once and both sides have it. The JSON document
// form has the run's fields at the top level and the other events, without
// their "event" key, in the lists prompts, inputs, steps and outputs.
type (
	// RunEvent is what holds for the whole run; it comes once, anywhere.
	RunEvent struct {
		Event        string         `json:"event"` // "run"
		Created      string         `json:"created,omitempty"`
		Model        LogModel       `json:"model"`
		SystemPrompt *string        `json:"system_prompt,omitempty"`
		Environment  map[string]any `json:"environment,omitempty"`
		Metadata     map[string]any `json:"metadata,omitempty"`
		Parent       string         `json:"parent,omitempty"`
		// Task, Outcome and End say which task of a benchmark or task set
		// the run was, how it was judged and how it ended; each is kept in
		// the manifest only when given.
		Task    *Task    `json:"task,omitempty"`
		Outcome *Outcome `json:"outcome,omitempty"`
		End     *End     `json:"end,omitempty"`
	}

	// LogModel names the model of a run and the parameters it ran with.
	LogModel struct {
		Identifier string         `json:"identifier"`
		Parameters map[string]any `json:"parameters,omitempty"`
	}

	// Content gives one piece of content, by exactly one of its fields:
	// UTF-8 text, base64, a file under the log's root (read in a stream),
	// or an object already in the store ("sha256:<hex>"). A system prompt
	// given as an object has these fields alone.
	Content struct {
		Content       *string `json:"content,omitempty"`
		ContentBase64 string  `json:"content_base64,omitempty"`
		Path          string  `json:"path,omitempty"`
		ContentRef    string  `json:"content_ref,omitempty"`
	}

	// PromptEvent is one user-side message (role "user" when empty).
	PromptEvent struct {
		Event string `json:"event"` // "prompt"
		Role  string `json:"role,omitempty"`
		Content
		Metadata map[string]any `json:"metadata,omitempty"`
	}

	// InputEvent is a file the run read; a name is needed unless the
	// content is given by path.
	InputEvent struct {
		Event string `json:"event"` // "input"
		Name  string `json:"name,omitempty"`
		Content
		Metadata map[string]any `json:"metadata,omitempty"`
	}

	// StepEvent is one tool or model call. Its output is given like a
	// Content, by one of Output, OutputBase64, OutputPath or OutputRef;
	// Index, when given, must be the step's position.
	StepEvent struct {
		Event         string         `json:"event"` // "step"
		Index         *int           `json:"index,omitempty"`
		Type          string         `json:"type,omitempty"` // "tool_call" when empty
		Tool          string         `json:"tool"`
		Parameters    map[string]any `json:"parameters"`
		Output        *string        `json:"output,omitempty"`
		OutputBase64  string         `json:"output_base64,omitempty"`
		OutputPath    string         `json:"output_path,omitempty"`
		OutputRef     string         `json:"output_ref,omitempty"`
		Deterministic *bool          `json:"deterministic,omitempty"` // true for a tool_call when nil
		Timestamp     string         `json:"timestamp,omitempty"`     // RFC 3339
		// Outcome is empty for a call that ran, or OutcomeRejected for one
		// the user or the harness refused: it never ran, and replay never
		// runs it.
		Outcome string `json:"outcome,omitempty"`
		// The normalised output is what a replay executor produces for this
		// call, where the agent showed its result in another form (line
		// numbers added, a confirmation sentence): replay compares with it
		// instead of the verbatim output. Given like the output, by one of
		// four fields.
		NormalizedOutput       *string        `json:"normalized_output,omitempty"`
		NormalizedOutputBase64 string         `json:"normalized_output_base64,omitempty"`
		NormalizedOutputPath   string         `json:"normalized_output_path,omitempty"`
		NormalizedOutputRef    string         `json:"normalized_output_ref,omitempty"`
		Metadata               map[string]any `json:"metadata,omitempty"`
	}

	// OutputEvent is a final artifact of the run.
	OutputEvent struct {
		Event string `json:"event"` // "output"
		Name  string `json:"name,omitempty"`
		Content
		Confidence string         `json:"confidence,omitempty"` // high, medium or low
		Notes      string         `json:"notes,omitempty"`
		Metadata   map[string]any `json:"metadata,omitempty"`
	}
)

// OutcomeRejected is the outcome of a call that was refused and never ran.
const OutcomeRejected = "rejected"

// eventOf returns the event type of an element of a log: "top" is the
// document form's top level, "source" a system prompt given as an object.
func eventOf(element string) any {
	switch element {
	case "top", "run":
		return RunEvent{}
	case "model":
		return LogModel{}
	case "source":
		return Content{}
	case "prompt":
		return PromptEvent{}
	case "input":
		return InputEvent{}
	case "step":
		return StepEvent{}
	case "output":
		return OutputEvent{}
	case "task":
		return Task{}
	case "outcome":
		return Outcome{}
	case "end":
		return End{}
	}
	return nil
}

// knownFields returns the JSON names of the fields an element of a log
// may have, read from its event type; anything else is unknown (a
// warning, or an error with --strict). The document form's top level has
// the run's fields, without "event", and the four lists.
func knownFields(element string) map[string]bool {
	names := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous {
				walk(f.Type)
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names[name] = true
			}
		}
	}
	if ev := eventOf(element); ev != nil {
		walk(reflect.TypeOf(ev))
	}
	if element == "top" {
		delete(names, "event")
		for _, list := range []string{"prompts", "inputs", "steps", "outputs"} {
			names[list] = true
		}
	}
	return names
}
