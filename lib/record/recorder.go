package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/contextsubstrate/ctx/lib/convert"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Options control a recording.
type Options struct {
	// Store receives the packs; Save is the template of every pack.Save
	// (the log's root, SOURCE_DATE_EPOCH, tags, warnings).
	Store *store.Store
	Save  pack.SaveOptions
	// Idle is how long a trace whose root span has ended waits for more
	// spans before it is packed while the receiver runs.
	Idle time.Duration
	// SpoolDir holds the spool's files ("" is the system's temporary
	// directory).
	SpoolDir string
	// MaxBody bounds an export request (DefaultMaxBody when 0).
	MaxBody int64
	// Model is the model identifier for traces that name none.
	Model string
	// Packed is told each pack, as soon as it is stored.
	Packed func(Packed)
	// Warn and Note receive what a person should know (a trace packed
	// incomplete, traces ignored).
	Warn, Note func(msg string)
}

// Packed is one trace made a pack: what ctx record --json prints.
type Packed struct {
	TraceID    string `json:"trace_id"`
	Pack       string `json:"pack"` // ctx://<hex>
	Steps      int    `json:"steps"`
	Model      string `json:"model"`
	Spans      int    `json:"spans"`
	Incomplete string `json:"incomplete,omitempty"` // why the trace is known partial
}

// Printer prints each pack made as ctx record does, on w: its ctx://<hex>,
// or with asJSON its Packed as a JSON line.
func Printer(w io.Writer, asJSON bool) func(Packed) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(p Packed) {
		if asJSON {
			_ = enc.Encode(p)
			return
		}
		fmt.Fprintln(w, p.Pack)
	}
}

// Summary is what a recording made, at its end.
type Summary struct {
	Packs         int
	Failed        int // traces that could not be packed (reported as they failed)
	Ignored       int // traces without GenAI spans
	IgnoredSpans  int
	Receiver      ReceiverStats
	LastFailure   error
	ReceivedSpans bool // any span came at all
}

// Recorder gathers traces from its receiver and packs each when it is
// done.
type Recorder struct {
	opts  Options
	spool *convert.OTelSpool
	recv  *Receiver

	mu     sync.Mutex
	last   map[string]time.Time // when each open trace last got a span
	packed map[string]string    // traces already packed, with their pack
	sum    Summary

	packMu sync.Mutex // one pack at a time
}

// maxRemembered bounds the packed traces remembered, to tell late spans.
const maxRemembered = 10000

// New makes a recorder; Close removes its spool.
func New(opts Options) *Recorder {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	if opts.Note == nil {
		opts.Note = func(string) {}
	}
	r := &Recorder{opts: opts, spool: convert.NewOTelSpool(opts.SpoolDir), last: map[string]time.Time{}, packed: map[string]string{}}
	r.recv = newReceiver(r.spool, opts.MaxBody, r.received)
	return r
}

// Receiver is the recorder's OTLP/HTTP handler.
func (r *Recorder) Receiver() *Receiver { return r.recv }

func (r *Recorder) received(ids []string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sum.ReceivedSpans = true
	for _, id := range ids {
		if _, open := r.last[id]; !open {
			if uri, done := r.packed[id]; done {
				r.opts.Warn(fmt.Sprintf("trace %s: spans came after it was packed as %s; they are packed on their own, marked incomplete", id, uri))
			}
		}
		r.last[id] = now
	}
}

// Sweep packs the traces that are done at now: those whose root span has
// ended (a span is exported when it ends) with no span since Idle, and
// those without a root with nothing since ten times Idle (their root is
// another service's, or never came).
func (r *Recorder) Sweep(now time.Time) {
	r.mu.Lock()
	var due []string
	for id, t := range r.last {
		info, ok := r.spool.Info(id)
		if !ok {
			continue
		}
		quiet := now.Sub(t)
		if quiet >= r.opts.Idle && info.Roots > 0 || quiet >= 10*r.opts.Idle {
			due = append(due, id)
		}
	}
	r.mu.Unlock()
	sort.Strings(due)
	for _, id := range due {
		r.pack(id)
	}
}

// Flush packs every trace still open, in the order they began to come.
func (r *Recorder) Flush() {
	for _, info := range r.spool.Open() {
		r.pack(info.ID)
	}
}

