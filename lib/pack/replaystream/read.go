package replaystream

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

// Stream is a whole replay stream: its step lines, then its report.
type Stream struct {
	Steps  []Step
	Report Report
}

// ErrNoReport says a replay stream ended before its report line, which is
// what happens when ctx replay is interrupted or fails to start.
var ErrNoReport = errors.New("the replay stream ended without a report line (did ctx replay stop early?)")

// Read reads a replay stream a line at a time and holds it to its shape:
// every line valid JSON with no duplicate key; step lines with an index, a
// tool, a known status and the actual hash that status needs; a report
// line last, naming its pack. Events of other kinds (progress, notes) are
// skipped, as a jq filter on the stream would skip them.
func Read(r io.Reader) (*Stream, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var s Stream
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
			report, err := s.line(t, n)
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
	return &s, nil
}

// line reads one line of the stream; report says it was the report.
func (s *Stream) line(raw []byte, n int) (report bool, err error) {
	// Hold the line to the canonical reading: no duplicate keys, no
	// invalid UTF-8, so no two readers can take it differently.
	if _, err := jcs.Canonicalize(raw); err != nil {
		return false, fmt.Errorf("not valid JSON: %v", err)
	}
	var obj map[string]json.RawMessage
	var event string
	if json.Unmarshal(raw, &obj) != nil || json.Unmarshal(obj["event"], &event) != nil && obj["event"] != nil {
		return false, errors.New("each line must be a JSON object with an \"event\" key")
	}
	switch event {
	case "step":
		st, err := readStep(obj, n)
		if err != nil {
			return false, err
		}
		s.Steps = append(s.Steps, st)
		return false, nil
	case "report":
		rep, err := readReport(obj)
		if err != nil {
			return false, err
		}
		s.Report = rep
		return true, nil
	case "":
		return false, errors.New("no \"event\" key; a replay stream has step lines and a report line")
	}
	return false, nil
}

// field decodes the value of key k into v, when it is there and not null;
// it says whether it was.
func field(obj map[string]json.RawMessage, k string, v any) (bool, error) {
	raw, ok := obj[k]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return true, fmt.Errorf("%s: must be %s, not %s", k, ute.Type, ute.Value)
		}
		return true, fmt.Errorf("%s: %v", k, err)
	}
	return true, nil
}

func readStep(obj map[string]json.RawMessage, n int) (Step, error) {
	st := Step{Event: "step", Line: n}
	var status, actual string
	var err error
	has := map[string]bool{}
	for _, f := range []struct {
		k string
		v any
	}{{"index", &st.Index}, {"tool", &st.Tool}, {"status", &status}, {"actual", &actual}, {"actual_size", &st.ActualSize}} {
		if has[f.k], err = field(obj, f.k, f.v); err != nil {
			return st, fmt.Errorf("step: %v", err)
		}
	}
	st.Status = Status(status)
	switch {
	case !has["index"] || st.Index < 0:
		return st, errors.New("step: index: missing or negative")
	case !has["tool"]:
		return st, errors.New("step: tool: missing")
	case !st.Status.known():
		return st, fmt.Errorf("step %d: unknown status %q (matched, diverged, diverged_expected, failed, recorded, skipped_rejected or not_allowed)", st.Index, st.Status)
	case !has["actual"] && st.Status.Ran():
		return st, fmt.Errorf("step %d: status %s needs an actual hash", st.Index, st.Status)
	}
	if !has["actual"] {
		st.ActualSize = nil
		return st, nil
	}
	h, err := store.ParseRef(actual)
	if err != nil {
		return st, fmt.Errorf("step %d: actual: %v", st.Index, err)
	}
	st.Actual = &h
	if st.ActualSize != nil && *st.ActualSize < 0 {
		return st, fmt.Errorf("step %d: actual_size: negative", st.Index)
	}
	return st, nil
}

func readReport(obj map[string]json.RawMessage) (Report, error) {
	rep := Report{Event: "report"}
	var p, status string
	has := map[string]bool{}
	var err error
	for _, f := range []struct {
		k string
		v any
	}{{"pack", &p}, {"status", &status}, {"saved", &rep.Saved}, {"drift", &rep.Drift}} {
		if has[f.k], err = field(obj, f.k, f.v); err != nil {
			return rep, fmt.Errorf("report: %v", err)
		}
	}
	rep.Status = Fidelity(status)
	if rep.Pack, err = store.ParseRef(p); err != nil {
		return rep, fmt.Errorf("report: pack: %v", err)
	}
	if has["saved"] {
		if _, err := parseURI(rep.Saved); err != nil {
			return rep, fmt.Errorf("report: saved: %v", err)
		}
	}
	return rep, nil
}
