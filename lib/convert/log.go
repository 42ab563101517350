package convert

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// runFields is the run event of a log: what holds for the whole run.
type runFields struct {
	Created      string         // RFC 3339, from the transcript; "" lets ctx pack decide
	Model        string         // model identifier; "" takes Options.Model, else "unknown"
	Parameters   map[string]any // model parameters the transcript gives
	SystemPrompt *string
	Environment  map[string]any
	Metadata     map[string]any
	Task         *pack.Task    // which task of a benchmark the run was
	Outcome      *pack.Outcome // how the run was judged
	End          *pack.End     // how the run ended
}

// stepRec is one step of the log before it is written.
type stepRec struct {
	Type      string // "tool_call", "model_call" or "event"
	Tool      string
	Params    map[string]any
	Output    *string
	Timestamp string
	Meta      map[string]any
	// Outcome is pack.OutcomeRejected for a call that was refused and
	// never ran.
	Outcome string
	// Normalized is what a replay executor gives for the call, where the
	// agent showed its result in another form; nil for none.
	Normalized *string
	// Nondeterministic marks a tool call that may answer otherwise when
	// run again (a tool call is deterministic by default, an other step
	// never).
	Nondeterministic bool
	// Bookkeeping marks a record of the harness that is not a step (see
	// writer.bookkeep): a snapshot, a queue operation, a notice, a mode
	// change, nothing that changed what the agent saw.
	Bookkeeping bool
}

// thinking is the model-call step that holds a model's reasoning (text
// nil where the transcript keeps it redacted or encrypted).
func thinking(model string, text *string, ts string, meta map[string]any) stepRec {
	return stepRec{Type: "model_call", Tool: model, Params: map[string]any{"thinking": true}, Output: text, Timestamp: ts, Meta: meta}
}

// writer writes a log as NDJSON events while a transcript is read. Events
// that come before the run event is known are held (a streaming format may
// only learn the model a few lines in) and written right after it, so the
// run event is always the first line.
type writer struct {
	out   *bufio.Writer
	enc   *json.Encoder
	wd    workdir
	opts  Options
	ran   bool
	model string // the model identifier the run event named
	held  bytes.Buffer
	steps int

	// book holds the harness's bookkeeping records until the step they
	// come before (writer.bookkeep); booked counts them by kind.
	book   []any
	booked map[string]int
	// last is the last step, written when the next one (or the end)
	// comes, so the records after the last step still have a home.
	last *pack.StepEvent

	failed  bool   // the output failed, or ends with an error event
	tally   *tally // what the input held against what was written
	inputs  map[string]bool
	files   *fileSet
	outside map[string]bool // paths already warned about
}

func newWriter(out io.Writer, opts Options) *writer {
	bw := bufio.NewWriterSize(out, 64<<10)
	w := &writer{out: bw, opts: opts, inputs: map[string]bool{}, files: newFileSet(), outside: map[string]bool{}, tally: newTally()}
	w.enc = json.NewEncoder(bw)
	w.enc.SetEscapeHTML(false)
	return w
}

// another returns a writer for the next log of the same output: a
// transcript that holds several runs is written as several logs, one
// after another, each beginning with its run event.
func (w *writer) another() *writer {
	return &writer{out: w.out, enc: w.enc, opts: w.opts, inputs: map[string]bool{}, files: newFileSet(), outside: map[string]bool{}, tally: w.tally}
}

func (w *writer) warnf(format string, args ...any) {
	if w.opts.Warn != nil {
		w.opts.Warn(fmt.Sprintf(format, args...))
	}
}

func (w *writer) notef(format string, args ...any) {
	if w.opts.Note != nil {
		w.opts.Note(fmt.Sprintf(format, args...))
	}
}

// setWorkdir names the run's working directory; paths under it become
// relative from then on.
func (w *writer) setWorkdir(dir string) { w.wd = newWorkdir(dir) }

// clean makes a parameter or metadata value safe for a pack and rewrites
// working-directory paths in its strings.
func (w *writer) clean(v map[string]any) map[string]any {
	if v == nil {
		return nil
	}
	return safeJSON(v, w.wd.text).(map[string]any)
}

// held reports how many bytes wait for the run event.
func (w *writer) heldBytes() int { return w.held.Len() }

