package diff

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Options control a comparison.
type Options struct {
	// Align is AlignIndex (the default) or AlignSequence.
	Align string
	// Advise sets the report's Advice: with index alignment, whether the
	// sequence alignment would read better. It reads the steps again when
	// the index alignment has tool changes.
	Advise bool
}

// Compare reports the drift from run a to run b. The manifests' Hash fields
// name the sides in the report; Compare does not change either manifest.
func Compare(a, b *pack.Manifest, opts Options) (*Report, error) {
	return CompareSteps(a, b, pack.StepsOf(a), pack.StepsOf(b), opts)
}

// CompareSteps is Compare with each side's steps read from stepsA and
// stepsB (the manifests' own Steps are not looked at): two stored packs
// are compared a step of each at a time (pack.StoredSteps), in the memory
// of one step and the alignment.
func CompareSteps(a, b *pack.Manifest, stepsA, stepsB pack.Steps, opts Options) (*Report, error) {
	switch opts.Align {
	case "", AlignIndex, AlignSequence:
	default:
		return nil, fmt.Errorf("unknown alignment %q (index or sequence)", opts.Align)
	}
	c := &comparison{a: a, b: b, sa: stepsA, sb: stepsB}
	c.model()
	c.systemPrompt()
	c.prompts()
	c.inputs()
	alignment, err := c.steps(opts.Align)
	if err != nil {
		return nil, err
	}
	c.outputs()
	c.environment()

	r := &Report{A: a.Hash, B: b.Hash, Drift: c.out, Alignment: alignment}
	if r.Drift == nil {
		r.Drift = []Entry{}
	}
	if opts.Advise && opts.Align != AlignSequence {
		if err := c.advise(r); err != nil {
			return nil, err
		}
	}
	for _, e := range r.Drift {
		r.Summary.add(e.Type)
		if e.Section != SectionSteps {
			continue
		}
		// The steps before the first drifting one are the same on both
		// sides, so its index is the same in A and B (see alignSequence).
		s := *e.Step
		if e.StepB != nil {
			s = min(s, *e.StepB)
		}
		if r.FirstDivergence == nil || s < *r.FirstDivergence {
			r.FirstDivergence = &s
		}
	}
	if va, vb := verdictWords(a), verdictWords(b); va != vb {
		r.Verdict = &VerdictChange{A: va, B: vb, Detail: fmt.Sprintf("the verdict changed: %s in A, %s in B", va, vb)}
	}
	return r, nil
}

// verdictWords is how a run was judged: its outcome's verdict word and
// score; a run without a verdict that ended in an error is errored (in
// its end's words), one nothing judged has no verdict.
func verdictWords(m *pack.Manifest) string {
	o := m.Outcome
	v := o.Verdict()
	if (v == "" || v == pack.VerdictJudged) && m.End != nil && m.End.State == "error" {
		v = pack.VerdictErrored
		if m.End.Message != "" {
			v += " (" + text.Clip(m.End.Message, 60) + ")"
		}
	}
	if v == "" {
		return pack.VerdictNone
	}
	if o == nil || len(o.Score) == 0 {
		return v
	}
	score := string(o.Score)
	if s, err := strconv.Unquote(score); err == nil {
		score = s
	}
	if v == pack.VerdictJudged {
		return "score " + text.Clip(score, 40)
	}
	return fmt.Sprintf("%s (score %s)", v, text.Clip(score, 40))
}

type comparison struct {
	a, b   *pack.Manifest
	sa, sb pack.Steps
	out    []Entry
}

func (c *comparison) add(e Entry) { c.out = append(c.out, e) }

func (c *comparison) model() {
	if c.a.Model.Identifier != c.b.Model.Identifier {
		c.add(Entry{
			Type: ModelDrift, Section: SectionModel, Field: "/identifier", Change: Modified,
			A: encodeValue(c.a.Model.Identifier), B: encodeValue(c.b.Model.Identifier),
			Detail: fmt.Sprintf("model identifier changed from %s to %s", show(encodeValue(c.a.Model.Identifier)), show(encodeValue(c.b.Model.Identifier))),
		})
	}
	for _, p := range compareObjects(c.a.Model.Parameters, c.b.Model.Parameters) {
		c.add(Entry{
			Type: ModelDrift, Section: SectionModel, Field: "/parameters" + p.Path, Change: p.Change,
			A: p.A, B: p.B,
			Detail: "model " + paramPhrase(p),
		})
	}
}

