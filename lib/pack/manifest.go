package pack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Version is the manifest format version written into every pack.
const Version = "0.1"

// Manifest is a pack: the run's model, prompts, inputs, steps, outputs and
// environment, with every piece of content replaced by the hash of a blob.
// Its hash is SHA-256 over its RFC 8785 canonical form without the hash
// field.
type Manifest struct {
	Version      string          `json:"version"`
	Hash         string          `json:"hash,omitempty"` // "sha256:<hex>"; never part of the hashed bytes
	Created      *string         `json:"created"`        // nil: the run recorded no time (time unknown)
	Model        Model           `json:"model"`
	SystemPrompt *store.Hash     `json:"system_prompt"`
	Prompts      []Prompt        `json:"prompts"`
	Inputs       []File          `json:"inputs"`
	Steps        []Step          `json:"steps"`
	Outputs      []Output        `json:"outputs"`
	Environment  json.RawMessage `json:"environment"`
	Parent       *store.Hash     `json:"parent,omitempty"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	// Task, Outcome and End appear only when the log gave them, so a pack
	// without them keeps the hash it always had.
	Task    *Task    `json:"task,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
	End     *End     `json:"end,omitempty"`

	// spill, when set, holds the steps instead of Steps: ctx pack builds a
	// manifest with its steps in a scratch file (Options.Scratch) and
	// streams them into the stored manifest. NumSteps and Tools answer for
	// either form; Release removes the file.
	spill *stepSpill
	// subject, when set, is the subject the first prompt that is not a
	// system prompt gives, as the build read it (Subject need not read
	// the prompt back from the store).
	subject *string
}

// NumSteps is the number of steps, wherever they are held.
func (m *Manifest) NumSteps() int {
	if m.spill != nil {
		return m.spill.n
	}
	return len(m.Steps)
}

// Tools lists the tools of m's tool_call steps in order of first use.
// Other step types (model_call and the like) name a model or an event,
// not a tool.
func (m *Manifest) Tools() []string {
	if m.spill != nil {
		return append([]string{}, m.spill.tools...)
	}
	out := []string{}
	seen := map[string]bool{}
	for _, s := range m.Steps {
		if s.Type == "tool_call" && !seen[s.Tool] {
			seen[s.Tool] = true
			out = append(out, s.Tool)
		}
	}
	return out
}

// Rejected is the number of steps refused before they ran (outcome
// "rejected"), wherever the steps are held.
func (m *Manifest) Rejected() int {
	if m.spill != nil {
		return m.spill.refused
	}
	n := 0
	for i := range m.Steps {
		if m.Steps[i].Outcome == OutcomeRejected {
			n++
		}
	}
	return n
}

// Release removes the scratch file of a manifest whose steps were kept in
// one; it can no longer be encoded afterwards. It does nothing for any
// other manifest.
func (m *Manifest) Release() {
	if m.spill != nil {
		m.spill.close()
	}
}

// CreatedText is the created time as written, or "" when the run recorded
// no time.
func (m *Manifest) CreatedText() string {
	if m.Created == nil {
		return ""
	}
	return *m.Created
}

// Model names the model and the parameters it ran with.
type Model struct {
	Identifier string          `json:"identifier"`
	Parameters json.RawMessage `json:"parameters"`
}