// run writes the run event, then whatever was held for it.
func (w *writer) run(r runFields) error {
	if w.ran {
		return nil
	}
	w.ran = true
	id := r.Model
	if id == "" {
		id = w.opts.Model
		if id == "" {
			id = "unknown"
			w.warnf("the transcript names no model; using %q (give --model ID)", id)
		}
	} else if w.opts.Model != "" && w.opts.Model != id {
		w.warnf("--model %s ignored: the transcript names the model %s", w.opts.Model, id)
	}
	w.model = id
	ev := pack.RunEvent{
		Event:        "run",
		Created:      r.Created,
		Model:        pack.LogModel{Identifier: id, Parameters: w.clean(r.Parameters)},
		SystemPrompt: r.SystemPrompt,
		Environment:  w.clean(r.Environment),
		Metadata:     w.clean(r.Metadata),
		Task:         r.Task,
		Outcome:      r.Outcome,
		End:          r.End,
	}
	if _, repo := r.Environment["git"]; repo {
		// Where the run happened, in a checkout (ctx replay --repo maps it
		// to the workspace): the one place the directory is kept as it
		// was. A run in a scratch directory keeps none, so two runs of one
		// task compare equal.
		ev.Environment = setIf(ev.Environment, "working_dir", w.wd.dir)
	}
	if err := w.enc.Encode(ev); err != nil {
		return err
	}
	_, err := w.out.Write(w.held.Bytes())
	w.held = bytes.Buffer{}
	return err
}

