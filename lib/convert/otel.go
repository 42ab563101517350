package convert

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// OpenTelemetry traces of agents carry one of three vocabularies: the
// GenAI semantic conventions (gen_ai.operation.name says what a span is:
// chat, execute_tool, invoke_agent ...; the model, messages, tool name,
// arguments and result in gen_ai.* attributes, or in the
// gen_ai.client.inference.operation.details event), their older spellings
// (gen_ai.prompt, gen_ai.completion, as attributes or events), and
// OpenInference (openinference.span.kind LLM / TOOL / AGENT, llm.* and
// input.value / output.value). Documents come in two shapes: OTLP JSON
// (resourceSpans and resourceLogs, as collectors and the OTLP file
// exporter write it, one or several documents), decoded by the
// collector's pdata library as ctx record decodes what it receives; and
// the span list of the SDK's own JSON form ({"spans": [...]}, a bare
// array, or span and log objects one after another, as the console
// exporters print them).

// otelSpan is one span in any shape: the one representation the mapping
// reads.
type otelSpan struct {
	order        int // position in the input: ties of start time keep it
	name         string
	kind         any
	traceID      string
	spanID       string
	parentID     string
	remoteParent bool // the parent is another service's span
	startNs      int64
	start        string
	end          string
	attrs        map[string]any
	status       string // "ok", "error", "unset"
	message      string // status description
	events       []any  // each an object: name, time, attributes, body
	links        []any
	resource     map[string]any
	scope        any
	dropped      map[string]any // what the SDK dropped: attributes, events, links
	absorbed     bool           // content events merged into attrs (absorbEvents)
}

// key names a span within all traces, to attach log records to it.
func (s *otelSpan) key() string { return s.traceID + "/" + s.spanID }

// root reports whether the span starts its trace here: it has no parent,
// or its parent is another service's.
func (s *otelSpan) root() bool { return s.parentID == "" || s.remoteParent }

func isOTel(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["resourceSpans"]; ok {
			return true
		}
		if _, ok := x["resourceLogs"]; ok {
			return true
		}
		if spans, ok := x["spans"].([]any); ok {
			return len(spans) == 0 || isSDKSpan(spans[0])
		}
		return isSDKSpan(x)
	case []any:
		return len(x) > 0 && isSDKSpan(x[0])
	}
	return false
}

// isSDKSpan recognises a span in the SDK's JSON form.
func isSDKSpan(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, name := m["name"].(string)
	_, ctx := m["context"].(map[string]any)
	_, attrs := m["attributes"].(map[string]any)
	return name && (ctx || attrs)
}

// isSDKLog recognises a log record in the SDK's JSON form (the console log
// exporter prints them among the spans).
func isSDKLog(m map[string]any) bool {
	_, ctx := m["context"]
	_, body := m["body"]
	_, sev := m["severity_text"]
	_, sevn := m["severity_number"]
	return !ctx && (body || sev || sevn)
}

// otelDoc is what a document holds.
type otelDoc struct {
	spans    []*otelSpan
	logs     map[string][]any // GenAI log records by the span they name (otelSpan.key)
	unplaced int              // GenAI log records that name no span
	notGenAI int              // log records that are no GenAI event
	extra    map[string]any   // fields beside the spans
}

func (od *otelDoc) add(s *otelSpan) {
	s.order = len(od.spans)
	od.spans = append(od.spans, s)
}

// addLog files a GenAI log record under the span it names.
func (od *otelDoc) addLog(traceID, spanID string, ev map[string]any) {
	if spanID == "" {
		od.unplaced++
		return
	}
	k := traceID + "/" + spanID
	od.logs[k] = append(od.logs[k], ev)
}