// compareObjects compares two optional JSON objects, absent being empty.
func compareObjects(a, b json.RawMessage) []Param {
	if len(a) == 0 || string(a) == "null" {
		a = json.RawMessage("{}")
	}
	if len(b) == 0 || string(b) == "null" {
		b = json.RawMessage("{}")
	}
	if paramKey(a) == paramKey(b) {
		return nil
	}
	return compareParams(a, b)
}

func (c *comparison) systemPrompt() {
	ha, hb := c.a.SystemPrompt, c.b.SystemPrompt
	if sameRef(ha, hb) {
		return
	}
	e := Entry{Type: PromptDrift, Section: SectionSystemPrompt, Change: change(ha != nil, hb != nil), A: ref(ha), B: ref(hb)}
	switch e.Change {
	case Modified:
		e.Detail = fmt.Sprintf("system prompt changed from %s to %s", short(ha), short(hb))
	case Added:
		e.Detail = fmt.Sprintf("system prompt added (%s)", short(hb))
	default:
		e.Detail = fmt.Sprintf("system prompt removed (was %s)", short(ha))
	}
	c.add(e)
}

func (c *comparison) prompts() {
	pa, pb := c.a.Prompts, c.b.Prompts
	for i := 0; i < max(len(pa), len(pb)); i++ {
		idx := i
		e := Entry{Type: PromptDrift, Section: SectionPrompts, Index: &idx}
		switch {
		case i >= len(pa):
			p := pb[i]
			e.Change, e.Role, e.A, e.B = Added, p.Role, null(), ref(&p.ContentRef)
			e.Detail = fmt.Sprintf("prompt %d (%s) added (%s)", i, text.Clip(p.Role, 40), short(&p.ContentRef))
		case i >= len(pb):
			p := pa[i]
			e.Change, e.Role, e.A, e.B = Removed, p.Role, ref(&p.ContentRef), null()
			e.Detail = fmt.Sprintf("prompt %d (%s) removed (was %s)", i, text.Clip(p.Role, 40), short(&p.ContentRef))
		default:
			a, b := pa[i], pb[i]
			sameContent, sameRole := a.ContentRef == b.ContentRef, a.Role == b.Role
			if sameContent && sameRole {
				continue
			}
			e.Change, e.Role, e.A, e.B = Modified, b.Role, ref(&a.ContentRef), ref(&b.ContentRef)
			switch {
			case sameContent:
				e.ARole, e.BRole = a.Role, b.Role
				e.Detail = fmt.Sprintf("prompt %d: role changed from %s to %s", i, text.Clip(a.Role, 40), text.Clip(b.Role, 40))
			case sameRole:
				e.Detail = fmt.Sprintf("prompt %d (%s) changed from %s to %s", i, text.Clip(a.Role, 40), short(&a.ContentRef), short(&b.ContentRef))
			default:
				e.ARole, e.BRole = a.Role, b.Role
				e.Detail = fmt.Sprintf("prompt %d changed from %s (%s) to %s (%s)", i, short(&a.ContentRef), text.Clip(a.Role, 40), short(&b.ContentRef), text.Clip(b.Role, 40))
			}
		}
		c.add(e)
	}
}

// named is a file of either list, for matching inputs and outputs by name.
type named struct {
	ref  store.Hash
	size int64
}

// byName indexes files by name; a name given twice keeps its first entry.
func byName[T any](list []T, get func(T) (string, named)) (map[string]named, []string) {
	m := make(map[string]named, len(list))
	var names []string
	for _, f := range list {
		n, v := get(f)
		if _, dup := m[n]; dup {
			continue
		}
		m[n] = v
		names = append(names, n)
	}
	return m, names
}

