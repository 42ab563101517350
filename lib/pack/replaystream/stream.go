// Package replaystream is the replay stream of contract section 7, the
// NDJSON that ctx replay writes and ctx diff reads: one step line as each
// step finishes, then a report line. It holds the one definition of the
// stream's records and statuses, the reader, and Replayed, the one
// function that turns a pack and its replay into the replayed run, which
// both replay --save and ctx diff X - compare.
//
// It must never touch the disk or the store: records come in and go out
// as values, and the packs it combines are given to it.
package replaystream

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Status is the outcome of one step.
type Status string

// The step statuses of the contract.
const (
	// Matched: the output hashes to the recorded output_ref.
	Matched Status = "matched"
	// Diverged: a deterministic step produced other bytes.
	Diverged Status = "diverged"
	// DivergedExpected: a non-deterministic step produced other bytes.
	DivergedExpected Status = "diverged_expected"
	// Failed: the step could not execute; Reason says why.
	Failed Status = "failed"
	// Recorded: a non-deterministic step with no executor; its recorded
	// output stands in for it.
	Recorded Status = "recorded"
	// SkippedRejected: a call the user or the harness refused in the
	// recorded run (outcome "rejected"). It never ran then, and replay
	// never runs it; its recorded output (the refusal) stands in.
	SkippedRejected Status = "skipped_rejected"
	// NotAllowed: a step this replay may not run without a flag (a shell
	// step without --allow-exec; Reason names the flag). Nothing failed:
	// nothing was tried. It is never run, its recorded output stands in
	// for the replayed run, and the replay cannot be exact.
	NotAllowed Status = "not_allowed"
)

// Ran reports whether a step of status s was executed by the replay.
func (s Status) Ran() bool { return s == Matched || s == Diverged || s == DivergedExpected }

// known reports whether s is one of the contract's step statuses.
func (s Status) known() bool {
	switch s {
	case Matched, Diverged, DivergedExpected, Failed, Recorded, SkippedRejected, NotAllowed:
		return true
	}
	return false
}

// Fidelity is the status of a whole replay.
type Fidelity string

// The replay statuses of the contract.
const (
	// Exact: every deterministic step matched.
	Exact Fidelity = "exact"
	// Degraded: some deterministic step diverged and none failed.
	Degraded Fidelity = "degraded"
	// FailedReplay: some step could not execute.
	FailedReplay Fidelity = "failed"
	// Unverified: nothing failed or diverged, but the replay did not
	// reproduce the run: no step's output was reproduced (every step was
	// served from the recording, skipped, or re-ran as a non-deterministic
	// step with other bytes), or a deterministic step was not allowed to
	// run.
	Unverified Fidelity = "unverified"
)

// Step is one step line of the stream, written as the step finishes.
// Expected is what the replay compares with: the step's
// normalized_output_ref when it has one, else its output_ref. A recorded
// or skipped step's Actual is its Expected; Actual is nil for a failed
// step or one not allowed to run, and ActualSize is then left out. Reason
// says why a step failed or was not allowed to run; Note what the sandbox
// may have done to a program of a step that did not match (a path it
// refused, a bound a program reached, and the flag that opens it).
type Step struct {
	Event         string      `json:"event"` // always "step"
	Index         int         `json:"index"`
	Tool          string      `json:"tool"`
	Deterministic bool        `json:"deterministic"`
	Status        Status      `json:"status"`
	Expected      *store.Hash `json:"expected"`
	Actual        *store.Hash `json:"actual"`
	ActualSize    *int64      `json:"actual_size,omitempty"`
	Reason        string      `json:"reason,omitempty"`
	Note          string      `json:"note,omitempty"`
	// Line is where the step stood in a stream that was read, for
	// messages; it is never written.
	Line int `json:"-"`
}

// Counts holds how many steps ended in each status, how many the replay
// executed (Reexecuted: matched, diverged and diverged_expected) and how
// many there were.
type Counts struct {
	Steps            int `json:"steps"`
	Reexecuted       int `json:"reexecuted"`
	Matched          int `json:"matched"`
	Diverged         int `json:"diverged"`
	DivergedExpected int `json:"diverged_expected"`
	Failed           int `json:"failed"`
	Recorded         int `json:"recorded"`
	SkippedRejected  int `json:"skipped_rejected"`
	NotAllowed       int `json:"not_allowed"`
}

// Add counts one step of status s.
func (c *Counts) Add(s Status) {
	c.Steps++
	if s.Ran() {
		c.Reexecuted++
	}
	switch s {
	case Matched:
		c.Matched++
	case Diverged:
		c.Diverged++
	case DivergedExpected:
		c.DivergedExpected++
	case Failed:
		c.Failed++
	case Recorded:
		c.Recorded++
	case SkippedRejected:
		c.SkippedRejected++
	case NotAllowed:
		c.NotAllowed++
	}
}

