package record

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestValueTooLargeOutsideContentIsRefused: a span whose values outside
// the content attributes (its name, here 18 MiB) could not be packed is
// refused with 413 while the exporter can still act, never answered 200
// and dropped later. The same size as content is taken and packed.
func TestValueTooLargeOutsideContentIsRefused(t *testing.T) {
	huge := strings.Repeat("n", 18<<20)
	for _, tt := range []struct {
		name string
		td   ptrace.Traces
		want int
	}{
		{"span name", withToolName(genAITrace(1, nil), huge), 413},
		{"attribute", genAITrace(2, func(m pcommon.Map) { m.PutStr("app.note", huge) }), 413},
		{"event", withEvent(genAITrace(3, nil), huge), 413},
		{"name of a span of no GenAI vocabulary", withPlainSpan(genAITrace(9, nil), huge), 413},
		{"tool arguments", genAITrace(5, func(m pcommon.Map) { m.PutStr("gen_ai.tool.call.arguments", `{"text":"`+huge+`"}`) }), 413},
		{"agent span's messages", withAgent(genAITrace(6, nil), huge), 413},
		{"two values of 9 MiB", genAITrace(7, func(m pcommon.Map) { m.PutStr("a", huge[:9<<20]); m.PutStr("b", huge[:9<<20]) }), 413},
		{"a tool's result", genAITrace(4, func(m pcommon.Map) { m.PutStr("gen_ai.tool.call.result", huge) }), 200},
		{"a model call's output", withModelOutput(genAITrace(8, nil), huge), 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTestRecorder(t, 64<<20)
			status, body := tr.post(t, "/v1/traces", "application/x-protobuf", "", protoOf(t, tt.td))
			if status != tt.want {
				t.Fatalf("status %d %.300q, want %d", status, body, tt.want)
			}
			tr.Flush()
			if tt.want == 413 {
				if len(tr.packs) != 0 {
					t.Errorf("packs %+v", tr.packs)
				}
				if !strings.Contains(string(body), "outside the content attributes") {
					t.Errorf("the refusal does not say why: %.300q", body)
				}
				return
			}
			if len(tr.packs) != 1 || len(tr.warns) != 0 {
				t.Errorf("packs %+v, warnings %.300q", tr.packs, tr.warns)
			}
		})
	}
}

func withToolName(td ptrace.Traces, name string) ptrace.Traces {
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(1).SetName(name)
	return td
}

func withEvent(td ptrace.Traces, value string) ptrace.Traces {
	ev := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(1).Events().AppendEmpty()
	ev.SetName("app.event")
	ev.Attributes().PutStr("note", value)
	return td
}

func withAgent(td ptrace.Traces, messages string) ptrace.Traces {
	sp := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty()
	sp.SetTraceID(td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).TraceID())
	sp.SetSpanID(pcommon.SpanID{9, 9})
	sp.SetName("invoke_agent a")
	sp.Attributes().PutStr("gen_ai.operation.name", "invoke_agent")
	sp.Attributes().PutStr("gen_ai.input.messages", messages)
	return td
}

func withModelOutput(td ptrace.Traces, text string) ptrace.Traces {
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("gen_ai.output.messages",
		`[{"role":"assistant","parts":[{"type":"text","content":"`+text+`"}]}]`)
	return td
}

// TestPackFailureNamesNoInternalLine: a span the receiver takes whose
// mapping still cannot be packed (a malformed gen_ai.input.messages leaves
// input.value in the metadata) is reported without a line and column of
// ctx record's own log, which the user never sees.
func TestPackFailureNamesNoInternalLine(t *testing.T) {
	tr := newTestRecorder(t, 64<<20)
	td := genAITrace(1, nil)
	root := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	root.PutStr("gen_ai.input.messages", "not JSON")
	root.PutStr("input.value", strings.Repeat("v", 17<<20))
	if status, body := tr.post(t, "/v1/traces", "application/x-protobuf", "", protoOf(t, td)); status != 200 {
		t.Fatalf("status %d %.300q", status, body)
	}
	tr.Flush()
	w := strings.Join(tr.warns, "\n")
	if len(tr.packs) != 0 || strings.Contains(w, "line") || !strings.Contains(w, "not packed: what its spans map to cannot be packed: a value of more than 16 MiB outside the content keys") {
		t.Errorf("packs %+v, warnings %.400q", tr.packs, tr.warns)
	}
}

func withPlainSpan(td ptrace.Traces, name string) ptrace.Traces {
	sp := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty()
	sp.SetTraceID(td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).TraceID())
	sp.SetSpanID(pcommon.SpanID{8, 8})
	sp.SetName(name) // counted by name in the run's metadata.other_spans
	return td
}
