package htmlview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/diff"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Side is one run of a diff page.
type Side struct {
	Label    string // how it was named: a pack name, a file, "-"
	Manifest *pack.Manifest
	// Replay is the replay stream the side was read from, when it is a
	// replayed run: the page says what the replay found, run and steps.
	Replay *replaystream.Stream
}

// fidelity is what a page says of a replay: its status and the pack it
// replayed, and how many steps ended each way.
type fidelity struct {
	Status, Pack, Counts string
}

// knownStatus is a replay status as a class of the page: itself when it is
// one the page has a style for (replaystream's statuses of a replay and of
// its steps; failed is both), "other" for anything a stream may say
// besides.
func knownStatus(s string) string {
	switch replaystream.Status(s) {
	case replaystream.Status(replaystream.Exact), replaystream.Status(replaystream.Degraded), replaystream.Failed,
		replaystream.Matched, replaystream.Diverged, replaystream.DivergedExpected, replaystream.Recorded:
		return s
	}
	return "other"
}

// Diff is what a diff page shows: the two runs, Compare's report of them
// (with its alignment), the alignment mode, and where contents are read.
type Diff struct {
	A, B   Side
	Report *diff.Report
	Align  string
	Blobs  Blobs // nil: contents are named by hash and size only
}

// driftTypes are the badges of the drift types, in report order
// (diff.Types).
func driftTypes() []badge {
	var out []badge
	for _, t := range diff.Types() {
		out = append(out, badge{Type: t.Type, Short: t.Short})
	}
	return out
}

// badge is one drift type of the summary: its count and where its first
// entry is.
type badge struct {
	Type, Short string
	N           int
	Href        string
}

type diffView struct {
	pageHead
	Sides                                [2]sideView
	Align                                string
	Badges                               []badge
	Total                                int
	Verdict                              string // how the two runs were judged, when that differs
	First                                string // anchor of the first divergence, "" for none
	FirstN                               int
	Model, Prompts, Inputs, Outputs, Env section
	Steps                                stepsView
}

type sideView struct {
	Letter, Label, Hash, Created, Model, Parent string
	Start                                       string // the first step's time, which step offsets count from
	Steps                                       int
	Replay                                      *fidelity
}

// section is one part of the runs beside the steps: a list of items.
type section struct {
	ID, Title string
	Count     string  // "3 inputs", for the sections that are lists
	Types     string  // the drift types in it, space-separated
	Tags      []badge // the same, as a page shows them
	Items     []item
	Omitted   int // items left off, the page's budget spent
}

// item is one thing of a section (the model, a prompt, an input, an
// output, the environment) on both sides.
type item struct {
	ID        string // anchor, when it drifts
	Types     string
	Tags      []badge
	Title     string
	State     string // same, modified, added, removed
	Sentences []string
	Fields    []field      // changed fields (model, environment, output claims)
	Change    *contentDiff // a changed content
	Text      *content     // content that is the same on both sides
	JSON      *textDiff    // the whole value as a JSON line diff
	Props     []prop       // named values (show: confidence, notes, verify state)
	Sidecar   string       // show: the sidecar ctx pack writes beside an output
}

// field is one changed value: where, how, and both sides as JSON.
type field struct{ Path, Change, A, B string }

type stepsView struct {
	NA, NB, Drifted int
	// Bare counts the drifted steps past the first detailsShown, shown
	// as rows only.
	Bare int
	// Cut counts the rows left off the end of the page, its budget spent.
	Cut    int
	Blocks []block
}

// block is a run of rows: shown, or folded (unchanged steps, expandable).
type block struct {
	Fold   bool
	Label  string
	Rows   []row
	hidden int // the rows a fold stands for
}

// row is one line of the two lanes: A's step and B's (nil: a gap).
type row struct {
	ID     string
	Types  string
	Tags   []badge
	First  bool
	A, B   *lane
	Detail *stepDetail

	pair    diff.Pair
	entries []*diff.Entry // the report's entries about this step
}

// stepDetail is what changed at a drifted step.
type stepDetail struct {
	Sentences []string
	Params    []field
	ParamDiff *textDiff
	Output    *contentDiff
	Only      *content // the output of a step on one side only
	OnlyJSON  string   // its parameters
}