// emit writes an event, or holds it until the run event is written.
func (w *writer) emit(v any) error {
	if w.ran {
		if err := w.flushLast(); err != nil { // events stay in order
			return err
		}
		return w.enc.Encode(v)
	}
	enc := json.NewEncoder(&w.held)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// content returns text as content, or as base64 when it is not valid
// UTF-8 (a JSON string cannot carry such bytes unchanged).
func content(text string) pack.Content {
	if utf8.ValidString(text) {
		return pack.Content{Content: &text}
	}
	return pack.Content{ContentBase64: base64.StdEncoding.EncodeToString([]byte(text))}
}

func (w *writer) prompt(role, text string, meta map[string]any) error {
	return w.emit(pack.PromptEvent{Event: "prompt", Role: role, Content: content(text), Metadata: w.clean(meta)})
}

// step writes a step; steps are numbered in the order they are written.
func (w *writer) step(s stepRec) error {
	params := w.clean(s.Params)
	if params == nil {
		params = map[string]any{}
	}
	deterministic := s.Type == "tool_call" && !s.Nondeterministic
	ev := pack.StepEvent{
		Event:         "step",
		Type:          s.Type,
		Tool:          s.Tool,
		Parameters:    params,
		Deterministic: &deterministic,
		Timestamp:     s.Timestamp,
		Outcome:       s.Outcome,
		Metadata:      w.clean(s.Meta),
	}
	if ev.Tool == "" {
		ev.Tool = "unknown"
	}
	if s.Output != nil {
		c := content(*s.Output)
		ev.Output, ev.OutputBase64 = c.Content, c.ContentBase64
	}
	if s.Normalized != nil {
		c := content(*s.Normalized)
		ev.NormalizedOutput, ev.NormalizedOutputBase64 = c.Content, c.ContentBase64
	}
	w.steps++
	w.tally.wrote(s)
	if len(w.book) > 0 {
		ev.Metadata = setIf(ev.Metadata, harnessKey, w.book)
		w.book = nil
	}
	if !w.ran {
		return w.emit(ev)
	}
	if err := w.flushLast(); err != nil {
		return err
	}
	w.last = &ev
	return nil
}

// harnessKey is the metadata key of a step that holds the bookkeeping
// records of the harness that came before it.
const harnessKey = "harness_records"

// harnessAfterKey holds, on the last step, the records that came after it.
const harnessAfterKey = "harness_records_after"

// bookkeep keeps a record of the harness that is not a step (a snapshot
// of files for undo, a queue operation, a notice, a change of mode): it
// goes into the metadata of the step that follows it (harness_records, a
// list of {"type", "timestamp", "text", "metadata"}), of the last step
// when none follows (harness_records_after), or of the run when the log
// has no step, so steps are the calls of the run and the records are
// still all there.
func (w *writer) bookkeep(s stepRec) {
	r := map[string]any{"type": s.Tool}
	if s.Timestamp != "" {
		r["timestamp"] = s.Timestamp
	}
	if s.Output != nil {
		r["text"] = *s.Output
	}
	if m := w.clean(s.Meta); len(m) > 0 {
		r["metadata"] = m
	}
	w.book = append(w.book, r)
	if w.booked == nil {
		w.booked = map[string]int{}
	}
	w.booked[s.Tool]++
}

// endSteps gives the records that came after the last step to it
// (harness_records_after) and writes it: no step comes after.
func (w *writer) endSteps() error {
	if len(w.book) > 0 && w.last != nil {
		w.last.Metadata = setIf(w.last.Metadata, harnessAfterKey, w.book)
		w.book = nil
	}
	return w.flushLast()
}

// flushLast writes the step held back, if any.
func (w *writer) flushLast() error {
	if w.last == nil {
		return nil
	}
	ev := w.last
	w.last = nil
	return w.enc.Encode(ev)
}

// noteBooked says on stderr how many records of the harness were kept out
// of the steps, by kind.
func (w *writer) noteBooked() {
	if len(w.booked) == 0 {
		return
	}
	kinds := make([]string, 0, len(w.booked))
	n := 0
	for k, c := range w.booked {
		kinds = append(kinds, fmt.Sprintf("%d %s", c, k))
		n += c
	}
	sort.Strings(kinds)
	w.notef("%d record(s) of the harness kept out of the steps, in the metadata (harness_records) of the step after each: %s", n, strings.Join(kinds, ", "))
}

// input records a file the run read, with the content it had before the
// agent changed it: only the first sighting of a name counts, and never
// after the agent wrote it.
func (w *writer) input(p, text string, meta map[string]any) error {
	name, ok := w.wd.name(p)
	if !ok {
		return nil
	}
	if w.inputs[name] || w.files.has(name) {
		return nil
	}
	w.inputs[name] = true
	return w.emit(pack.InputEvent{Event: "input", Name: name, Content: content(text), Metadata: w.clean(meta)})
}

// known reports whether a file is already an input or an output, so a
// format need not work out its content again.
func (w *writer) known(p string) bool {
	name, ok := w.wd.name(p)
	return ok && (w.inputs[name] || w.files.has(name))
}

// wrote records the content a file has after the agent wrote it; the last
// write wins, and outputs are written when the log is closed.
func (w *writer) wrote(p, text string, step int) {
	name, ok := w.wd.name(p)
	if !ok {
		if !w.outside[p] {
			w.outside[p] = true
			w.warnf("steps[%d] writes %s, outside the run's working directory: it stays in the step's parameters and is not an output", step, p)
		}
		return
	}
	w.files.set(name, text, step)
}

// wroteBy records what a call that writes a whole file
// (agenttool.WrittenFile) left of it: its content, or, for text appended,
// the file as the run left it before with the text after it. An append to
// a file whose content the transcript never showed gives no output.
func (w *writer) wroteBy(tool string, params map[string]any, step int) {
	p, text, appended, ok := agenttool.WrittenFile(tool, params)
	if !ok {
		return
	}
	if name, in := w.wd.name(p); appended && in {
		f := w.files.files[name]
		if f == nil {
			return
		}
		text = agenttool.Written(f.text, text, true)
	}
	w.wrote(p, text, step)
}

// close writes the outputs and flushes. A run that was never named gets
// its run event now.
func (w *writer) close(r runFields) error {
	if len(w.book) > 0 && !w.ran {
		r.Metadata = setIf(r.Metadata, harnessAfterKey, w.book) // the run is not written yet
		w.book = nil
	}
	if err := w.run(r); err != nil {
		return err
	}
	if err := w.endSteps(); err != nil {
		return err
	}
	if len(w.book) > 0 {
		// No step was held to keep them (another event came after the
		// last step): one event step holds them, so none is lost.
		book := w.book
		w.book = nil
		if err := w.step(stepRec{Type: "event", Tool: harnessKey, Meta: map[string]any{harnessKey: book}}); err != nil {
			return err
		}
		if err := w.flushLast(); err != nil {
			return err
		}
	}
	w.noteBooked()
	for _, f := range w.files.list() {
		meta := map[string]any{"written_by_step": f.step}
		if err := w.emit(pack.OutputEvent{Event: "output", Name: f.name, Content: content(f.text), Metadata: meta}); err != nil {
			return err
		}
	}
	return w.out.Flush()
}

// fail ends the output with an error event. ctx pack knows no such event
// and refuses the whole log, so part of a log never becomes a pack.
func (w *writer) fail(err error) {
	w.failed = true
	_ = w.flushLast()
	if w.ran {
		_ = w.out.Flush()
	}
	ev := struct {
		Event string `json:"event"`
		Error string `json:"error"`
	}{"error", "ctx-convert: " + err.Error()}
	_ = w.enc.Encode(ev)
	_ = w.out.Flush()
}

// fileSet holds the latest content of each file the agent wrote, in the
// order the files were first written. Memory is bounded by the size of
// those files, not by the length of the transcript.
type fileSet struct {
	order []string
	files map[string]*file
}

type file struct {
	name string
	text string
	step int
}

func newFileSet() *fileSet { return &fileSet{files: map[string]*file{}} }

func (s *fileSet) has(name string) bool { return s.files[name] != nil }

func (s *fileSet) set(name, text string, step int) {
	if f := s.files[name]; f != nil {
		f.text, f.step = text, step
		return
	}
	s.order = append(s.order, name)
	s.files[name] = &file{name: name, text: text, step: step}
}

func (s *fileSet) list() []*file {
	out := make([]*file, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.files[n])
	}
	return out
}
