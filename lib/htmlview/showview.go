package htmlview

import (
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
	"github.com/contextsubstrate/ctx/lib/verify"
)

// Show is what a show page shows: one pack, where its contents are read,
// and what checking its objects found.
type Show struct {
	Label    string // how the pack was named
	Manifest *pack.Manifest
	Store    *store.Store // where its contents are read
	// Verify is the check of the pack's closure (verify.Verifier.Pack);
	// nil when it was not checked.
	Verify *verify.Report
}

type showView struct {
	pageHead
	Side    sideView
	Verify  *verify.Report
	Model   item
	Prompts section
	Inputs  section
	Steps   []showStep
	// RowsOnly counts the steps shown as rows only, and Cut those left
	// off the page, its budget spent.
	RowsOnly, Cut int
	Outputs       section
	Env           item
}

// showStep is one step of the timeline: its row, and what opening it
// shows. Once the page's content budget is spent, steps are rows only.
type showStep struct {
	Lane     *lane
	Body     bool
	Params   string
	Output   content
	Metadata string

	step *pack.Step
}

// prop is one named value of an item on a show page.
type prop struct{ Name, Value, Class string }

// WriteShow writes the HTML page of one pack to w.
func WriteShow(w io.Writer, s Show) error {
	m := s.Manifest
	if m == nil {
		return fmt.Errorf("htmlview: a show page needs a manifest")
	}
	var blobs Blobs
	if s.Store != nil {
		blobs = storeBlobs{s.Store}
	}
	b := &shower{s: s, r: newReader(blobs), state: map[store.Hash]string{}}
	if s.Verify != nil {
		for _, p := range s.Verify.Problems {
			if h, err := store.ParseRef(p.Object); err == nil {
				b.state[h] = p.Kind
			}
		}
	}
	v := &showView{Side: sideOf("", Side{Label: s.Label, Manifest: m}), Verify: s.Verify}
	v.Model = item{Title: "model", Text: &content{Text: indent(mustJSON(m.Model)), Shown: true}}
	// The page's budget goes to the timeline first, then to the prompts,
	// inputs and outputs, then to what opening each step shows.
	v.Steps, v.Cut = b.timeline()
	v.Prompts = b.prompts()
	v.Inputs = b.inputs()
	v.Outputs = b.outputs()
	b.bodies(v.Steps)
	for _, st := range v.Steps {
		if !st.Body {
			v.RowsOnly++
		}
	}
	v.Env = item{Title: "environment"}
	if t := indent(m.Environment); t != "" && t != "null" {
		v.Env.Text = &content{Text: t, Shown: true}
	}
	return render(w, "show", "ctx show "+shortHash(m.Hash), v, &v.pageHead)
}

// storeBlobs reads contents from a store, each object verified.
type storeBlobs struct{ st *store.Store }

func (s storeBlobs) Open(h store.Hash) (io.ReadCloser, error) { return s.st.Open(h) }

// shower builds a show page's view.
type shower struct {
	s     Show
	r     *reader
	state map[store.Hash]string // objects verify found missing or corrupt
}

// content reads h for the page and says whether verify found it intact.
func (b *shower) content(it *item, h store.Hash, n *int64, limit int) {
	c, _ := b.r.read(&h, n, limit)
	it.Text = &c
	if b.s.Verify == nil {
		return
	}
	state := "verified"
	if k, bad := b.state[h]; bad {
		state = k
	}
	it.Props = append(it.Props, prop{Name: "verify", Value: state, Class: "vs " + state})
}

func (b *shower) prompts() section {
	m := b.s.Manifest
	var items []item
	omitted := 0
	if m.SystemPrompt != nil && b.r.room("system prompt", nil) {
		it := item{Title: "system prompt"}
		b.content(&it, *m.SystemPrompt, nil, textShown)
		items = append(items, it)
	}
	for i, p := range m.Prompts {
		it := item{Title: fmt.Sprintf("prompt %d (%s)", i, p.Role)}
		if !b.r.room(it.Title, nil) {
			omitted++
			continue
		}
		b.content(&it, p.ContentRef, nil, textShown)
		items = append(items, it)
	}
	return counted(newSection("prompts", "prompts", items), omitted, "prompt", "prompts")
}

func (b *shower) inputs() section {
	var items []item
	omitted := 0
	for _, f := range b.s.Manifest.Inputs {
		it := item{Title: f.Name}
		if !b.r.room(it.Title, nil) {
			omitted++
			continue
		}
		n := f.Size
		b.content(&it, f.ContentRef, &n, textShown)
		items = append(items, it)
	}
	return counted(newSection("inputs", "inputs", items), omitted, "input", "inputs")
}

func (b *shower) outputs() section {
	m := b.s.Manifest
	var items []item
	omitted := 0
	for i, o := range m.Outputs {
		it := item{Title: o.Name}
		if !b.r.room(it.Title, nil) {
			omitted++
			continue
		}
		n := o.Size
		b.content(&it, o.ContentRef, &n, textShown)
		if o.Confidence != "" {
			it.Props = append(it.Props, prop{Name: "confidence", Value: o.Confidence})
		}
		if o.Notes != "" {
			it.Props = append(it.Props, prop{Name: "notes", Value: o.Notes})
		}
		// What ctx pack writes beside the file, and ctx verify checks it by.
		if sc, err := sidecar.Encode(sidecar.New(m, i)); err == nil {
			it.Sidecar = string(sc)
		}
		items = append(items, it)
	}
	return counted(newSection("outputs", "outputs", items), omitted, "output", "outputs")
}

// timeline lays out a row per step, charged to the page's budget first;
// the steps that no longer fit are left off, and counted.
func (b *shower) timeline() ([]showStep, int) {
	m := b.s.Manifest
	c := newClock(m.Steps)
	out := make([]showStep, 0, len(m.Steps))
	for i, s := range m.Steps {
		l := c.lane(s)
		// A show row has the step's type, and a details element around it.
		if !b.r.charge(l.cost() + 80 + len(l.Type)) {
			return out, len(m.Steps) - i
		}
		out = append(out, showStep{Lane: l, step: &m.Steps[i]})
	}
	return out, 0
}

// bodies fills in what opening each step shows, in order, while the
// page's budget lasts; the steps after are rows only.
func (b *shower) bodies(steps []showStep) {
	for i := range steps {
		st := &steps[i]
		if !b.r.charge(bodyCost) {
			return
		}
		s := st.step
		st.Body = true
		st.Params = b.r.take(indent(s.Parameters), previewShown)
		st.Output, _ = b.r.read(s.OutputRef, s.OutputSize, previewShown)
		if st.Lane.Params == "" && st.Output.Shown {
			// A model call has no parameters: what it said reads better.
			st.Lane.Said = b.r.take(text.Clip(firstLine(st.Output.Text), 100), 400)
		}
		if len(s.Metadata) > 0 && string(s.Metadata) != "null" {
			st.Metadata = b.r.take(indent(s.Metadata), previewShown)
		}
	}
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