// Close removes the spool; what was not packed is lost.
func (r *Recorder) Close() error { return r.spool.Close() }

// Summary says what the recording made so far.
func (r *Recorder) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sum
	s.Receiver = r.recv.Stats()
	return s
}

// pack converts trace id and stores it, or counts it ignored when it holds
// no GenAI span.
func (r *Recorder) pack(id string) {
	r.packMu.Lock()
	defer r.packMu.Unlock()
	t, ok := r.spool.Take(id)
	r.mu.Lock()
	delete(r.last, id)
	r.mu.Unlock()
	if !ok {
		return
	}
	defer t.Release()
	if t.GenAI == 0 {
		r.mu.Lock()
		r.sum.Ignored++
		r.sum.IgnoredSpans += t.Spans
		r.mu.Unlock()
		return
	}
	p, err := r.store(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.sum.Failed++
		r.sum.LastFailure = err
		r.opts.Warn(fmt.Sprintf("trace %s: not packed: %v", id, err))
		return
	}
	r.sum.Packs++
	if len(r.packed) >= maxRemembered {
		r.packed = map[string]string{}
	}
	r.packed[id] = p.Pack
	if p.Incomplete != "" {
		r.opts.Warn(fmt.Sprintf("trace %s: packed incomplete as %s: %s", id, p.Pack, p.Incomplete))
	}
	if r.opts.Packed != nil {
		r.opts.Packed(p)
	}
}

// store converts a trace into a log and packs it as it is written
// (pack.SaveWritten): the log is never whole anywhere.
func (r *Recorder) store(t *convert.OTelTrace) (Packed, error) {
	var res convert.OTelResult
	meta := map[string]any{}
	if n := r.recv.refused(); n > 0 {
		// The receiver refused requests while this trace came: some of
		// its spans may be among them.
		meta["refused_requests"] = n
	}
	opts := r.opts.Save
	opts.Source = "trace " + t.ID
	var pub pack.Published
	err := pack.SaveWritten(r.opts.Store, func(w io.Writer) error {
		var err error
		res, err = t.Convert(w, convert.Options{
			Model: r.opts.Model,
			Warn:  func(s string) { r.opts.Warn(fmt.Sprintf("trace %s: %s", t.ID, s)) },
			Note:  func(s string) { r.opts.Note(fmt.Sprintf("trace %s: %s", t.ID, s)) },
		}, meta)
		return err
	}, opts, func(_ *pack.Result, p pack.Published) error {
		pub = p
		return nil
	})
	var syntax *pack.SyntaxError
	if errors.As(err, &syntax) {
		// The log is ctx record's own, never seen by the user: a line and
		// column of it mean nothing to them.
		return Packed{}, fmt.Errorf("what its spans map to cannot be packed: %s (a span's name, attributes or events)", syntax.Msg)
	}
	if err != nil {
		return Packed{}, err
	}
	id := res.TraceID
	if id == "" {
		id = t.ID
	}
	return Packed{TraceID: id, Pack: pub.Hash.URI(), Steps: res.Steps, Model: res.Model, Spans: res.Spans, Incomplete: res.Incomplete}, nil
}

// Report says, in sentences, what the recording ignored or refused: for
// the end of a run.
func (s Summary) Report(note, warn func(string)) {
	if s.Ignored > 0 {
		note(fmt.Sprintf("%s without GenAI spans ignored (%s)", count(s.Ignored, "trace", "traces"), count(s.IgnoredSpans, "span", "spans")))
	}
	if n := s.Receiver.NotGenAI; n > 0 {
		note(fmt.Sprintf("%s no GenAI event: not recorded", count(n, "log record was", "log records were")))
	}
	if n := s.Receiver.NoTrace; n > 0 {
		warn(fmt.Sprintf("%s of GenAI events named no trace: not recorded", count(n, "log record", "log records")))
	}
	var codes []int
	for c := range s.Receiver.Refused {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d %d (%s)", s.Receiver.Refused[c], c, s.Receiver.Reasons[c]))
	}
	if len(parts) > 0 {
		warn("requests refused: " + strings.Join(parts, ", ") + "; packs made after a refusal say so in metadata.record.refused_requests")
	}
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
