package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Status is the verdict on one artifact or pack.
type Status string

// The statuses of the contract. Only Verified is a pass.
const (
	Verified     Status = "verified"      // the artifact is the pack's output, and the pack is intact
	Modified     Status = "modified"      // the artifact's bytes are not the pack's output (or it is gone)
	NoProvenance Status = "no_provenance" // no sidecar beside the artifact
	Broken       Status = "broken"        // the sidecar leads nowhere: pack not found, no such output, a bad sidecar
	Corrupt      Status = "corrupt"       // the pack is there but some of its objects are missing or damaged
	Signed       Status = "signed"        // verified, and an attestation signed by the --key covers it
	BadSignature Status = "bad_signature" // verified, but its attestations fail under the --key: another key, altered, or not about it
	Unsigned     Status = "unsigned"      // verified, but its pack has no attestation for the --key to check
)

// Problem is a missing or damaged object of a pack's closure.
type Problem struct {
	Kind   string `json:"kind"`   // "missing" or "corrupt"
	Object string `json:"object"` // sha256:<hex>
	Where  string `json:"where"`  // the part of the pack that names it: "outputs[0] (result.md)", "manifest"
	Detail string `json:"detail"`
}

// Report is what ctx verify says about one artifact, or about one pack when
// a pack was named (Artifact is then empty). Empty strings and nil lists
// mean "not known" and are written as null, so every report has every key.
type Report struct {
	Artifact   string
	Status     Status
	Pack       string // sha256:<hex>, a name ctx show and ctx replay accept
	Output     string // the output's name in the pack
	Created    string
	Tools      []string
	Inputs     []string // refs of the pack's inputs
	Confidence string
	Notes      string
	Expected   string // the hash the artifact should have
	Actual     string // the hash it has
	Reason     string // why the status is not verified
	Problems   []Problem
	KeyID      string // the key the signature was checked against, when it was
	Envelope   string // the attestation (a DSSE envelope) that signs it, or the first that failed

	// InputNames are the names of the pack's inputs, for human output;
	// not part of the JSON report.
	InputNames []string
	// Loaded says the pack's manifest was read (Created is then "" only
	// for a run that recorded no time); not part of the JSON report.
	Loaded bool
}

// MarshalJSON writes the report with every key, in the contract's order,
// null where a value is not known.
func (r Report) MarshalJSON() ([]byte, error) {
	null := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	problems := r.Problems
	if problems == nil {
		problems = []Problem{}
	}
	// HTML escaping off, as everywhere in ctx: an encoder's setting does not
	// reach inside a MarshalJSON, so it is set here.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Artifact   *string   `json:"artifact"`
		Status     Status    `json:"status"`
		Pack       *string   `json:"pack"`
		Output     *string   `json:"output"`
		Created    *string   `json:"created"`
		Tools      []string  `json:"tools"`
		Inputs     []string  `json:"inputs"`
		Confidence *string   `json:"confidence"`
		Notes      *string   `json:"notes"`
		Expected   *string   `json:"expected"`
		Actual     *string   `json:"actual"`
		Reason     *string   `json:"reason"`
		Problems   []Problem `json:"problems"`
		KeyID      *string   `json:"key_id"`
		Attest     *string   `json:"attestation"`
	}{null(r.Artifact), r.Status, null(r.Pack), null(r.Output), null(r.Created), r.Tools, r.Inputs,
		null(r.Confidence), null(r.Notes), null(r.Expected), null(r.Actual), null(r.Reason), problems,
		null(r.KeyID), null(r.Envelope)})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// Verifier checks artifacts and packs against one store. It remembers what
// it learnt about each pack, so verifying a thousand outputs of one run
// rehashes that run's objects once.
type Verifier struct {
	st    *store.Store
	packs map[store.Hash]*packInfo
	keys  *signatures // nil unless WithKey was called
}

// packInfo is what a Verifier keeps of a pack: enough for the reports, not
// the whole manifest, so memory grows with the number of packs met and the
// outputs they have, never with their steps.
type packInfo struct {
	status   Status // "" when the manifest loaded and every object is intact
	reason   string
	problems []Problem
	loaded   bool // the manifest was read and is intact

	created    string
	tools      []string
	inputs     []string
	inputNames []string
	outputs    map[string]pack.Output
}

// New returns a Verifier for st.
func New(st *store.Store) *Verifier {
	return &Verifier{st: st, packs: map[store.Hash]*packInfo{}}
}