// Prompt is one user-side message of the run.
type Prompt struct {
	Role       string          `json:"role"`
	ContentRef store.Hash      `json:"content_ref"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// File is an input file of the run.
type File struct {
	Name       string          `json:"name"`
	ContentRef store.Hash      `json:"content_ref"`
	Size       int64           `json:"size"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// Step is one tool or model call. OutputSize is an addition to the seed's
// fields: it lets show and diff report sizes without reading blobs.
type Step struct {
	Index         int             `json:"index"`
	Type          string          `json:"type"`
	Tool          string          `json:"tool"`
	Parameters    json.RawMessage `json:"parameters"`
	OutputRef     *store.Hash     `json:"output_ref"`
	OutputSize    *int64          `json:"output_size,omitempty"`
	Deterministic bool            `json:"deterministic"`
	Timestamp     *string         `json:"timestamp"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
	// Outcome is "" for a call that ran, OutcomeRejected for one that was
	// refused and never ran.
	Outcome string `json:"outcome,omitempty"`
	// NormalizedOutputRef is the result a replay executor produces for
	// this call, when the agent showed it in another form; replay compares
	// with it instead of OutputRef.
	NormalizedOutputRef *store.Hash `json:"normalized_output_ref,omitempty"`
}

// Output is a final artifact of the run.
type Output struct {
	Name       string          `json:"name"`
	ContentRef store.Hash      `json:"content_ref"`
	Size       int64           `json:"size"`
	Confidence string          `json:"confidence,omitempty"`
	Notes      string          `json:"notes,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// Task is the task of a benchmark or task set that a run was: the same
// type in the log and in the manifest.
type Task struct {
	// ID names the task: a sample id, a SWE-bench instance_id, a rollout
	// index. Runs of two suites are paired by it and Epoch.
	ID string `json:"id"`
	// Epoch counts the runs of one task, from 1; 0 (absent) is the first.
	Epoch int    `json:"epoch,omitempty"`
	Name  string `json:"name,omitempty"`
}

// EpochOrFirst is the task's epoch, 1 when none was given.
func (t *Task) EpochOrFirst() int {
	if t.Epoch <= 0 {
		return 1
	}
	return t.Epoch
}

// Outcome is how a run was judged: passed or not, a score (a number or a
// string such as "C" or "I"), any further value the grader gave, and where
// the judgement came from (a scorer's name, a results file).
type Outcome struct {
	Passed *bool           `json:"passed,omitempty"`
	Score  json.RawMessage `json:"score,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	Source string          `json:"source,omitempty"`
}

// EndState is the state the run ended in, or "" when it does not say.
func (m *Manifest) EndState() string {
	if m.End == nil {
		return ""
	}
	return m.End.State
}

// End is how a run ended: one of the EndStates and, for an error or a
// limit, the source's own words.
type End struct {
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
}

// EndStates are the states a run's end may have.
func EndStates() []string {
	return []string{"finished", "submitted", "error", "rejected", "iteration_limit", "cost_limit", "context_limit", "time_limit", "cancelled"}
}

// Environment is the part of the environment object that ctx itself reads;
// the manifest keeps the whole object as the log gave it.
type Environment struct {
	OS           string            `json:"os,omitempty"`
	Arch         string            `json:"arch,omitempty"`
	Runtime      string            `json:"runtime,omitempty"`
	ToolVersions map[string]string `json:"tool_versions,omitempty"`
	// WorkingDir is the directory the run worked in, as the machine
	// named it; Git the checkout it was (docs/FORMAT.md).
	WorkingDir string `json:"working_dir,omitempty"`
	Git        *Git   `json:"git,omitempty"`
}

// Git is where a run happened: a checkout of Commit (on Branch) of the
// repository at RepositoryURL. Each may be empty.
type Git struct {
	Commit        string `json:"commit,omitempty"`
	Branch        string `json:"branch,omitempty"`
	RepositoryURL string `json:"repository_url,omitempty"`
}

// Env decodes the fields of the environment that ctx reads.
func (m *Manifest) Env() Environment {
	var e Environment
	if len(m.Environment) > 0 {
		_ = json.Unmarshal(m.Environment, &e) // validated when packed
	}
	return e
}

// ErrNotPack is matched by the error Load returns for an object that is not
// a pack manifest.
var ErrNotPack = errors.New("not a pack")

// NotPackError is an object of the store that is not a pack manifest: a
// blob named where a pack is wanted. It matches ErrNotPack.
type NotPackError struct{ Hash store.Hash }

// Error names the object.
func (e *NotPackError) Error() string {
	return fmt.Sprintf("object %s is not a pack manifest", e.Hash)
}

// Unwrap makes the error match ErrNotPack.
func (e *NotPackError) Unwrap() error { return ErrNotPack }

// Parse decodes manifest bytes. It does not check the hash: Load does, and a
// manifest read from a file may carry its own hash field.
func Parse(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotPack, err)
	}
	if err := checkParsed(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkParsed refuses a decoded manifest without its required parts or of
// another version.
func checkParsed(m *Manifest) error {
	if m.Version == "" || m.Model.Identifier == "" || m.Prompts == nil || m.Steps == nil {
		return fmt.Errorf("%w: no version, model, prompts or steps", ErrNotPack)
	}
	if m.Version != Version {
		return &VersionError{Version: m.Version}
	}
	return nil
}

// VersionError is a manifest of a format version this ctx does not read.
type VersionError struct{ Version string }

func (e *VersionError) Error() string {
	return fmt.Sprintf("manifest version %q is not supported (this ctx reads %q)", e.Version, Version)
}

// Load reads pack h from the store: the object is verified against its name
// and must be a manifest.
func Load(st *store.Store, h store.Hash) (*Manifest, error) {
	b, err := st.ReadAll(h)
	if err != nil {
		var nf *store.NotFoundError
		if errors.As(err, &nf) {
			nf.What = "pack"
		}
		return nil, err
	}
	m, err := Parse(b)
	if err != nil {
		if errors.Is(err, ErrNotPack) {
			return nil, &NotPackError{Hash: h}
		}
		return nil, fmt.Errorf("pack %s: %w", h, err)
	}
	m.Hash = h.String()
	return m, nil
}

// Resolve resolves a pack name in any of its forms and loads the pack.
func Resolve(st *store.Store, name string) (*Manifest, error) {
	h, err := st.ResolvePack(name)
	if err != nil {
		return nil, err
	}
	return Load(st, h)
}
