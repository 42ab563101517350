package convert

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// OTelSpool keeps the spans and GenAI log records a receiver is sent,
// grouped by trace, in temporary files until each trace is converted, so
// a trace of any size is converted without being held in memory: memory
// holds a small index entry per span. It is safe for concurrent use.
type OTelSpool struct {
	dir string

	mu     sync.Mutex
	cur    *segment
	traces map[string]*spoolTrace
	seq    int64
	closed bool
}

// segmentSize is the size past which the spool starts a new file, so the
// files of traces already converted can be removed while others stay
// open.
const segmentSize = 64 << 20

// segment is one spool file; live counts the records of traces not yet
// released, and the file goes when it reaches zero.
type segment struct {
	f    *os.File
	size int64
	live int
}

// spoolRef is where one span or log record lies.
type spoolRef struct {
	start int64 // the span's start, for ordering
	seq   int64 // arrival order, for ties
	seg   *segment
	off   int64
	n     int32
}

type spoolTrace struct {
	id    string
	first int64 // seq of its first record
	spans []spoolRef
	logs  map[string][]spoolRef // by span id
	nlogs int
	genai int
	roots int
}

// NewOTelSpool makes a spool whose files go in dir (the system's
// temporary directory when "").
func NewOTelSpool(dir string) *OTelSpool {
	if dir == "" {
		dir = os.TempDir()
	}
	return &OTelSpool{dir: dir, traces: map[string]*spoolTrace{}}
}

// OTelTraceInfo says what the spool holds of a trace.
type OTelTraceInfo struct {
	ID    string // hex
	Spans int
	GenAI int // spans of a GenAI vocabulary (model, tool and agent spans ...)
	Roots int // spans without a parent here: a trace is whole once its root has ended
	Logs  int // GenAI log records
}

func (t *spoolTrace) info() OTelTraceInfo {
	return OTelTraceInfo{ID: t.id, Spans: len(t.spans), GenAI: t.genai, Roots: t.roots, Logs: t.nlogs}
}

// record is one encoded span or log record waiting to be written.
type record struct {
	trace string
	span  string // the span a log record names
	log   bool
	genai bool
	root  bool
	start int64
	data  []byte
}

// AddTraces spools every span of td and returns the ids of the traces it
// added to, in the order they first appear in td. A span holding more
// outside its content than a pack can carry refuses the whole request
// (*OTelTooLargeError), before anything of it is spooled.
func (sp *OTelSpool) AddTraces(td ptrace.Traces) ([]string, error) {
	var recs []record
	var m ptrace.ProtoMarshaler
	one := ptrace.NewTraces()
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j)
			// One span under its resource and scope: a record reads alone.
			one.ResourceSpans().RemoveIf(func(ptrace.ResourceSpans) bool { return true })
			ors := one.ResourceSpans().AppendEmpty()
			rs.Resource().CopyTo(ors.Resource())
			ors.SetSchemaUrl(rs.SchemaUrl())
			oss := ors.ScopeSpans().AppendEmpty()
			ss.Scope().CopyTo(oss.Scope())
			oss.SetSchemaUrl(ss.SchemaUrl())
			dst := oss.Spans().AppendEmpty()
			for k := 0; k < ss.Spans().Len(); k++ {
				s := ss.Spans().At(k)
				if err := checkSpan(rs.Resource(), ss.Scope(), s); err != nil {
					return nil, err
				}
				s.CopyTo(dst)
				data, err := m.MarshalTraces(one)
				if err != nil {
					return nil, err
				}
				flags := s.Flags()
				recs = append(recs, record{
					trace: traceIDText(s.TraceID()),
					genai: genAISpan(s.Attributes()),
					root:  s.ParentSpanID().IsEmpty() || flags&(flagHasIsRemote|flagIsRemote) == flagHasIsRemote|flagIsRemote,
					start: int64(s.StartTimestamp()),
					data:  data,
				})
			}
		}
	}
	return sp.write(recs)
}

// genAISpan reports whether a span's attributes say it is of a GenAI
// vocabulary, by the mapping's own rule.
func genAISpan(attrs pcommon.Map) bool { return pdataOp(attrs) != "" }

// OTelLogsAdded says what AddLogs did with a batch of log records.
type OTelLogsAdded struct {
	Traces   []string // the traces GenAI records were added to
	NotGenAI int      // records that are no GenAI event: not kept
	NoTrace  int      // GenAI records naming no trace: not kept
}

