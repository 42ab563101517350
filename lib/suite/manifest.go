package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
			return nil, text.WithHints(err, fmt.Sprintf("'ctx suite add %s SOURCE...' makes it; 'ctx suite list' lists the suites", name))
		}
		return nil, err
	}
	return loadObject(st, name, h)
}

// loadObject reads the suite object h, which the suite is called by name.
func loadObject(st *store.Store, name string, h store.Hash) (*Named, error) {
	b, err := st.ReadAll(h)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", name, err)
	}
	m, err := Parse(b)
	if err != nil {
		if _, perr := pack.Parse(b); perr == nil {
			return nil, text.WithHints(fmt.Errorf("%s is a pack, not a suite", name), "name a suite by its name or by the ctx:// name 'ctx suite add' printed ('ctx suite list' lists them); 'ctx show' shows a pack")
		}
		return nil, fmt.Errorf("suite %s (%s): %w", name, h, err)
	}
	return &Named{Name: name, Hash: h, Manifest: m}, nil
}

// Resolve reads the suite arg names: a suite's name (refs/suites/NAME),
// or its object as ctx suite add prints it (ctx://HEX), sha256:HEX, HEX,
// or a unique prefix of 4 or more hex digits (the suites named in
// refs/suites/ first, then every object). A suite's name is never hex
// digits only (store.CheckSuiteName), so the two never meet. A suite
// named by its object keeps arg as its name.
func Resolve(st *store.Store, arg string) (*Named, error) {
	nameErr := store.CheckSuiteName(arg)
	if nameErr == nil {
		return Load(st, arg)
	}
	hx := strings.TrimPrefix(strings.TrimPrefix(arg, "ctx://"), "sha256:")
	switch hexDigits := strings.Trim(strings.ToLower(hx), "0123456789abcdef") == ""; {
	case arg == store.LatestRef:
		// A pack's name: said so below.
	case hexDigits && len(hx) < store.MinPrefix:
		return nil, text.WithHints(fmt.Errorf("%q names no suite: a hash prefix needs at least %d hex digits", arg, store.MinPrefix),
			"'ctx suite list' lists the suites")
	case hx == arg && !hexDigits:
		return nil, nameErr
	}
	h, err := namedPrefix(st, arg)
	if err == nil && h.IsZero() {
		h, err = st.ResolveObject(arg)
	}
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, text.WithHints(fmt.Errorf("no suite named %q", arg), "'ctx suite list' lists the suites")
		}
		return nil, err
	}
	return loadObject(st, arg, h)
}

// namedPrefix is the one suite of refs/suites/ whose hash a short hex
// name arg (4 to 63 digits, after ctx:// or sha256:) begins, or zero.
func namedPrefix(st *store.Store, arg string) (store.Hash, error) {
	hx := strings.TrimPrefix(strings.TrimPrefix(arg, "ctx://"), "sha256:")
	if len(hx) < store.MinPrefix || len(hx) >= 64 || strings.Trim(strings.ToLower(hx), "0123456789abcdef") != "" {
		return store.Hash{}, nil
	}
	names, err := st.SuiteRefs()
	if err != nil {
		return store.Hash{}, err
	}
	var found store.Hash
	for _, n := range names {
		h, err := st.ReadSuiteRef(n)
		if err != nil || !strings.HasPrefix(h.Hex(), strings.ToLower(hx)) {
			continue
		}
		if !found.IsZero() && found != h {
			return store.Hash{}, nil // two suites: let the store say it is ambiguous
		}
		found = h
	}
	return found, nil
}

// ExistsError says the name of a suite being recorded names a suite
// already; nothing was replaced.
type ExistsError struct {
	Name  string
	Suite store.Hash
	Verb  string // the command that would replace it: "ctx suite add"
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("suite %q already names %s", e.Name, e.Suite.URI())
}

// ErrorHints say how to replace it or keep both.
func (e *ExistsError) ErrorHints() []string {
	return []string{fmt.Sprintf("use -f to replace it (%s -f %s ...), or choose another name", e.Verb, e.Name)}
}

// Claim checks that the suite name may be recorded by verb ("ctx suite
// add"): one that names a suite already is refused without force
// (*ExistsError). It returns what the name names now (zero: nothing),
// which Store swaps from.
func Claim(st *store.Store, name, verb string, force bool) (store.Hash, error) {
	h, err := st.ReadSuiteRef(name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Hash{}, nil
	case err != nil && !force:
		return store.Hash{}, text.WithHints(err, "use -f to replace it")
	case err != nil:
		return store.Hash{}, nil
	case !force:
		return h, &ExistsError{Name: name, Suite: h, Verb: verb}
	}
	return h, nil
}

// Store writes m as an object and points refs/suites/NAME at it, if the
// name still names was (zero: nothing), what Claim found: a compare and
// swap (store.UpdateSuiteRef), so a suite another process recorded under
// the name meanwhile is never replaced unseen: Store fails with a
// *store.ChangedError and leaves it. The same suite recorded by both is
// no change.
func Store(st *store.Store, name string, m *Manifest, was store.Hash) (store.Hash, error) {
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
	err = nameSuite(st, name, h, was)
	if errors.As(err, new(*store.ChangedError)) {
		err = text.WithHints(err, fmt.Sprintf("the runs of this suite are stored as packs; run the command again with -f to record them as suite %s", name))
	}
	return h, err
}

// nameSuite points refs/suites/NAME at the suite object h, if the name
// still names was (zero: nothing): a compare and swap with no other
// writer of a suite ref between the look and the write. The caller holds
// the write lock.
func nameSuite(st *store.Store, name string, h, was store.Hash) error {
	swap := store.Swap(store.SuiteLabel(name), was, h)
	return st.UpdateSuiteRef(name, func(old store.Hash, err error) (store.Hash, error) {
		switch {
		case err == nil && old == h:
			return h, nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return h, nil // damaged: Claim let it be replaced (-f)
		}
		return swap(old, err)
	})
}
