package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Version is the suite object's format version.
const Version = "0.1"

// Kind marks a suite object, so it is never taken for a pack.
const Kind = "ctx.suite"

// Manifest is a suite object: every run of the suite, in task order. Its
// hash, the suite's name in the store, is SHA-256 over its RFC 8785
// canonical form. The suite's own name is not in it (refs/suites/NAME
// names it, as a tag names a pack), so the same runs under two names are
// one object.
type Manifest struct {
	Kind    string `json:"kind"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of a suite: the task and epoch it was, its pack, its
// outcome (the pack's, or one read from a results file), and what show and
// export list of it without reading the pack.
type Run struct {
	Task      string        `json:"task"`
	Epoch     int           `json:"epoch"`
	Name      string        `json:"name,omitempty"`
	Pack      store.Hash    `json:"pack"`
	Outcome   *pack.Outcome `json:"outcome,omitempty"`
	End       *pack.End     `json:"end,omitempty"`
	Model     string        `json:"model"`
	Created   string        `json:"created,omitempty"`
	Steps     int           `json:"steps"`
	ToolCalls int           `json:"tool_calls"`
	Tokens    *int64        `json:"tokens,omitempty"`
	CostUSD   *float64      `json:"cost_usd,omitempty"`
	Duration  *float64      `json:"duration_s,omitempty"` // first to last step time, seconds
}

// Passed is the run's verdict, nil when it has none.
func (r *Run) Passed() *bool {
	if r.Outcome == nil {
		return nil
	}
	return r.Outcome.Passed
}

// Score is the run's score as JSON, nil when it has none.
func (r *Run) Score() json.RawMessage {
	if r.Outcome == nil || len(r.Outcome.Score) == 0 {
		return nil
	}
	return r.Outcome.Score
}

// Encode returns the canonical bytes of m and their hash.
func Encode(m *Manifest) ([]byte, store.Hash, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, store.Hash{}, err
	}
	canon, err := jcs.Canonicalize(buf.Bytes())
	if err != nil {
		return nil, store.Hash{}, fmt.Errorf("suite cannot be canonicalized: %w", err)
	}
	return canon, store.Sum(canon), nil
}

// Parse decodes a suite object.
func Parse(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m.Kind != Kind {
		return nil, errors.New("not a suite object")
	}
	if m.Version != Version {
		return nil, fmt.Errorf("suite version %q is not supported (this ctx reads %q)", m.Version, Version)
	}
	return &m, nil
}

// Named is a suite as a verb names it: its name, its object's hash and
// the object.
type Named struct {
	Name string
	Hash store.Hash
	*Manifest
}

// Load reads the suite refs/suites/NAME names.
func Load(st *store.Store, name string) (*Named, error) {
	h, err := st.ReadSuiteRef(name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, text.WithHints(err, fmt.Sprintf("'ctx suite add %s SOURCE...' makes it", name))
		}
		return nil, err
	}
	b, err := st.ReadAll(h)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", name, err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("suite %s (%s): %w", name, h, err)
	}
	return &Named{Name: name, Hash: h, Manifest: m}, nil
}

// Store writes m as an object and points refs/suites/NAME at it.
func Store(st *store.Store, name string, m *Manifest) (store.Hash, error) {
	canon, h, err := Encode(m)
	if err != nil {
		return h, err
	}
	unlock, err := st.LockWrites()
	if err != nil {
		return h, err
	}
	defer unlock()
	if _, _, err := st.PutObject(canon); err != nil {
		return h, err
	}
	return h, st.WriteSuiteRef(name, h)
}
