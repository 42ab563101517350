package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Replay is what a ctx replay stream says (contract section 7): one line
// per replayed step, then the report.
type Replay struct {
	Steps  []ReplayStep
	Report ReplayReport
}

// ReplayStep is one step line of a replay stream.
type ReplayStep struct {
	Index      int
	Tool       string
	Status     string
	Actual     *store.Hash
	ActualSize *int64
	Line       int // where it was in the stream, for messages
}

// ReplayReport is the final line of a replay stream.
type ReplayReport struct {
	Pack   store.Hash
	Status string
	Saved  *store.Hash
	// Drift is the dependency drift the replay found: tool versions and
	// environment fields that differ from the recording.
	Drift []ReplayDrift
}

// ReplayDrift is one dependency-drift entry of the report.
// Its fields are read leniently: kinds this version does not know, and
// fields of other types, are kept but not applied.
type ReplayDrift struct {
	Kind    any `json:"kind"`
	Tool    any `json:"tool"`
	Field   any `json:"field"`
	Current any `json:"current"`
}

// Step statuses of a replay stream.
const (
	statusMatched          = "matched"
	statusDiverged         = "diverged"
	statusDivergedExpected = "diverged_expected"
	statusFailed           = "failed"
	statusRecorded         = "recorded"
)

// ErrNoReport says a replay stream ended before its report line, which is
// what happens when ctx replay is interrupted or fails to start.
var ErrNoReport = errors.New("the replay stream ended without a report line (did ctx replay stop early?)")

// ReadReplay reads a replay stream. Lines are read one at a time; only the
// steps' outcomes are kept.
func ReadReplay(r io.Reader) (*Replay, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var rp Replay
	sawReport := false
	var buf []byte
	for n := 1; ; n++ {
		var err error
		buf, err = pack.ReadLine(br, buf[:0])
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if t := bytes.TrimSpace(buf); len(t) > 0 {
			if sawReport {
				return nil, fmt.Errorf("replay stream line %d: data after the report line", n)
			}
			report, err := rp.line(t, n)
			if err != nil {
				return nil, fmt.Errorf("replay stream line %d: %w", n, err)
			}
			sawReport = report
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if !sawReport {
		return nil, ErrNoReport
	}
	return &rp, nil
}

// line reads one line of the stream; report says it was the report.
func (rp *Replay) line(raw []byte, n int) (report bool, err error) {
	// Hold the line to the canonical reading: no duplicate keys, no
	// invalid UTF-8, so no two readers can take it differently.
	if _, err := jcs.Canonicalize(raw); err != nil {
		return false, fmt.Errorf("not valid JSON: %v", err)
	}
	var head struct {
		Event string `json:"event"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return false, errors.New("each line must be a JSON object with an \"event\" key")
	}
	switch head.Event {
	case "step":
		var s struct {
			Index      *int    `json:"index"`
			Tool       *string `json:"tool"`
			Status     string  `json:"status"`
			Actual     *string `json:"actual"`
			ActualSize *int64  `json:"actual_size"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return false, fmt.Errorf("step: %v", unmarshalError(err))
		}
		if s.Index == nil || *s.Index < 0 {
			return false, errors.New("step: index: missing or negative")
		}
		if s.Tool == nil {
			return false, errors.New("step: tool: missing")
		}
		st := ReplayStep{Index: *s.Index, Tool: *s.Tool, Status: s.Status, Line: n}
		switch s.Status {
		case statusMatched, statusDiverged, statusDivergedExpected:
			if s.Actual == nil {
				return false, fmt.Errorf("step %d: status %s needs an actual hash", st.Index, s.Status)
			}
		case statusFailed, statusRecorded:
		default:
			return false, fmt.Errorf("step %d: unknown status %q (matched, diverged, diverged_expected, failed or recorded)", st.Index, s.Status)
		}
		if s.Actual != nil {
			h, err := store.ParseRef(*s.Actual)
			if err != nil {
				return false, fmt.Errorf("step %d: actual: %v", st.Index, err)
			}
			st.Actual = &h
			if s.ActualSize != nil && *s.ActualSize < 0 {
				return false, fmt.Errorf("step %d: actual_size: negative", st.Index)
			}
			st.ActualSize = s.ActualSize
		}
		rp.Steps = append(rp.Steps, st)
		return false, nil
	case "report":
		var rr struct {
			Pack   string        `json:"pack"`
			Status string        `json:"status"`
			Saved  *string       `json:"saved"`
			Drift  []ReplayDrift `json:"drift"`
		}
		if err := json.Unmarshal(raw, &rr); err != nil {
			return false, fmt.Errorf("report: %v", unmarshalError(err))
		}
		h, err := store.ParseRef(rr.Pack)
		if err != nil {
			return false, fmt.Errorf("report: pack: %v", err)
		}
		rp.Report = ReplayReport{Pack: h, Status: rr.Status, Drift: rr.Drift}
		if rr.Saved != nil {
			s, err := parseURI(*rr.Saved)
			if err != nil {
				return false, fmt.Errorf("report: saved: %v", err)
			}
			rp.Report.Saved = &s
		}
		return true, nil
	case "":
		return false, errors.New("no \"event\" key; a replay stream has step lines and a report line")
	default:
		// Events this version does not know (progress, notes) carry no
		// outcome: skip them, as a jq filter on the stream would.
		return false, nil
	}
}

func unmarshalError(err error) error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return fmt.Errorf("%s: must be %s, not %s", ute.Field, ute.Type, ute.Value)
	}
	return err
}

