package replaystream

import (
	"encoding/json"
	"fmt"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// Replayed returns the replayed run: the recorded run orig with what the
// stream says the replay did, and nothing else. It is what ctx diff X -
// compares and what replay --save stores, so the two always agree:
//
//   - each step the stream names has the replay's output: actual and
//     actual_size for matched, diverged and diverged_expected; none for
//     failed; the recording for recorded (a cassette stands in), for
//     skipped_rejected (the refusal stands in) and for not_allowed
//     (nothing ran to say otherwise); a step the stream does not name
//     keeps its recording, with a warning;
//   - a step the replay compared with its normalised output keeps its
//     recording when it matched (the executor gave the plain result the
//     recording shows in the agent's form); when it diverged, what the
//     replay produced is both its output and its normalised output, so a
//     diff compares the two plain results;
//   - the environment has the values the replay ran with: each
//     environment drift sets its field, each tool_version drift sets
//     tool_versions[tool] to the current version, or removes the entry
//     when the current version is unknown;
//   - parent names orig; every other field (model, prompts, inputs,
//     outputs, created, metadata) is orig's: the stream reports a
//     replay's other findings (changed or missing inputs, missing tools)
//     as drift of the replay, not as part of the run.
//
// orig must be the pack the report names; it is not changed. The result
// has no Hash.
func Replayed(orig *pack.Manifest, s *Stream) (*pack.Manifest, []string, error) {
	var warnings []string
	m := *orig
	m.Hash = ""
	m.Steps = append([]pack.Step(nil), orig.Steps...)
	seen := make([]bool, len(m.Steps))
	for _, r := range s.Steps {
		if r.Index >= len(m.Steps) {
			return nil, nil, fmt.Errorf("replay stream line %d: step %d does not exist: pack %s has %d steps", r.Line, r.Index, s.Report.Pack, len(m.Steps))
		}
		st := &m.Steps[r.Index]
		if r.Tool != st.Tool {
			return nil, nil, fmt.Errorf("replay stream line %d: step %d is %q but in pack %s it is %q: the stream is not a replay of this pack", r.Line, r.Index, r.Tool, s.Report.Pack, st.Tool)
		}
		if seen[r.Index] {
			return nil, nil, fmt.Errorf("replay stream line %d: step %d is given twice", r.Line, r.Index)
		}
		seen[r.Index] = true
		rec := &orig.Steps[r.Index]
		switch {
		case r.Status == Failed:
			st.OutputRef, st.OutputSize, st.NormalizedOutputRef = nil, nil, nil
		case r.Status == Recorded || r.Status == SkippedRejected || r.Status == NotAllowed:
		case rec.NormalizedOutputRef != nil && *rec.NormalizedOutputRef == *r.Actual:
			// Matched the normalised output: the run is as recorded.
		case rec.NormalizedOutputRef != nil:
			h := *r.Actual
			st.OutputRef, st.OutputSize, st.NormalizedOutputRef = &h, r.ActualSize, &h
		default:
			h := *r.Actual
			st.OutputRef, st.OutputSize = &h, r.ActualSize
			if rec.OutputRef != nil && *rec.OutputRef == h && r.ActualSize == nil {
				st.OutputSize = rec.OutputSize
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
	env, err := environment(orig.Environment, s.Report.Drift)
	if err != nil {
		return nil, nil, err
	}
	m.Environment = env
	p := s.Report.Pack
	m.Parent = &p
	return &m, warnings, nil
}

// environment writes the replay's dependency drift into a copy of the
// recorded environment. Other kinds (a missing input or tool) are
// outcomes of steps, already in the step lines.
func environment(env json.RawMessage, drift []Drift) (json.RawMessage, error) {
	changed := false
	for _, d := range drift {
		changed = changed || d.Kind == DriftToolVersion && d.Tool != "" || d.Kind == DriftEnvironment && d.Current != nil && d.Field != "" && d.Field != "tool_versions"
	}
	if !changed {
		return env, nil
	}
	obj := map[string]json.RawMessage{}
	if len(env) > 0 && string(env) != "null" {
		if err := json.Unmarshal(env, &obj); err != nil || obj == nil {
			return env, nil // not an object: nothing to write into
		}
	}
	tv := map[string]json.RawMessage{}
	if raw, ok := obj["tool_versions"]; ok {
		_ = json.Unmarshal(raw, &tv) // not an object: replaced
		if tv == nil {
			tv = map[string]json.RawMessage{}
		}
	}
	versions := false
	for _, d := range drift {
		switch {
		case d.Kind == DriftEnvironment && d.Current != nil && d.Field != "" && d.Field != "tool_versions":
			obj[d.Field] = jsonString(*d.Current)
		case d.Kind == DriftToolVersion && d.Tool != "" && d.Current != nil:
			tv[d.Tool], versions = jsonString(*d.Current), true
		case d.Kind == DriftToolVersion && d.Tool != "":
			// The version that ran is unknown: the recorded one is no
			// longer true of this run.
			delete(tv, d.Tool)
			versions = true
		}
	}
	if versions {
		b, err := json.Marshal(tv)
		if err != nil {
			return nil, err
		}
		obj["tool_versions"] = b
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	c, err := jcs.Canonicalize(b)
	if err != nil {
		return nil, fmt.Errorf("environment: %v", err)
	}
	return c, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