// otelDocument reads the spans and log records of every value of d.
func otelDocument(d *document) (*otelDoc, error) {
	od := &otelDoc{logs: map[string][]any{}, extra: map[string]any{}}
	for vi, v := range d.values {
		n := node{v: v}
		if len(d.values) > 1 {
			n.line = d.lineOfValue(vi)
		}
		switch x := v.(type) {
		case map[string]any:
			_, spans := x["resourceSpans"]
			_, logs := x["resourceLogs"]
			if spans || logs {
				if err := od.otlpJSON(n, spans, logs); err != nil {
					return nil, err
				}
				continue
			}
			if _, ok := x["spans"]; ok {
				list, err := n.key("spans").needArr()
				if err != nil {
					return nil, err
				}
				for i := range list {
					if err := od.sdkValue(n.key("spans").idx(i)); err != nil {
						return nil, err
					}
				}
				for _, k := range sortedKeys(x) {
					if k != "spans" {
						od.extra[k] = x[k]
					}
				}
				continue
			}
			if err := od.sdkValue(n); err != nil {
				return nil, err
			}
		case []any:
			for i := range x {
				if err := od.sdkValue(n.idx(i)); err != nil {
					return nil, err
				}
			}
		default:
			return nil, n.errorf("must be an object or an array of spans, not %s", kindOf(v))
		}
	}
	return od, nil
}

// otlpJSON reads an OTLP JSON document with pdata, after mending the
// spellings of OTLP before 1.0 that pdata no longer reads.
func (od *otelDoc) otlpJSON(n node, spans, logs bool) error {
	legacyOTLP(n.v)
	data, err := json.Marshal(n.v)
	if err != nil {
		return n.errorf("%v", err)
	}
	if spans {
		var u ptrace.JSONUnmarshaler
		td, err := u.UnmarshalTraces(data)
		if err != nil {
			return otlpError(n, err)
		}
		otlpSpans(td, od.add)
	}
	if logs {
		var u plog.JSONUnmarshaler
		ld, err := u.UnmarshalLogs(data)
		if err != nil {
			return otlpError(n, err)
		}
		od.notGenAI += otlpLogs(ld, od.addLog)
	}
	return nil
}

// otlpLogs files each GenAI log record of ld with add and returns how many
// records were no GenAI event.
func otlpLogs(ld plog.Logs, add func(traceID, spanID string, ev map[string]any)) int {
	other := 0
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				lr := lrs.At(k)
				ev, ok := otlpLogEvent(lr)
				if !ok {
					other++
					continue
				}
				add(traceIDText(lr.TraceID()), spanIDText(lr.SpanID()), ev)
			}
		}
	}
	return other
}

// otlpError says what pdata found wrong, briefly: its messages quote the
// input at length.
func otlpError(n node, err error) error {
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return n.errorf("not OTLP JSON: %s", msg)
}

// legacyOTLP renames, in place, what OTLP JSON before 1.0 called
// instrumentationLibrarySpans, turns base64 ids (the protobuf JSON
// mapping's, which some exporters wrote) into the hex OTLP JSON wants,
// and keeps integers beyond int64, which OTLP cannot carry, as the text
// of the number.
func legacyOTLP(v any) {
	bigInts(v)
	doc, _ := v.(map[string]any)
	for _, list := range []string{"resourceSpans", "resourceLogs"} {
		rs, _ := doc[list].([]any)
		for _, r := range rs {
			rm, _ := r.(map[string]any)
			for old, cur := range map[string]string{"instrumentationLibrarySpans": "scopeSpans", "instrumentationLibraryLogs": "scopeLogs"} {
				if x, ok := rm[old]; ok && rm[cur] == nil {
					rm[cur] = x
					delete(rm, old)
				}
			}
			for _, inner := range []string{"scopeSpans", "scopeLogs"} {
				ss, _ := rm[inner].([]any)
				for _, s := range ss {
					sm, _ := s.(map[string]any)
					if x, ok := sm["instrumentationLibrary"]; ok && sm["scope"] == nil {
						sm["scope"] = x
						delete(sm, "instrumentationLibrary")
					}
					for _, items := range []string{"spans", "logRecords"} {
						list, _ := sm[items].([]any)
						for _, it := range list {
							im, _ := it.(map[string]any)
							hexIDs(im)
							links, _ := im["links"].([]any)
							for _, l := range links {
								lm, _ := l.(map[string]any)
								hexIDs(lm)
							}
						}
					}
				}
			}
		}
	}
}