// WriteDiff writes the HTML page of a diff to w.
func WriteDiff(w io.Writer, d Diff) error {
	v, err := buildDiff(d)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("ctx diff %s %s", shortHash(d.Report.A), shortHash(d.Report.B))
	return render(w, "diff", title, v, &v.pageHead)
}

// differ builds a diff page's view.
type differ struct {
	d       Diff
	r       *reader
	byEntry map[int]bool // entries placed on the page
	first   map[string]string
	nextID  int
}

func buildDiff(d Diff) (*diffView, error) {
	if d.A.Manifest == nil || d.B.Manifest == nil || d.Report == nil {
		return nil, fmt.Errorf("htmlview: a diff page needs both manifests and the report")
	}
	b := &differ{d: d, r: newReader(d.Blobs), first: map[string]string{}}
	rep := d.Report
	v := &diffView{Align: d.Align, Total: rep.Summary.Total}
	if rep.Verdict != nil {
		v.Verdict = rep.Verdict.Detail
	}
	if v.Align == "" {
		v.Align = diff.AlignIndex
	}
	for i, s := range []Side{d.A, d.B} {
		v.Sides[i] = sideOf(string(rune('A'+i)), s)
	}
	// In the order of what the page's budget goes to first: the drifted
	// steps and what changed at them, the other sections, then the
	// unchanged steps in folds.
	v.Steps = b.steps()
	v.Model = b.model()
	v.Prompts = b.prompts()
	v.Inputs = b.files(diff.SectionInputs, "inputs", fileList(d.A.Manifest.Inputs), fileList(d.B.Manifest.Inputs))
	v.Outputs = b.files(diff.SectionOutputs, "outputs", outputList(d.A.Manifest.Outputs), outputList(d.B.Manifest.Outputs))
	v.Env = b.environment()
	b.fitFolds(&v.Steps)
	counts := map[string]int{}
	for _, e := range rep.Drift {
		counts[e.Type]++
	}
	for _, bg := range driftTypes() {
		if bg.N = counts[bg.Type]; bg.N > 0 {
			bg.Href = "#" + b.first[bg.Type]
			v.Badges = append(v.Badges, bg)
		}
	}
	for _, blk := range v.Steps.Blocks {
		for _, r := range blk.Rows {
			if r.First {
				v.First, v.FirstN = r.ID, firstIndex(rep)
			}
		}
	}
	return v, nil
}

func firstIndex(r *diff.Report) int {
	if r.FirstDivergence == nil {
		return -1
	}
	return *r.FirstDivergence
}

func shortHash(ref string) string {
	if h, err := store.ParseRef(ref); err == nil {
		return h.Short()
	}
	return text.Clip(ref, 19)
}

func sideOf(letter string, s Side) sideView {
	m := s.Manifest
	label := s.Label
	if label == "-" {
		label = "standard input"
	}
	v := sideView{Letter: letter, Label: label, Hash: m.Hash, Created: text.Time(m.CreatedText()), Model: m.Model.Identifier,
		Steps: len(m.Steps)}
	if m.Parent != nil {
		v.Parent = m.Parent.String()
	}
	if c := newClock(m.Steps); c.has {
		v.Start = c.t0.UTC().Format(time.RFC3339Nano)
	}
	if rp := s.Replay; rp != nil {
		// Counted from the step lines, which the stream is held to (the
		// report's own counts are not read back).
		var c replaystream.Counts
		for _, st := range rp.Steps {
			c.Add(st.Status)
		}
		var parts []string
		for _, n := range []struct {
			n    int
			what replaystream.Status
		}{{c.Matched, replaystream.Matched}, {c.Diverged, replaystream.Diverged}, {c.DivergedExpected, replaystream.DivergedExpected},
			{c.Failed, replaystream.Failed}, {c.Recorded, replaystream.Recorded}} {
			if n.n > 0 {
				parts = append(parts, fmt.Sprintf("%s %s", count(n.n), n.what))
			}
		}
		v.Replay = &fidelity{Status: string(rp.Report.Status), Pack: rp.Report.Pack.String(), Counts: strings.Join(parts, ", ")}
	}
	return v
}