// Fidelity applies the rule of docs/REPLAY.md: any failed step fails the
// replay, else any diverged deterministic step degrades it, else a replay
// in which no step matched reproduced nothing, and one in which a step
// was not allowed to run did not reproduce it all: both are unverified;
// only a replay in which some step re-ran and matched, and none failed,
// diverged or was held back, is exact. Non-deterministic divergence never
// downgrades a replay whose other steps re-ran and matched.
func (c Counts) Fidelity() Fidelity {
	switch {
	case c.Failed > 0:
		return FailedReplay
	case c.Diverged > 0:
		return Degraded
	case c.Matched == 0, c.NotAllowed > 0:
		return Unverified
	}
	return Exact
}

// Unreproduced says why an unverified replay is one, in one sentence:
// what happened to its steps instead of reproducing them.
func (c Counts) Unreproduced() string {
	if c.Steps == 0 {
		return "the pack has no steps"
	}
	if c.Matched > 0 {
		return fmt.Sprintf("%d of %d steps were not allowed to run (each step's reason names the flag that runs it)", c.NotAllowed, c.Steps)
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{c.NotAllowed, "not allowed to run (each step's reason names the flag that runs it)"}, {c.Recorded, "served from the recording"},
		{c.SkippedRejected, "skipped (refused in the recorded run)"}, {c.DivergedExpected, "re-ran with other bytes, as a non-deterministic step may"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return fmt.Sprintf("no step's output was reproduced: of %d, %s", c.Steps, strings.Join(parts, ", "))
}

// Report is the last line of the stream. Reason says why an unverified
// replay is one (Counts.Unreproduced); Diverged lists the deterministic
// steps that diverged; Failed the steps that failed; Saved, with --save,
// the pack the replay was stored as (ctx://<hex>).
type Report struct {
	Event    string     `json:"event"` // always "report"
	Pack     store.Hash `json:"pack"`
	Status   Fidelity   `json:"status"`
	Reason   string     `json:"reason,omitempty"`
	Counts   Counts     `json:"counts"`
	Diverged []int      `json:"diverged"`
	Failed   []int      `json:"failed"`
	Drift    []Drift    `json:"drift"`
	// Sandbox names what confined the programs the replay started
	// ("landlock ABI 7, no network", "none (--no-sandbox)"); absent when
	// it started none.
	Sandbox string `json:"sandbox,omitempty"`
	// Repository says what the workspace lacks of the run's repository
	// (a run that names one, replayed without --repo); absent otherwise.
	Repository string `json:"repository,omitempty"`
	Saved      string `json:"saved,omitempty"`
}

// SavedPack returns the pack Saved names, when it names one.
func (r *Report) SavedPack() (store.Hash, bool) {
	if r.Saved == "" {
		return store.Hash{}, false
	}
	h, err := parseURI(r.Saved)
	return h, err == nil
}

// parseURI accepts ctx://<hex> and sha256:<hex>.
func parseURI(s string) (store.Hash, error) {
	if hx, ok := strings.CutPrefix(s, "ctx://"); ok {
		return store.ParseHex(hx)
	}
	return store.ParseRef(s)
}

// The drift kinds a report can hold.
const (
	DriftToolVersion   = "tool_version"   // tool, recorded, current (null when the executor reports none)
	DriftMissingTool   = "missing_tool"   // tool, steps: deterministic steps no executor could run
	DriftEnvironment   = "environment"    // field (os, arch, runtime), recorded, current (null and a reason: not checked)
	DriftMissingInput  = "missing_input"  // name, expected[, reason]
	DriftCorruptInput  = "corrupt_input"  // name, expected, actual (null when unreadable)
	DriftChangedInput  = "changed_input"  // name, expected, actual: --workdir holds other bytes
	DriftMissingObject = "missing_object" // where, expected
	DriftCorruptObject = "corrupt_object" // where, expected, actual (null when unreadable)
)

// Drift is one dependency that changed between the recorded run and the
// replay. Which fields are set depends on Kind; MarshalJSON writes only
// those, so each kind has one fixed shape.
type Drift struct {
	Kind     string
	Tool     string      // tool_version, missing_tool
	Steps    []int       // missing_tool
	Field    string      // environment
	Recorded string      // tool_version, environment
	Current  *string     // tool_version, environment
	Name     string      // *_input
	Where    string      // *_object: the manifest field naming the object
	Expected store.Hash  // *_input, *_object
	Actual   *store.Hash // corrupt_*, changed_input
	Reason   string      // missing_input when the store is not the cause; environment not checked
}

// MarshalJSON writes the fields of the drift's kind, in a fixed order.
func (d Drift) MarshalJSON() ([]byte, error) {
	var v any
	switch d.Kind {
	case DriftToolVersion:
		v = struct {
			Kind     string  `json:"kind"`
			Tool     string  `json:"tool"`
			Recorded string  `json:"recorded"`
			Current  *string `json:"current"`
		}{d.Kind, d.Tool, d.Recorded, d.Current}
	case DriftMissingTool:
		v = struct {
			Kind  string `json:"kind"`
			Tool  string `json:"tool"`
			Steps []int  `json:"steps"`
		}{d.Kind, d.Tool, d.Steps}
	case DriftEnvironment:
		v = struct {
			Kind     string  `json:"kind"`
			Field    string  `json:"field"`
			Recorded string  `json:"recorded"`
			Current  *string `json:"current"`
			Reason   string  `json:"reason,omitempty"`
		}{d.Kind, d.Field, d.Recorded, d.Current, d.Reason}
	case DriftMissingInput:
		v = struct {
			Kind     string     `json:"kind"`
			Name     string     `json:"name"`
			Expected store.Hash `json:"expected"`
			Reason   string     `json:"reason,omitempty"`
		}{d.Kind, d.Name, d.Expected, d.Reason}
	case DriftCorruptInput, DriftChangedInput:
		v = struct {
			Kind     string      `json:"kind"`
			Name     string      `json:"name"`
			Expected store.Hash  `json:"expected"`
			Actual   *store.Hash `json:"actual"`
		}{d.Kind, d.Name, d.Expected, d.Actual}
	case DriftMissingObject:
		v = struct {
			Kind     string     `json:"kind"`
			Where    string     `json:"where"`
			Expected store.Hash `json:"expected"`
		}{d.Kind, d.Where, d.Expected}
	case DriftCorruptObject:
		v = struct {
			Kind     string      `json:"kind"`
			Where    string      `json:"where"`
			Expected store.Hash  `json:"expected"`
			Actual   *store.Hash `json:"actual"`
		}{d.Kind, d.Where, d.Expected, d.Actual}
	default:
		return nil, fmt.Errorf("unknown drift kind %q", d.Kind)
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads a drift entry leniently: a reader of a stream from
// another version keeps the entry whatever its kind, takes each field
// that has the type it expects and leaves the others at their zero value.
// It fails only on what is not a JSON object.
func (d *Drift) UnmarshalJSON(b []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*d = Drift{}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(obj[k], &s)
		return s
	}
	hash := func(k string) *store.Hash {
		h, err := store.ParseRef(str(k))
		if err != nil {
			return nil
		}
		return &h
	}
	d.Kind, d.Tool, d.Field, d.Recorded = str("kind"), str("tool"), str("field"), str("recorded")
	d.Name, d.Where, d.Reason = str("name"), str("where"), str("reason")
	var cur string
	if raw, ok := obj["current"]; ok && string(raw) != "null" && json.Unmarshal(raw, &cur) == nil {
		d.Current = &cur
	}
	_ = json.Unmarshal(obj["steps"], &d.Steps)
	if h := hash("expected"); h != nil {
		d.Expected = *h
	}
	d.Actual = hash("actual")
	return nil
}

// String is the drift as one plain sentence, for --human.
func (d Drift) String() string {
	cur := "none reported"
	if d.Current != nil {
		cur = *d.Current
	}
	switch d.Kind {
	case DriftToolVersion:
		return fmt.Sprintf("tool %s: version %s recorded, %s now", d.Tool, d.Recorded, cur)
	case DriftMissingTool:
		return fmt.Sprintf("tool %s: no executor (steps %s)", d.Tool, joinInts(d.Steps))
	case DriftEnvironment:
		if d.Current == nil {
			return fmt.Sprintf("environment %s: %s recorded, not checked (%s)", d.Field, d.Recorded, d.Reason)
		}
		return fmt.Sprintf("environment %s: %s recorded, %s now", d.Field, d.Recorded, cur)
	case DriftMissingInput:
		if d.Reason != "" {
			return fmt.Sprintf("input %s (%s): %s", d.Name, d.Expected, d.Reason)
		}
		return fmt.Sprintf("input %s: missing from the store (expected %s)", d.Name, d.Expected)
	case DriftCorruptInput:
		return fmt.Sprintf("input %s: corrupt in the store (expected %s%s)", d.Name, d.Expected, actually(d.Actual))
	case DriftChangedInput:
		return fmt.Sprintf("input %s: the working tree holds other bytes (expected %s%s)", d.Name, d.Expected, actually(d.Actual))
	case DriftMissingObject:
		return fmt.Sprintf("%s: object %s is missing from the store", d.Where, d.Expected)
	case DriftCorruptObject:
		return fmt.Sprintf("%s: object %s is corrupt%s", d.Where, d.Expected, actually(d.Actual))
	}
	return d.Kind
}

func actually(h *store.Hash) string {
	if h == nil {
		return ""
	}
	return ", found " + h.String()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