// Artifact verifies the file at path against its sidecar and the pack the
// sidecar names. Findings are the report's status; the error is for trouble
// that stops the check itself (an I/O error other than a missing file).
func (v *Verifier) Artifact(path string) (Report, error) {
	r := Report{Artifact: path}
	sc, err := sidecar.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Status = NoProvenance
		r.Reason = fmt.Sprintf("no sidecar %s", sidecar.Path(path))
		if base, ok := strings.CutSuffix(path, sidecar.Suffix); ok && base != "" {
			r.Reason += fmt.Sprintf("; %s is itself a sidecar: verify %s", path, base)
		}
		return r, nil
	case errors.Is(err, sidecar.ErrNotSidecar):
		r.Status, r.Reason = Broken, err.Error()
		return r, nil
	case err != nil:
		return r, err
	}

	// What the sidecar claims stands in the report until the pack, which is
	// the authority, replaces it.
	r.Pack, r.Output, r.Expected = sc.ContextPack, sc.Output, sc.ContentRef
	r.Tools, r.Inputs, r.Confidence, r.Notes = sc.Tools, sc.Inputs, sc.Confidence, sc.Notes
	if r.Tools == nil {
		r.Tools = []string{}
	}
	if r.Inputs == nil {
		r.Inputs = []string{}
	}

	missing := ""
	actual, err := sidecar.HashFile(path)
	switch {
	case err == nil:
		r.Actual = actual.String()
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		missing = fmt.Sprintf("the artifact %s is missing (its sidecar remains)", path)
	default:
		var nr sidecar.NotRegularError
		if !errors.As(err, &nr) {
			return r, fmt.Errorf("cannot read %s: %w", path, text.UnwrapPath(err))
		}
		missing = fmt.Sprintf("%s is no longer a file: %s", path, nr)
	}

	h, _ := store.ParseRef(sc.ContextPack) // sidecar.Parse checked it
	pi, err := v.pack(h)
	if err != nil {
		return r, err
	}
	if pi.loaded {
		r.Created, r.Tools, r.Inputs, r.InputNames, r.Loaded = pi.created, pi.tools, pi.inputs, pi.inputNames, true
	}
	if !pi.loaded {
		r.Status, r.Reason, r.Problems = pi.status, pi.reason, pi.problems
		return r, nil
	}

	o, ok := v.output(pi, sc, path)
	if !ok {
		r.Status = Broken
		if sc.Output != "" {
			r.Reason = fmt.Sprintf("pack %s has no output named %q", sc.ContextPack, sc.Output)
		} else {
			r.Reason = fmt.Sprintf("the sidecar names no output, and no output of pack %s matches %s", sc.ContextPack, path)
		}
		return r, nil
	}
	r.Output, r.Expected = o.Name, o.ContentRef.String()
	r.Confidence, r.Notes = o.Confidence, o.Notes
	if sc.ContentRef != "" && sc.ContentRef != r.Expected {
		r.Status = Broken
		r.Reason = fmt.Sprintf("the sidecar's content_ref %s disagrees with output %q of pack %s, which recorded %s", sc.ContentRef, o.Name, sc.ContextPack, r.Expected)
		return r, nil
	}
	if pi.status != "" {
		r.Status, r.Reason, r.Problems = pi.status, pi.reason, pi.problems
		return r, nil
	}
	switch {
	case missing != "":
		r.Status, r.Reason = Modified, missing
	case r.Actual != r.Expected:
		r.Status = Modified
		r.Reason = fmt.Sprintf("the artifact's content differs from output %q of the pack", o.Name)
	default:
		r.Status = Verified
		return r, v.checkSignature(&r, h, sc.Attestations, o)
	}
	return r, nil
}