// parseURI accepts ctx://<hex> and sha256:<hex>.
func parseURI(s string) (store.Hash, error) {
	if hx, ok := bytes.CutPrefix([]byte(s), []byte("ctx://")); ok {
		return store.ParseHex(string(hx))
	}
	return store.ParseRef(s)
}

// Apply returns the replayed run: the original pack with each replayed
// step's output replaced by what the replay produced (none for a failed
// step; a recorded step keeps its recording), the dependency drift of the
// report written into the environment (the tool versions and fields the
// replay ran with), and parent naming the original. orig must be the pack
// the report names; it is not changed.
func (rp *Replay) Apply(orig *pack.Manifest) (*pack.Manifest, []string, error) {
	var warnings []string
	m := *orig
	m.Hash = ""
	m.Steps = append([]pack.Step(nil), orig.Steps...)
	seen := make([]bool, len(m.Steps))
	for _, s := range rp.Steps {
		if s.Index >= len(m.Steps) {
			return nil, nil, fmt.Errorf("replay stream line %d: step %d does not exist: pack %s has %d steps", s.Line, s.Index, rp.Report.Pack, len(m.Steps))
		}
		st := &m.Steps[s.Index]
		if s.Tool != st.Tool {
			return nil, nil, fmt.Errorf("replay stream line %d: step %d is %q but in pack %s it is %q: the stream is not a replay of this pack", s.Line, s.Index, s.Tool, rp.Report.Pack, st.Tool)
		}
		if seen[s.Index] {
			return nil, nil, fmt.Errorf("replay stream line %d: step %d is given twice", s.Line, s.Index)
		}
		seen[s.Index] = true
		switch s.Status {
		case statusFailed:
			st.OutputRef, st.OutputSize = nil, nil
		case statusRecorded:
		default:
			h := *s.Actual
			st.OutputRef = &h
			st.OutputSize = s.ActualSize
			if h == derefHash(orig.Steps[s.Index].OutputRef) && s.ActualSize == nil {
				st.OutputSize = orig.Steps[s.Index].OutputSize
			}
		}
	}
	missing := 0
	for _, ok := range seen {
		if !ok {
			missing++
		}
	}
	if missing > 0 {
		warnings = append(warnings, fmt.Sprintf("the replay stream has no line for %d of %d steps; their recorded outputs stand in", missing, len(seen)))
	}
	env, err := applyEnvironment(orig.Environment, rp.Report.Drift)
	if err != nil {
		return nil, nil, err
	}
	m.Environment = env
	p := rp.Report.Pack
	m.Parent = &p
	return &m, warnings, nil
}

func derefHash(h *store.Hash) store.Hash {
	if h == nil {
		return store.Hash{}
	}
	return *h
}

// applyEnvironment writes the replay's dependency drift into a copy of the
// environment: tool_version entries set tool_versions[tool], environment
// entries set the field, each to the current value. Other kinds (a missing
// input or tool) are outcomes of steps, already in the step lines.
func applyEnvironment(env json.RawMessage, drift []ReplayDrift) (json.RawMessage, error) {
	if len(drift) == 0 {
		return env, nil
	}
	obj := map[string]any{}
	if len(env) > 0 && string(env) != "null" {
		v, err := decode(env)
		if err != nil {
			return nil, fmt.Errorf("environment: %v", err)
		}
		o, ok := v.(map[string]any)
		if !ok {
			return env, nil
		}
		obj = o
	}
	changed := false
	for _, d := range drift {
		cur, _ := d.Current.(string)
		kind, _ := d.Kind.(string)
		tool, _ := d.Tool.(string)
		field, _ := d.Field.(string)
		if cur == "" {
			continue
		}
		switch kind {
		case "tool_version":
			if tool == "" {
				continue
			}
			tv, _ := obj["tool_versions"].(map[string]any)
			if tv == nil {
				tv = map[string]any{}
			}
			tv[tool] = cur
			obj["tool_versions"] = tv
			changed = true
		case "environment":
			if field == "" || field == "tool_versions" {
				continue
			}
			obj[field] = cur
			changed = true
		}
	}
	if !changed {
		return env, nil
	}
	c, err := jcs.Canonicalize(encodeValue(obj))
	if err != nil {
		return nil, fmt.Errorf("environment: %v", err)
	}
	return c, nil
}