// files compares two lists of named files; entries come in name order.
func (c *comparison) files(typ, section, what string, a, b map[string]named, namesA, namesB []string) []Entry {
	names := append(append([]string(nil), namesA...), namesB...)
	sort.Strings(names)
	var out []Entry
	for i, n := range names {
		if i > 0 && names[i-1] == n {
			continue
		}
		fa, inA := a[n]
		fb, inB := b[n]
		e := Entry{Type: typ, Section: section, Name: n, Change: change(inA, inB), A: null(), B: null()}
		if inA {
			e.A, e.ASize = ref(&fa.ref), &fa.size
		}
		if inB {
			e.B, e.BSize = ref(&fb.ref), &fb.size
		}
		switch e.Change {
		case Modified:
			if fa.ref == fb.ref {
				continue
			}
			e.Detail = fmt.Sprintf("%s %s changed from %s to %s", what, n, sized(fa.ref, fa.size), sized(fb.ref, fb.size))
		case Added:
			e.Detail = fmt.Sprintf("%s %s added (%s, %s)", what, n, fb.ref.Short(), text.Size(fb.size))
		default:
			e.Detail = fmt.Sprintf("%s %s removed (was %s, %s)", what, n, fa.ref.Short(), text.Size(fa.size))
		}
		out = append(out, e)
	}
	return out
}

func (c *comparison) inputs() {
	get := func(f pack.File) (string, named) { return f.Name, named{f.ContentRef, f.Size} }
	a, na := byName(c.a.Inputs, get)
	b, nb := byName(c.b.Inputs, get)
	for _, e := range c.files(InputDrift, SectionInputs, "input", a, b, na, nb) {
		c.add(e)
	}
}

func (c *comparison) outputs() {
	get := func(o pack.Output) (string, named) { return o.Name, named{o.ContentRef, o.Size} }
	a, na := byName(c.a.Outputs, get)
	b, nb := byName(c.b.Outputs, get)
	entries := c.files(OutputDrift, SectionOutputs, "output", a, b, na, nb)
	// Confidence and notes are part of what an output claims: a change is
	// drift even when the content is the same.
	meta := func(list []pack.Output) map[string]pack.Output {
		m := make(map[string]pack.Output, len(list))
		for _, o := range list {
			if _, dup := m[o.Name]; !dup {
				m[o.Name] = o
			}
		}
		return m
	}
	ma, mb := meta(c.a.Outputs), meta(c.b.Outputs)
	names := make([]string, 0, len(ma))
	for n := range ma {
		if _, ok := mb[n]; ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		oa, ob := ma[n], mb[n]
		for _, f := range []struct{ field, a, b string }{{"confidence", oa.Confidence, ob.Confidence}, {"notes", oa.Notes, ob.Notes}} {
			if f.a == f.b {
				continue
			}
			e := Entry{Type: OutputDrift, Section: SectionOutputs, Name: n, Field: f.field, Change: change(f.a != "", f.b != ""), A: optString(f.a), B: optString(f.b)}
			switch e.Change {
			case Modified:
				e.Detail = fmt.Sprintf("output %s: %s changed from %s to %s", n, f.field, show(e.A), show(e.B))
			case Added:
				e.Detail = fmt.Sprintf("output %s: %s added (%s)", n, f.field, show(e.B))
			default:
				e.Detail = fmt.Sprintf("output %s: %s removed (was %s)", n, f.field, show(e.A))
			}
			entries = append(entries, e)
		}
	}
	// Keep the section in name order, content before confidence and notes.
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	for _, e := range entries {
		c.add(e)
	}
}

func (c *comparison) environment() {
	for _, p := range compareObjects(c.a.Environment, c.b.Environment) {
		e := Entry{Type: EnvironmentDrift, Section: SectionEnvironment, Field: p.Path, Change: p.Change, A: p.A, B: p.B}
		what := "environment " + fieldName(p.Path)
		if tool, ok := strings.CutPrefix(p.Path, "/tool_versions/"); ok && !strings.Contains(tool, "/") {
			e.Tool = unescapePointer(tool)
			what = "tool version of " + e.Tool
		}
		e.Detail = what + " " + changePhrase(p)
		c.add(e)
	}
}

