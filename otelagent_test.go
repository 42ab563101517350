package ctx_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/contextsubstrate/ctx/lib/convert"
)

// buildOtelAgent builds internal/otelagent, the stand-in agent that emits
// a run through the real OpenTelemetry Go SDK, into a directory the
// scripts find on their PATH: `exec ctx record -- otelagent run`. It is
// built, never linked into the test binary or a ctx program.
func buildOtelAgent(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(ctxtest.GoTool(t), "build", "-o", filepath.Join(dir, "otelagent"), "./internal/otelagent")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building internal/otelagent: %v\n%s", err, out)
	}
	return dir
}

// captureRun runs otelagent with args against a receiver that keeps what
// it is sent, and returns it as OTLP JSON: the traces document, then the
// logs document when there were log records.
func captureRun(t *testing.T, agent string, args ...string) []byte {
	t.Helper()
	traces, logs := ptrace.NewTraces(), plog.NewLogs()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/v1/traces":
			req := ptraceotlp.NewExportRequest()
			if err := req.UnmarshalProto(body); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			req.Traces().ResourceSpans().MoveAndAppendTo(traces.ResourceSpans())
		case "/v1/logs":
			req := plogotlp.NewExportRequest()
			if err := req.UnmarshalProto(body); err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			req.Logs().ResourceLogs().MoveAndAppendTo(logs.ResourceLogs())
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	cmd := exec.Command(filepath.Join(agent, "otelagent"), append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("otelagent run %v: %v\n%s", args, err, out)
	}
	var tm ptrace.JSONMarshaler
	doc, err := tm.MarshalTraces(traces)
	if err != nil {
		t.Fatal(err)
	}
	doc = append(doc, '\n')
	if logs.LogRecordCount() > 0 {
		var lm plog.JSONMarshaler
		ld, err := lm.MarshalLogs(logs)
		if err != nil {
			t.Fatal(err)
		}
		doc = append(append(doc, ld...), '\n')
	}
	return doc
}

// TestOtelAgentCorpusFiles holds the corpus's OTLP JSON of internal/otelagent
// runs (testdata/corpus/otel-genai/otelagent-go-sdk, made by the real Go
// SDK, see its SOURCE.txt) to what the agent emits now: converted, both
// give the same steps, prompts and outputs but for the clock tool's
// answer. CTX_UPDATE_CORPUS=1 records them again.
func TestOtelAgentCorpusFiles(t *testing.T) {
	agent := buildOtelAgent(t)
	dir := filepath.Join("testdata", "corpus", "otel-genai", "otelagent-go-sdk")
	for name, args := range map[string][]string{"run.otlp.json": nil, "run-events.otlp.json": {"--events"}} {
		fresh := captureRun(t, agent, args...)
		path := filepath.Join(dir, name)
		if os.Getenv("CTX_UPDATE_CORPUS") != "" {
			if err := os.WriteFile(path, fresh, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		stored, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (CTX_UPDATE_CORPUS=1 records it)", err)
		}
		if a, b := runShape(t, stored), runShape(t, fresh); a != b {
			t.Errorf("%s is no longer what otelagent %v emits:\n%s\nnow:\n%s", path, args, a, b)
		}
	}
}

// runShape is what a run's log says a person would compare: the prompts,
// and each step's type, tool, parameters and output (the clock's answer
// left out), and the outputs.
func runShape(t *testing.T, otlp []byte) string {
	var log bytes.Buffer
	if _, err := convert.Convert(bytes.NewReader(otlp), nil, &log, convert.Options{From: "otel"}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	dec := json.NewDecoder(&log)
	for {
		var ev map[string]any
		if err := dec.Decode(&ev); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch ev["event"] {
		case "run":
			fmt.Fprintln(&b, ev["model"], ev["system_prompt"])
		case "prompt", "output":
			fmt.Fprintln(&b, ev["event"], ev["role"], ev["name"], ev["content"])
		case "step":
			out := ev["output"]
			if ev["tool"] == "get_current_time" {
				out = "(the clock)"
			}
			fmt.Fprintln(&b, ev["type"], ev["tool"], ev["parameters"], ev["deterministic"], out)
		}
	}
	return b.String()
}