// AddLogs spools the GenAI log records of ld (events such as
// gen_ai.client.inference.operation.details), each under the trace and
// span it names.
func (sp *OTelSpool) AddLogs(ld plog.Logs) (OTelLogsAdded, error) {
	var res OTelLogsAdded
	var recs []record
	var m plog.ProtoMarshaler
	one := plog.NewLogs()
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		for j := 0; j < rl.ScopeLogs().Len(); j++ {
			sl := rl.ScopeLogs().At(j)
			one.ResourceLogs().RemoveIf(func(plog.ResourceLogs) bool { return true })
			orl := one.ResourceLogs().AppendEmpty()
			rl.Resource().CopyTo(orl.Resource())
			osl := orl.ScopeLogs().AppendEmpty()
			sl.Scope().CopyTo(osl.Scope())
			dst := osl.LogRecords().AppendEmpty()
			for k := 0; k < sl.LogRecords().Len(); k++ {
				lr := sl.LogRecords().At(k)
				if _, ok := otlpLogEvent(lr); !ok {
					res.NotGenAI++
					continue
				}
				if lr.TraceID().IsEmpty() {
					res.NoTrace++
					continue
				}
				if err := checkLog(lr); err != nil {
					return res, err
				}
				lr.CopyTo(dst)
				data, err := m.MarshalLogs(one)
				if err != nil {
					return res, err
				}
				recs = append(recs, record{trace: traceIDText(lr.TraceID()), span: spanIDText(lr.SpanID()), log: true, data: data})
			}
		}
	}
	ids, err := sp.write(recs)
	res.Traces = ids
	return res, err
}

// write appends records to the current file, in one write, and indexes
// them.
func (sp *OTelSpool) write(recs []record) ([]string, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	size := 0
	for _, r := range recs {
		size += len(r.data)
	}
	buf := make([]byte, 0, size)
	for _, r := range recs {
		buf = append(buf, r.data...)
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.closed {
		return nil, fmt.Errorf("the spool is closed")
	}
	if sp.cur == nil || sp.cur.size >= segmentSize {
		f, err := os.CreateTemp(sp.dir, "ctx-record-spool-*")
		if err != nil {
			return nil, fmt.Errorf("spool: %w", err)
		}
		// The name is not needed: the file goes when it is closed, or
		// with the process.
		_ = os.Remove(f.Name())
		if sp.cur != nil && sp.cur.live == 0 {
			sp.cur.f.Close()
		}
		sp.cur = &segment{f: f}
	}
	seg := sp.cur
	if _, err := seg.f.WriteAt(buf, seg.size); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	var touched []string
	seen := map[string]bool{}
	off := seg.size
	for _, r := range recs {
		t := sp.traces[r.trace]
		if t == nil {
			t = &spoolTrace{id: r.trace, first: sp.seq, logs: map[string][]spoolRef{}}
			sp.traces[r.trace] = t
		}
		if !seen[r.trace] {
			seen[r.trace] = true
			touched = append(touched, r.trace)
		}
		ref := spoolRef{start: r.start, seq: sp.seq, seg: seg, off: off, n: int32(len(r.data))}
		sp.seq++
		off += int64(len(r.data))
		seg.live++
		if r.log {
			t.logs[r.span] = append(t.logs[r.span], ref)
			t.nlogs++
			continue
		}
		t.spans = append(t.spans, ref)
		if r.genai {
			t.genai++
		}
		if r.root {
			t.roots++
		}
	}
	seg.size = off
	return touched, nil
}

// Info says what the spool holds of trace id.
func (sp *OTelSpool) Info(id string) (OTelTraceInfo, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	t := sp.traces[id]
	if t == nil {
		return OTelTraceInfo{}, false
	}
	return t.info(), true
}

// Open lists the traces the spool holds, in the order they first came.
func (sp *OTelSpool) Open() []OTelTraceInfo {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	list := make([]*spoolTrace, 0, len(sp.traces))
	for _, t := range sp.traces {
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].first < list[j].first })
	out := make([]OTelTraceInfo, len(list))
	for i, t := range list {
		out[i] = t.info()
	}
	return out
}

// Take removes trace id from the spool's open traces and returns it, to
// be converted; spans of the same id that come later start a trace of
// their own. Its records stay on disk until Release.
func (sp *OTelSpool) Take(id string) (*OTelTrace, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	t := sp.traces[id]
	if t == nil {
		return nil, false
	}
	delete(sp.traces, id)
	sort.Slice(t.spans, func(i, j int) bool {
		a, b := t.spans[i], t.spans[j]
		if a.start != b.start {
			return a.start < b.start
		}
		return a.seq < b.seq
	})
	return &OTelTrace{OTelTraceInfo: t.info(), sp: sp, t: t}, true
}