// bigInts turns every {"intValue": N} whose N is no int64 into
// {"stringValue": "N"}.
func bigInts(v any) {
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["intValue"]; ok && len(x) == 1 {
			text := fmt.Sprint(n)
			if _, err := strconv.ParseInt(text, 10, 64); err != nil {
				if _, isNum := n.(json.Number); isNum || isDigits(text) {
					delete(x, "intValue")
					x["stringValue"] = text
				}
			}
			return
		}
		for _, e := range x {
			bigInts(e)
		}
	case []any:
		for _, e := range x {
			bigInts(e)
		}
	}
}

func isDigits(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func hexIDs(m map[string]any) {
	for _, k := range []string{"traceId", "spanId", "parentSpanId"} {
		if s, ok := m[k].(string); ok {
			m[k] = otlpID(s)
		}
	}
}

// sdkValue reads a span or a log record in the SDK's JSON form.
func (od *otelDoc) sdkValue(n node) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	if isSDKLog(m) {
		od.sdkLog(n, m)
		return nil
	}
	s, err := sdkSpan(n, m)
	if err != nil {
		return err
	}
	od.add(s)
	return nil
}

// sdkSpan reads a span in the SDK's JSON form: flat attributes, ids as
// numbers or 0x-hex strings, times as nanoseconds or ISO strings.
func sdkSpan(n node, m map[string]any) (*otelSpan, error) {
	name, err := n.key("name").optStr()
	if err != nil {
		return nil, err
	}
	attrs := map[string]any{}
	if a := n.key("attributes"); !a.null() {
		am, err := a.needObj()
		if err != nil {
			return nil, err
		}
		attrs = am
	}
	s := &otelSpan{name: name, kind: m["kind"], attrs: attrs}
	s.events, _ = m["events"].([]any)
	s.links, _ = m["links"].([]any)
	ctx := n.key("context")
	s.traceID = idText(ctx.key("trace_id").v, 32)
	s.spanID = idText(ctx.key("span_id").v, 16)
	if p := n.key("parent"); !p.null() {
		s.parentID = idText(p.key("span_id").v, 16)
		s.remoteParent = p.key("is_remote").bool()
	} else {
		s.parentID = idText(m["parent_id"], 16)
	}
	s.start, s.startNs = spanTime(m["start_time"])
	s.end, _ = spanTime(m["end_time"])
	st := n.key("status")
	code := st.key("status_code").v
	if code == nil {
		code = st.key("code").v
	}
	s.status = statusName(code)
	s.message = st.key("description").string()
	if r, ok := n.key("resource").key("attributes").obj(); ok {
		s.resource = r
	}
	return s, nil
}

// sdkLog files a log record of the SDK's JSON form.
func (od *otelDoc) sdkLog(n node, m map[string]any) {
	attrs, _ := m["attributes"].(map[string]any)
	name, _ := m["event_name"].(string)
	if name == "" {
		name, _ = attrs["event.name"].(string)
	}
	if !strings.HasPrefix(name, "gen_ai.") && !hasGenAIKey(attrs) {
		od.notGenAI++
		return
	}
	ev := map[string]any{"name": name, "attributes": attrs}
	t, _ := spanTime(m["timestamp"])
	ev = setIf(ev, "time", t)
	ev = setIf(ev, "body", m["body"])
	od.addLog(idText(m["trace_id"], 32), idText(m["span_id"], 16), ev)
}

// otlpID returns an OTLP id as lower-case hex: OTLP JSON writes hex, the
// protobuf JSON mapping base64.
func otlpID(s string) string {
	if s == "" {
		return ""
	}
	if _, err := hex.DecodeString(s); err == nil {
		return strings.ToLower(s)
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return hex.EncodeToString(b)
	}
	return s
}