// output finds the pack's output a sidecar speaks of: by its output name;
// for a sidecar without one (the seed's shape), by its content_ref, else by
// the artifact's path ending in an output's name. A match must be unique.
func (v *Verifier) output(pi *packInfo, sc sidecar.Sidecar, path string) (pack.Output, bool) {
	if sc.Output != "" {
		o, ok := pi.outputs[sc.Output]
		return o, ok
	}
	var found []pack.Output
	slash := strings.ReplaceAll(path, `\`, "/")
	for name, o := range pi.outputs {
		if sc.ContentRef != "" {
			if o.ContentRef.String() == sc.ContentRef {
				found = append(found, o)
			}
		} else if slash == name || strings.HasSuffix(slash, "/"+name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return pack.Output{}, false
	}
	return found[0], true
}

// Pack checks the whole closure of pack h: the manifest and every object it
// references, rehashed. The report has no artifact.
func (v *Verifier) Pack(h store.Hash) (Report, error) {
	r := Report{Pack: h.String()}
	pi, err := v.pack(h)
	if err != nil {
		return r, err
	}
	if pi.loaded {
		r.Created, r.Tools, r.Inputs, r.InputNames, r.Loaded = pi.created, pi.tools, pi.inputs, pi.inputNames, true
	}
	r.Status, r.Reason, r.Problems = pi.status, pi.reason, pi.problems
	if r.Status == "" {
		r.Status = Verified
		return r, v.checkSignature(&r, h, nil, pack.Output{Name: "", ContentRef: h})
	}
	return r, nil
}

// pack loads pack h and checks its closure, once per Verifier.
func (v *Verifier) pack(h store.Hash) (*packInfo, error) {
	if pi, ok := v.packs[h]; ok {
		return pi, nil
	}
	pi := &packInfo{}
	m, err := pack.Load(v.st, h)
	var corrupt *store.CorruptError
	switch {
	case err == nil:
	case errors.Is(err, store.ErrNotFound):
		pi.status, pi.reason = Broken, fmt.Sprintf("pack %s is not in the store", h)
	case errors.As(err, &corrupt):
		pi.status = Corrupt
		pi.reason = fmt.Sprintf("the manifest of pack %s is damaged: %s", h, corruptDetail(corrupt))
		pi.problems = []Problem{{Kind: "corrupt", Object: h.String(), Where: "manifest", Detail: corruptDetail(corrupt)}}
	case errors.Is(err, pack.ErrNotPack):
		pi.status, pi.reason = Broken, fmt.Sprintf("object %s is not a pack manifest", h)
	case isIOError(err):
		return nil, err
	default:
		pi.status, pi.reason = Broken, err.Error()
	}
	if m != nil {
		pi.loaded = true
		pi.created = m.CreatedText()
		pi.tools = m.Tools()
		pi.inputs = sidecar.InputRefs(m) // as a sidecar lists them
		pi.inputNames = make([]string, len(m.Inputs))
		for i, in := range m.Inputs {
			pi.inputNames[i] = in.Name
		}
		pi.outputs = make(map[string]pack.Output, len(m.Outputs))
		for _, o := range m.Outputs {
			o.Metadata = nil // not reported; no need to keep it
			pi.outputs[o.Name] = o
		}
		if err := v.closure(pi, m); err != nil {
			return nil, err
		}
	}
	v.packs[h] = pi
	return pi, nil
}

// closure rehashes every object m references and records the problems.
func (v *Verifier) closure(pi *packInfo, m *pack.Manifest) error {
	for _, p := range pack.CheckClosure(v.st, m) {
		var corrupt *store.CorruptError
		switch {
		case errors.Is(p.Err, store.ErrNotFound):
			pi.problems = append(pi.problems, Problem{Kind: "missing", Object: p.Hash.String(), Where: p.Where, Detail: "not in the store"})
		case errors.As(p.Err, &corrupt):
			pi.problems = append(pi.problems, Problem{Kind: "corrupt", Object: p.Hash.String(), Where: p.Where, Detail: corruptDetail(corrupt)})
		default:
			return fmt.Errorf("checking %s of pack %s: %w", p.Where, m.Hash, p.Err)
		}
	}
	switch n := len(pi.problems); {
	case n == 1:
		p := pi.problems[0]
		pi.status = Corrupt
		pi.reason = fmt.Sprintf("object %s (%s) of pack %s is %s", p.Object, p.Where, m.Hash, p.describe())
	case n > 1:
		p := pi.problems[0]
		pi.status = Corrupt
		pi.reason = fmt.Sprintf("%d objects of pack %s are missing or damaged; the first, %s (%s), is %s", n, m.Hash, p.Object, p.Where, p.describe())
	}
	return nil
}

// describe says what is wrong with the object, to follow "is".
func (p Problem) describe() string {
	if p.Kind == "missing" {
		return "missing"
	}
	return "damaged: " + p.Detail
}

// corruptDetail says what is wrong with a damaged object without repeating
// its name.
func corruptDetail(e *store.CorruptError) string {
	if e.Actual != nil {
		return fmt.Sprintf("its content hashes to %s", *e.Actual)
	}
	return e.Detail
}

// isIOError reports whether err is trouble reading the disk rather than a
// finding about the pack.
func isIOError(err error) bool {
	var pe *fs.PathError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &errno)
}