// release gives up a trace's records, and removes a file none is left in.
func (sp *OTelSpool) release(t *spoolTrace) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	drop := func(r spoolRef) {
		r.seg.live--
		if r.seg.live > 0 {
			return
		}
		if r.seg == sp.cur && !sp.closed {
			// The current file starts over.
			_ = r.seg.f.Truncate(0)
			r.seg.size = 0
			return
		}
		r.seg.f.Close()
	}
	for _, r := range t.spans {
		drop(r)
	}
	for _, rs := range t.logs {
		for _, r := range rs {
			drop(r)
		}
	}
	t.spans, t.logs = nil, nil
}

// Close removes the spool's files; traces not taken are lost.
func (sp *OTelSpool) Close() error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.closed {
		return nil
	}
	sp.closed = true
	segs := map[*segment]bool{}
	if sp.cur != nil {
		segs[sp.cur] = true
	}
	for _, t := range sp.traces {
		for _, r := range t.spans {
			segs[r.seg] = true
		}
		for _, rs := range t.logs {
			for _, r := range rs {
				segs[r.seg] = true
			}
		}
	}
	sp.traces = nil
	for s := range segs {
		s.f.Close()
	}
	return nil
}

// OTelTrace is a trace taken from a spool.
type OTelTrace struct {
	OTelTraceInfo
	sp *OTelSpool
	t  *spoolTrace
}

// Convert writes the trace's execution log to out, as ctx convert --from
// otel does for a document: the same mapping, reading the spans from the
// spool in the order they began. fields, when any, go in the run's
// metadata.record, as fields beside a document's spans do.
func (t *OTelTrace) Convert(out io.Writer, opts Options, fields map[string]any) (OTelResult, error) {
	w := newWriter(out, opts)
	res, err := mapOTel(&spooledSpans{t: t.t}, otelExtra{fields: fields}, w)
	if err != nil && !w.failed {
		w.fail(err)
	}
	return res, err
}

// Release removes the trace's records from the spool.
func (t *OTelTrace) Release() {
	if t.t != nil {
		t.sp.release(t.t)
		t.t = nil
	}
}

// spooledSpans reads a spooled trace's spans back, one at a time.
type spooledSpans struct {
	t       *spoolTrace
	matched int          // log records spans took
	logsAt  map[int]bool // the spans that took log records, known after the first pass
}

func (s *spooledSpans) each(keep func(int) bool, fn func(int, *otelSpan) error) error {
	var tu ptrace.ProtoUnmarshaler
	var lu plog.ProtoUnmarshaler
	var buf []byte
	read := func(r spoolRef) ([]byte, error) {
		if cap(buf) < int(r.n) {
			buf = make([]byte, r.n)
		}
		buf = buf[:r.n]
		if _, err := r.seg.f.ReadAt(buf, r.off); err != nil {
			return nil, fmt.Errorf("spool: %w", err)
		}
		return buf, nil
	}
	first := s.logsAt == nil
	if first {
		s.logsAt = map[int]bool{}
	}
	took := map[string]bool{} // span ids whose log records were given
	for i, ref := range s.t.spans {
		if keep != nil && !keep(i) {
			continue
		}
		data, err := read(ref)
		if err != nil {
			return err
		}
		td, err := tu.UnmarshalTraces(data)
		if err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		var span *otelSpan
		otlpSpans(td, func(x *otelSpan) { span = x })
		if span == nil {
			return fmt.Errorf("spool: a record holds no span")
		}
		span.order = i
		logs := s.t.logs[span.spanID]
		switch {
		case !first && !s.logsAt[i]:
			logs = nil
		case !first:
		case took[span.spanID]:
			// Two spans of one id: the records went to the first.
			logs = nil
		case len(logs) > 0:
			took[span.spanID] = true
			s.logsAt[i] = true
			s.matched += len(logs)
		}
		for _, lref := range logs {
			data, err := read(lref)
			if err != nil {
				return err
			}
			ld, err := lu.UnmarshalLogs(data)
			if err != nil {
				return fmt.Errorf("spool: %w", err)
			}
			otlpLogs(ld, func(_, _ string, ev map[string]any) { span.events = append(span.events, ev) })
		}
		if err := fn(i, span); err != nil {
			return err
		}
	}
	return nil
}

func (s *spooledSpans) unplaced() int { return s.t.nlogs - s.matched }
