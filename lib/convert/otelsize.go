package convert

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// A span's content (its messages, a tool's result) becomes content of the
// pack, stored as objects of any size. Everything else the mapping keeps
// (its name, the other attributes, its events and links, its resource)
// becomes values of the log's events outside the content keys (the tool,
// parameters and metadata of its step), which a pack bounds
// (pack.MaxValueOutsideContent). A span holding more than that is refused
// when it is received, while the exporter can still act, rather than
// taken and then dropped when its trace is packed.

// OTelTooLargeError says a span, or a GenAI log record, holds more outside
// the content attributes than a pack can carry.
type OTelTooLargeError struct {
	Trace   string // hex
	Span    string // hex
	Name    string // the span's name, clipped
	Size    int    // bytes of JSON outside the content attributes
	Largest string // what holds the most: "its name", `attribute "k"`, ...
	Log     bool   // a log record, not a span
}

func (e *OTelTooLargeError) Error() string {
	what := fmt.Sprintf("span %q (trace %s, span %s)", e.Name, e.Trace, e.Span)
	if e.Log {
		what = fmt.Sprintf("a GenAI log record of trace %s, span %s", e.Trace, e.Span)
	}
	return fmt.Sprintf("%s holds %s outside the content attributes (the most in %s); ctx record packs at most %s of them per span: send it as content (a model call's gen_ai.input.messages or gen_ai.output.messages, a tool's gen_ai.tool.call.result) or make it smaller",
		what, mib(e.Size), e.Largest, mib(pack.MaxValueOutsideContent))
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// outsideContent adds up the JSON sizes of what the mapping keeps of a
// span outside its content, and names the largest part.
type outsideContent struct {
	size    int
	largest string
	most    int
}

func (o *outsideContent) add(what string, n int) {
	o.size += n
	if n > o.most {
		o.most, o.largest = n, what
	}
}

// checkSpan refuses span s, under its resource and scope, when what the
// mapping keeps of it outside content is over the bound.
func checkSpan(res pcommon.Resource, scope pcommon.InstrumentationScope, s ptrace.Span) error {
	op := pdataOp(s.Attributes())
	var o outsideContent
	o.add("its name", jsonStringSize(s.Name()))
	if op == "" {
		// Not a step: the mapping only counts it, by name, in the run's
		// metadata.
		return o.refuse(s)
	}
	content := func(k string) bool { return spanContent(k, op) }
	o.add("its status message", jsonStringSize(s.Status().Message()))
	o.attributes("attribute", s.Attributes(), content)
	for i := 0; i < s.Events().Len(); i++ {
		ev := s.Events().At(i)
		what := fmt.Sprintf("event %q", clipName(ev.Name()))
		o.add(what, jsonStringSize(ev.Name()))
		// Content attributes of an event are lifted onto the span.
		o.attributes(what, ev.Attributes(), content)
	}
	for i := 0; i < s.Links().Len(); i++ {
		o.attributes("a link", s.Links().At(i).Attributes(), nil)
	}
	o.attributes("the resource", res.Attributes(), nil)
	o.add("the scope", jsonStringSize(scope.Name())+jsonStringSize(scope.Version()))
	o.attributes("the scope", scope.Attributes(), nil)
	return o.refuse(s)
}

// refuse is the error of span s when what it keeps outside content is over
// the bound, else nil.
func (o *outsideContent) refuse(s ptrace.Span) error {
	if o.size <= pack.MaxValueOutsideContent {
		return nil
	}
	return &OTelTooLargeError{Trace: traceIDText(s.TraceID()), Span: spanIDText(s.SpanID()),
		Name: clipName(s.Name()), Size: o.size, Largest: o.largest}
}

// checkLog refuses a GenAI log record whose attributes outside the content
// keys are over the bound: the mapping moves them onto its span.
func checkLog(lr plog.LogRecord) error {
	var o outsideContent
	o.attributes("attribute", lr.Attributes(), isContentKey)
	if o.size <= pack.MaxValueOutsideContent {
		return nil
	}
	return &OTelTooLargeError{Trace: traceIDText(lr.TraceID()), Span: spanIDText(lr.SpanID()),
		Size: o.size, Largest: o.largest, Log: true}
}

// attributes adds each attribute of m that content does not hold.
func (o *outsideContent) attributes(what string, m pcommon.Map, content func(string) bool) {
	m.Range(func(k string, v pcommon.Value) bool {
		if content != nil && content(k) {
			return true
		}
		name := what
		if what == "attribute" {
			name = fmt.Sprintf("attribute %q", clipName(k))
		}
		o.add(name, jsonStringSize(k)+1+jsonValueSize(v)+1)
		return true
	})
}

// pdataOp is spanOp of a span's attributes as received.
func pdataOp(attrs pcommon.Map) string {
	keys := map[string]any{}
	for _, k := range opKeys() {
		if v, ok := attrs.Get(k); ok {
			keys[k] = anyValue(v)
		}
	}
	return spanOp(keys)
}

// spanContent reports whether attribute k of a span of kind op is content
// the mapping stores as such: a model call's messages in any spelling
// (flattened ones too) and its output, a tool's result. A tool's arguments
// are its step's parameters, and every attribute of an agent's or another
// event's span is its step's metadata: outside content.
func spanContent(k, op string) bool {
	switch op {
	case opTool:
		for _, r := range toolResultKeys() {
			if k == r {
				return true
			}
		}
		return false
	case opModel:
	default:
		return false
	}
	if isContentKey(k) || k == "output.value" {
		return true
	}
	for _, sps := range [][]spelling{inputSpellings(), outputSpellings()} {
		for _, sp := range sps {
			if k == sp.key || sp.flat && strings.HasPrefix(k, sp.key+".") {
				return true
			}
		}
	}
	return false
}

// jsonValueSize is the size of v written as JSON, at most 6 bytes per
// byte of a string (an escape).
func jsonValueSize(v pcommon.Value) int {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return jsonStringSize(v.Str())
	case pcommon.ValueTypeBytes:
		return 2 + (v.Bytes().Len()+2)/3*4
	case pcommon.ValueTypeSlice:
		n := 2
		for i := 0; i < v.Slice().Len(); i++ {
			n += jsonValueSize(v.Slice().At(i)) + 1
		}
		return n
	case pcommon.ValueTypeMap:
		n := 2
		v.Map().Range(func(k string, e pcommon.Value) bool {
			n += jsonStringSize(k) + 1 + jsonValueSize(e) + 1
			return true
		})
		return n
	}
	return 24 // a number, a boolean, null
}

// jsonStringSize is the size of s as a JSON string, as the log writer
// escapes it (no HTML escapes): quotes and backslashes take two bytes,
// other control characters up to six, invalid UTF-8 the six of \ufffd.
func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			n += 2
		case c < 0x20:
			n += 6
		case c < utf8.RuneSelf:
			n++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += 6
			} else {
				n += size
			}
			i += size
			continue
		}
		i++
	}
	return n
}

// clipName cuts a name for a message.
func clipName(s string) string {
	if len(s) <= 60 {
		return s
	}
	cut := 60
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