// steps aligns the steps, compares each aligned pair and returns the
// alignment. The steps are read in order, both sides in step: every
// alignment pairs them in increasing order on each side.
func (c *comparison) steps(align string) ([]Pair, error) {
	var pairs []Pair
	if align == AlignSequence {
		in := interner{}
		ka, ta, err := stepKeys(c.sa, c.a.Model.Identifier, in)
		if err != nil {
			return nil, err
		}
		kb, tb, err := stepKeys(c.sb, c.b.Model.Identifier, in)
		if err != nil {
			return nil, err
		}
		pairs = alignSequence(ka, kb, ta, tb)
	} else {
		pairs = alignIndex(c.sa.N, c.sb.N)
	}
	ia, ib := c.sa.Open(), c.sb.Open()
	defer ia.Close()
	defer ib.Close()
	na, nb := 0, 0 // the next index of each side
	var sa, sb *pack.Step
	advance := func(it pack.StepIter, next *int, want int, side string) (*pack.Step, error) {
		var s *pack.Step
		for *next <= want {
			var err error
			if s, err = it.Next(); err != nil {
				if err == io.EOF {
					err = fmt.Errorf("run %s has fewer steps than it said (%d)", side, want)
				}
				return nil, err
			}
			*next++
		}
		return s, nil
	}
	for _, p := range pairs {
		var err error
		if p.A >= 0 {
			if p.A < na-1 || (p.A == na-1 && sa == nil) {
				return nil, fmt.Errorf("alignment out of order at step %d of A", p.A)
			}
			if p.A >= na {
				if sa, err = advance(ia, &na, p.A, "A"); err != nil {
					return nil, err
				}
			}
		}
		if p.B >= 0 {
			if p.B < nb-1 || (p.B == nb-1 && sb == nil) {
				return nil, fmt.Errorf("alignment out of order at step %d of B", p.B)
			}
			if p.B >= nb {
				if sb, err = advance(ib, &nb, p.B, "B"); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case p.A < 0:
			c.add(Entry{Type: ToolDrift, Section: SectionSteps, Step: intp(p.B), Change: Added, Tool: sb.Tool,
				A: null(), B: encodeValue(sb.Tool),
				Detail: fmt.Sprintf("%s %s: added (only in B)", stepWhere(p.B, nil), text.Clip(sb.Tool, 60))})
		case p.B < 0:
			c.add(Entry{Type: ToolDrift, Section: SectionSteps, Step: intp(p.A), Change: Removed, Tool: sa.Tool,
				A: encodeValue(sa.Tool), B: null(),
				Detail: fmt.Sprintf("%s %s: removed (only in A)", stepWhere(p.A, nil), text.Clip(sa.Tool, 60))})
		default:
			c.step(*sa, *sb, p.A, p.B)
		}
	}
	// Read both to their end: a stored pack's hash is checked there.
	for _, it := range []pack.StepIter{ia, ib} {
		for {
			if _, err := it.Next(); err == io.EOF {
				break
			} else if err != nil {
				return nil, err
			}
		}
	}
	return pairs, nil
}

// stepKeys is one pass over a side's steps for the sequence alignment:
// each step's tool, and its tool with its canonical parameters, as small
// integers (equal values, equal integers), so the steps themselves need
// not be held. The parameters are kept as a digest of their canonical
// form, not as text.
func stepKeys(steps pack.Steps, model string, in interner) (key, tool []int, err error) {
	key, tool = make([]int, 0, steps.N), make([]int, 0, steps.N)
	it := steps.Open()
	defer it.Close()
	for {
		s, err := it.Next()
		if err == io.EOF {
			return key, tool, nil
		}
		if err != nil {
			return nil, nil, err
		}
		name := "t\x00" + s.Tool
		if s.Type == "model_call" && isRunModel(s.Tool, model) {
			name = "m\x00" // a call of the run's model, whichever it is
		}
		tool = append(tool, in.id(name))
		key = append(key, in.id("k\x00"+name+"\x00"+paramKey(s.Parameters)))
	}
}

// step compares two aligned steps: another tool is tool drift and nothing
// more (its parameters and output mean something else); the same tool may
// drift in its parameters, its output, or both. Two model calls are the
// same call whichever model answered: a model that differs from what the
// runs' models explain is model drift at the step, and the answers are
// compared. A call refused on one side and run on the other is compared
// as such (tool drift of its outcome), never by its output.
func (c *comparison) step(a, b pack.Step, i, j int) {
	sameParams := equalRaw(a.Parameters, b.Parameters) || paramKey(a.Parameters) == paramKey(b.Parameters)
	outA, outB, normalized := comparedOutputs(a, b)
	sameOut := sameRef(outA, outB)
	if a.Tool == b.Tool && sameParams && sameOut && a.Outcome == b.Outcome {
		return // the common case: no drift, nothing to say
	}
	var stepB *int
	if i != j {
		stepB = intp(j)
	}
	where := stepWhere(i, stepB)
	models := a.Type == "model_call" && b.Type == "model_call"
	if a.Tool != b.Tool && !models {
		c.add(Entry{Type: ToolDrift, Section: SectionSteps, Step: intp(i), StepB: stepB, Change: Modified,
			A: encodeValue(a.Tool), B: encodeValue(b.Tool),
			Detail: fmt.Sprintf("%s: tool changed from %s to %s", where, show(encodeValue(a.Tool)), show(encodeValue(b.Tool)))})
		return
	}
	if a.Tool != b.Tool {
		if !isRunModel(a.Tool, c.a.Model.Identifier) || !isRunModel(b.Tool, c.b.Model.Identifier) {
			c.add(Entry{Type: ModelDrift, Section: SectionSteps, Step: intp(i), StepB: stepB, Field: "/tool", Change: Modified,
				A: encodeValue(a.Tool), B: encodeValue(b.Tool),
				Detail: fmt.Sprintf("%s: model changed from %s to %s", where, show(encodeValue(a.Tool)), show(encodeValue(b.Tool)))})
		}
		where += " model call"
	} else {
		where += " " + text.Clip(a.Tool, 60)
	}
	if !sameParams {
		ps := compareParams(a.Parameters, b.Parameters)
		phrases := make([]string, 0, 3)
		for k, p := range ps {
			if k == 3 {
				phrases = append(phrases, fmt.Sprintf("and %d more", len(ps)-3))
				break
			}
			phrases = append(phrases, paramPhrase(p))
		}
		c.add(Entry{Type: ParamDrift, Section: SectionSteps, Step: intp(i), StepB: stepB, Change: Modified, Tool: a.Tool,
			Params: ps, Detail: where + ": " + strings.Join(phrases, ", ")})
	}
	if a.Outcome != b.Outcome {
		c.add(Entry{Type: ToolDrift, Section: SectionSteps, Step: intp(i), StepB: stepB, Field: "outcome", Change: Modified, Tool: a.Tool,
			A: encodeValue(outcome(a)), B: encodeValue(outcome(b)),
			Detail: fmt.Sprintf("%s: %s in A, %s in B", where, outcomePhrase(a), outcomePhrase(b))})
		return
	}
	if !sameOut {
		e := Entry{Type: ReasoningDrift, Section: SectionSteps, Step: intp(i), StepB: stepB, Change: Modified, Tool: a.Tool,
			A: ref(outA), B: ref(outB)}
		if normalized {
			e.Field = "normalized_output"
			e.Detail = fmt.Sprintf("%s: output (normalized) changed from %s to %s", where, short(outA), short(outB))
		} else {
			e.ASize, e.BSize = a.OutputSize, b.OutputSize
			e.Detail = fmt.Sprintf("%s: output changed from %s to %s", where, outputText(a), outputText(b))
		}
		c.add(e)
	}
}

// stepWhere is how a step's sentence begins: "step 3", or "step 3 (4 in
// B)" when B's index differs (j). --human puts the two indexes in columns
// instead, and takes this beginning off (humanStep).
func stepWhere(i int, j *int) string {
	if j != nil {
		return fmt.Sprintf("step %d (%d in B)", i, *j)
	}
	return fmt.Sprintf("step %d", i)
}

// comparedOutputs are the outputs of two steps that are compared: their
// normalised outputs when both have one (the plain results, whatever form
// each agent showed them in), else their outputs.
func comparedOutputs(a, b pack.Step) (*store.Hash, *store.Hash, bool) {
	if a.NormalizedOutputRef != nil && b.NormalizedOutputRef != nil && !sameRef(a.OutputRef, b.OutputRef) {
		return a.NormalizedOutputRef, b.NormalizedOutputRef, true
	}
	return a.OutputRef, b.OutputRef, false
}

// isRunModel reports whether a model call's tool names its run's model:
// the same identifier, or one with a provider prefix the other lacks
// (ollama/gemma3 and gemma3).
func isRunModel(tool, model string) bool {
	return tool == model || strings.HasSuffix(model, "/"+tool) || strings.HasSuffix(tool, "/"+model)
}

// outcome is how a diff names a step's outcome.
func outcome(s pack.Step) string {
	if s.Outcome == "" {
		return "ran"
	}
	return s.Outcome
}

func outcomePhrase(s pack.Step) string {
	if s.Outcome == pack.OutcomeRejected {
		return "refused (never ran)"
	}
	return outcome(s)
}

func outputText(s pack.Step) string {
	if s.OutputRef == nil {
		return "none"
	}
	if s.OutputSize == nil {
		return s.OutputRef.Short()
	}
	return sized(*s.OutputRef, *s.OutputSize)
}

// equalRaw is the fast path of parameter comparison: packs hold canonical
// parameters, so equal bytes are the common case.
func equalRaw(a, b json.RawMessage) bool { return string(a) == string(b) }

func change(inA, inB bool) string {
	switch {
	case inA && inB:
		return Modified
	case inB:
		return Added
	default:
		return Removed
	}
}

func sameRef(a, b *store.Hash) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func ref(h *store.Hash) json.RawMessage {
	if h == nil {
		return null()
	}
	return json.RawMessage(`"` + h.String() + `"`)
}

func null() json.RawMessage { return json.RawMessage("null") }

func optString(s string) json.RawMessage {
	if s == "" {
		return null()
	}
	return encodeValue(s)
}

func intp(i int) *int { return &i }

func short(h *store.Hash) string {
	if h == nil {
		return "none"
	}
	return h.Short()
}

// sized is how a sentence names content: its short hash and size.
func sized(h store.Hash, n int64) string { return h.Short() + " (" + text.Size(n) + ")" }

// paramPhrase is one changed parameter as words.
func paramPhrase(p Param) string {
	if p.Path == "" {
		return "parameters " + changePhrase(p)
	}
	return "parameter " + p.Path + " " + changePhrase(p)
}

// changePhrase says how one value changed.
func changePhrase(p Param) string {
	switch p.Change {
	case Added:
		return "added (" + show(p.B) + ")"
	case Removed:
		return "removed (was " + show(p.A) + ")"
	default:
		a, b := showPair(p.A, p.B)
		return "changed from " + a + " to " + b
	}
}

// showPair renders two values of a change for a sentence, as show does;
// when both are long and clipping would show the same beginning twice, it
// shows each around their first difference instead ("…the idented…" and
// "…the indented…"), escapes and all as in compact JSON.
func showPair(a, b json.RawMessage) (string, string) {
	sa, sb := show(a), show(b)
	if sa != sb {
		return sa, sb
	}
	long := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return string(encodeValue(s))
		}
		return string(raw)
	}
	return text.Around(long(a), long(b), 80)
}

// fieldName names an environment field: its key when it is a plain
// top-level one, else its JSON pointer.
func fieldName(ptr string) string {
	k := strings.TrimPrefix(ptr, "/")
	if k == "" || strings.ContainsAny(k, "/~ ") {
		return ptr
	}
	return k
}

func unescapePointer(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// show renders a JSON value for a sentence: a plain string as itself, any
// other value as compact JSON, clipped.
func show(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s != "" && !strings.ContainsAny(s, " \t\r\n\",()") && len(s) <= 80 {
			return s
		}
		return text.Clip(string(encodeValue(s)), 80)
	}
	return text.Clip(string(raw), 80)
}

// interner numbers the keys of the sequence alignment by a 64-bit digest
// of each (the same key, the same integer), for the two sides of one
// comparison: 12 bytes a key, whatever its length. Two different keys
// with one digest (about one chance in 10^9 at 200,000 keys) could only
// change which steps are paired, never what a pair's comparison finds.
type interner map[uint64]int32

func (in interner) id(s string) int {
	sum := sha256.Sum256([]byte(s))
	d := binary.LittleEndian.Uint64(sum[:8])
	id, ok := in[d]
	if !ok {
		id = int32(len(in))
		in[d] = id
	}
	return int(id)
}