// idText returns a trace or span id as hex of width digits: the SDK's JSON
// form writes them as integers (too large for a double) or 0x strings.
func idText(v any, width int) string {
	switch x := v.(type) {
	case json.Number:
		// Trace ids are 128-bit: more than a uint64 holds.
		n, ok := new(big.Int).SetString(string(x), 10)
		if !ok || n.Sign() < 0 {
			return string(x)
		}
		s := n.Text(16)
		return strings.Repeat("0", max(0, width-len(s))) + s
	case string:
		return strings.TrimPrefix(strings.ToLower(x), "0x")
	}
	return ""
}

// spanTime reads a span time: nanoseconds since the epoch (a number or a
// string of digits) or an ISO time.
func spanTime(v any) (string, int64) {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return "", 0
		}
		return unixTime(x, time.Nanosecond), n
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return unixTime(x, time.Nanosecond), n
		}
		s := rfc3339(x)
		if s == "" {
			return "", 0
		}
		t, _ := time.Parse(time.RFC3339Nano, s)
		return s, t.UnixNano()
	}
	return "", 0
}

// statusName reads a status code in any of its spellings.
func statusName(v any) string {
	s := strings.ToLower(eventID(v))
	switch {
	case s == "2" || strings.Contains(s, "error"):
		return "error"
	case s == "1" || strings.HasSuffix(s, "ok"):
		return "ok"
	}
	return "unset"
}

// sliceSpans is spans held in memory, in the order they began, their log
// records attached.
type sliceSpans struct {
	spans   []*otelSpan
	nowhere int // log records naming no span
}

func (l sliceSpans) each(keep func(int) bool, fn func(int, *otelSpan) error) error {
	for i, s := range l.spans {
		if keep != nil && !keep(i) {
			continue
		}
		if err := fn(i, s); err != nil {
			return err
		}
	}
	return nil
}

func (l sliceSpans) unplaced() int { return l.nowhere }

// sortSpans orders spans as the run happened: by start time, ties (and
// spans without one, first) in the order they came. Exporters send spans
// as they end, so a parent comes after its children.
func sortSpans(spans []*otelSpan) {
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].startNs != spans[j].startNs {
			return spans[i].startNs < spans[j].startNs
		}
		return spans[i].order < spans[j].order
	})
}

func convertOTel(d *document, w *writer) error {
	od, err := otelDocument(d)
	if err != nil {
		return err
	}
	for _, s := range od.spans {
		if evs := od.logs[s.key()]; len(evs) > 0 {
			s.events = append(s.events, evs...)
			delete(od.logs, s.key())
		}
	}
	for _, evs := range od.logs {
		od.unplaced += len(evs)
	}
	sortSpans(od.spans)
	// One trace is one run: an export of several traces is several logs,
	// one after another, in the order their first spans began.
	for i, spans := range byTrace(od.spans) {
		src, extra := sliceSpans{spans: spans}, otelExtra{}
		if i == 0 {
			// What came beside the spans is told once, with the first run.
			src.nowhere, extra = od.unplaced, otelExtra{fields: od.extra, notGenAI: od.notGenAI}
		} else {
			w = w.another()
		}
		if _, err := mapOTel(src, extra, w); err != nil {
			return err
		}
	}
	return nil
}

// byTrace splits spans, in the order they began, into one list per trace,
// in the order of each trace's first span; a span with no trace id goes
// with the first trace.
func byTrace(spans []*otelSpan) [][]*otelSpan {
	index := map[string]int{}
	var out [][]*otelSpan
	for _, s := range spans {
		i, ok := index[s.traceID]
		if !ok && s.traceID == "" && len(out) > 0 {
			i, ok = 0, true
		}
		if !ok {
			i = len(out)
			index[s.traceID] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	if len(out) == 0 {
		out = append(out, nil) // no span: still one (empty) run
	}
	return out
}