// entries returns the report's entries of the given sections, in order
// (pointers into the report: a report may hold tens of thousands).
func (b *differ) entries(sections ...string) []*diff.Entry {
	var out []*diff.Entry
	drift := b.d.Report.Drift
	for i := range drift {
		for _, s := range sections {
			if drift[i].Section == s {
				out = append(out, &drift[i])
			}
		}
	}
	return out
}

// anchor returns a new anchor id for something carrying the given drift
// types, remembering the first of each type: prefix-N, N counting from 1.
func (b *differ) anchor(prefix string, types []string) string {
	if len(types) == 0 {
		return ""
	}
	b.nextID++
	return b.named(fmt.Sprintf("%s-%d", prefix, b.nextID), types)
}

// named remembers id as the anchor of the first of each type that has none.
func (b *differ) named(id string, types []string) string {
	for _, t := range types {
		if _, ok := b.first[t]; !ok {
			b.first[t] = id
		}
	}
	return id
}

// typesOf lists the distinct types of entries, in the order of driftTypes.
func typesOf(entries []*diff.Entry) []string {
	has := map[string]bool{}
	for _, e := range entries {
		has[e.Type] = true
	}
	var out []string
	for _, bg := range driftTypes() {
		if has[bg.Type] {
			out = append(out, bg.Type)
		}
	}
	return out
}

func sentences(entries []*diff.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Detail
	}
	return out
}

func fields(entries []*diff.Entry) []field {
	var out []field
	for _, e := range entries {
		if e.Field != "" {
			out = append(out, field{Path: e.Field, Change: e.Change, A: jsonText(e.A), B: jsonText(e.B)})
		}
	}
	return out
}

// mustJSON encodes a manifest part (which always encodes), HTML escaping
// off: the page escapes what it shows.
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// jsonText is a JSON value as a page shows it in a table, clipped; ""
// for absent.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return text.Clip(compact(raw), 300)
}

// newItem makes an item of the given entries, with an anchor when any.
func (b *differ) newItem(prefix, title string, entries []*diff.Entry) item {
	types := typesOf(entries)
	it := item{Title: title, State: "same", Types: strings.Join(types, " "), Tags: tags(types), Sentences: sentences(entries), Fields: fields(entries)}
	it.ID = b.anchor(prefix, types)
	if len(entries) > 0 {
		it.State = entries[0].Change
	}
	return it
}

func newSection(id, title string, items []item) section {
	s := section{ID: id, Title: title, Items: items}
	var types []string
	seen := map[string]bool{}
	for _, it := range items {
		for _, t := range strings.Fields(it.Types) {
			if !seen[t] {
				seen[t] = true
				types = append(types, t)
			}
		}
	}
	s.Types, s.Tags = strings.Join(types, " "), tags(types)
	return s
}

// tags are the badges of the given drift types.
func tags(types []string) []badge {
	out := make([]badge, len(types))
	for i, t := range types {
		out[i] = shortBadge(t)
	}
	return out
}

// counted sets the section's count line, "3 inputs", and how many of them
// are not on the page.
func counted(s section, omitted int, one, many string) section {
	s.Count, s.Omitted = plural(len(s.Items)+omitted, one, many), omitted
	return s
}

func (b *differ) model() section {
	a, bm := b.d.A.Manifest.Model, b.d.B.Manifest.Model
	it := b.newItem("model", "model", b.entries(diff.SectionModel))
	ja, jb := mustJSON(a), mustJSON(bm)
	if it.Types != "" {
		it.JSON = b.r.jsonDiff(ja, jb)
	} else {
		it.Text = &content{Text: indent(ja), Shown: true}
	}
	return newSection("model", "model", []item{it})
}

func (b *differ) environment() section {
	ea, eb := b.d.A.Manifest.Environment, b.d.B.Manifest.Environment
	it := b.newItem("env", "environment", b.entries(diff.SectionEnvironment))
	if it.Types != "" {
		it.JSON = b.r.jsonDiff(ea, eb)
	} else if t := indent(ea); t != "" && t != "null" {
		it.Text = &content{Text: t, Shown: true}
	}
	return newSection("environment", "environment", []item{it})
}

func (b *differ) prompts() section {
	ma, mb := b.d.A.Manifest, b.d.B.Manifest
	var items []item
	if ma.SystemPrompt != nil || mb.SystemPrompt != nil {
		it := b.newItem("prompt", "system prompt", b.entries(diff.SectionSystemPrompt))
		b.texts(&it, ma.SystemPrompt, mb.SystemPrompt, nil, nil)
		items = append(items, it)
	}
	omitted := 0
	byIndex := map[int][]*diff.Entry{}
	for _, e := range b.entries(diff.SectionPrompts) {
		if e.Index != nil {
			byIndex[*e.Index] = append(byIndex[*e.Index], e)
		}
	}
	for i := 0; i < max(len(ma.Prompts), len(mb.Prompts)); i++ {
		var ha, hb *store.Hash
		role := ""
		if i < len(ma.Prompts) {
			ha, role = &ma.Prompts[i].ContentRef, ma.Prompts[i].Role
		}
		if i < len(mb.Prompts) {
			hb = &mb.Prompts[i].ContentRef
			if role == "" || role != mb.Prompts[i].Role {
				role = strings.Trim(role+" → "+mb.Prompts[i].Role, " →")
			}
		}
		title := fmt.Sprintf("prompt %d (%s)", i, role)
		if !b.r.room(title, byIndex[i]) {
			omitted++
			continue
		}
		it := b.newItem("prompt", title, byIndex[i])
		b.texts(&it, ha, hb, nil, nil)
		items = append(items, it)
	}
	return counted(newSection("prompts", "prompts", items), omitted, "prompt", "prompts")
}

// texts fills an item's content: the line diff of a changed content, the
// one side of an added or removed one, the text of an unchanged prompt.
func (b *differ) texts(it *item, ha, hb *store.Hash, na, nb *int64) {
	switch {
	case ha != nil && hb != nil && *ha != *hb:
		cd := b.r.compare(ha, hb, na, nb)
		it.Change = &cd
	case ha != nil && hb != nil:
		c, _ := b.r.read(ha, na, textShown)
		it.Text = &c
	case ha != nil:
		c, _ := b.r.read(ha, na, textShown)
		it.Text = &c
	case hb != nil:
		c, _ := b.r.read(hb, nb, textShown)
		it.Text = &c
	}
}

// namedFile is an input or output as the files sections compare them.
type namedFile struct {
	ref  store.Hash
	size int64
}

func fileList(fs []pack.File) map[string]namedFile {
	return byName(fs, func(f pack.File) (string, namedFile) { return f.Name, namedFile{f.ContentRef, f.Size} })
}

func outputList(os []pack.Output) map[string]namedFile {
	return byName(os, func(o pack.Output) (string, namedFile) { return o.Name, namedFile{o.ContentRef, o.Size} })
}

// byName indexes files by name; a name given twice keeps its first entry,
// as the report does.
func byName[T any](list []T, get func(T) (string, namedFile)) map[string]namedFile {
	m := make(map[string]namedFile, len(list))
	for _, x := range list {
		if n, f := get(x); m[n] == (namedFile{}) {
			m[n] = f
		}
	}
	return m
}

// files is the inputs or outputs section: one item per name, in name
// order. Unchanged files are named by hash and size; changed ones diffed.
func (b *differ) files(sec, title string, a, bm map[string]namedFile) section {
	names := make([]string, 0, len(a)+len(bm))
	for n := range a {
		names = append(names, n)
	}
	for n := range bm {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	byName := map[string][]*diff.Entry{}
	for _, e := range b.entries(sec) {
		byName[e.Name] = append(byName[e.Name], e)
	}
	items := make([]item, 0, len(names))
	omitted := 0
	for _, n := range names {
		if !b.r.room(n, byName[n]) {
			omitted++
			continue
		}
		it := b.newItem(sec[:len(sec)-1], n, byName[n])
		fa, inA := a[n]
		fb, inB := bm[n]
		switch {
		case inA && inB && fa.ref != fb.ref:
			b.texts(&it, &fa.ref, &fb.ref, &fa.size, &fb.size)
			it.State = diff.Modified
		case inA && inB:
			c := describe(&fa.ref, &fa.size)
			it.Text = &c
		case inA:
			b.texts(&it, &fa.ref, nil, &fa.size, nil)
		default:
			b.texts(&it, nil, &fb.ref, nil, &fb.size)
		}
		items = append(items, it)
	}
	return counted(newSection(sec, title, items), omitted, title[:len(title)-1], title)
}
