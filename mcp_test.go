package ctx_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests of ctx record --mcp and ctx serve --mcp with the official Go
// SDK's client in this process and internal/mcpserver, a server on the
// same SDK, as the real server. testdata/scripts/mcp_*.txtar do the same
// with the TypeScript SDK's client and the reference filesystem server.

// buildMCPServer builds internal/mcpserver into dir.
func buildMCPServer(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mcpserver")
	out, err := exec.Command(ctxtest.GoTool(t), "build", "-o", bin, "./internal/mcpserver").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./internal/mcpserver: %v\n%s", err, out)
	}
	return bin
}

// mcpCall is one tools/call a test makes, and what came of it as JSON:
// the result, or the JSON-RPC error.
type mcpCall struct {
	Tool string
	Args map[string]any
}

// mcpSession connects the SDK's client to the program, runs the calls and
// disconnects; it returns each call's result (or error) as JSON, the
// server's name and its tool names.
func mcpSession(t *testing.T, prog []string, calls []mcpCall) (results []string, server string, tools []string, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(prog[0], prog[1:]...)
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	client := mcp.NewClient(&mcp.Implementation{Name: "ctx-test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect %v: %v\n%s", prog, err, errBuf.String())
	}
	server = cs.InitializeResult().ServerInfo.Name
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tl := range lt.Tools {
		tools = append(tools, tl.Name)
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		var b []byte
		if err != nil {
			var we *jsonrpc.Error
			if !errors.As(err, &we) {
				t.Fatalf("tools/call %s: %v", c.Tool, err)
			}
			b, _ = json.Marshal(map[string]any{"error": we})
		} else {
			b, _ = json.Marshal(res)
		}
		results = append(results, string(b))
	}
	if err := cs.Close(); err != nil && !strings.Contains(err.Error(), "signal") {
		t.Logf("close: %v", err)
	}
	_ = cmd.Wait()
	return results, server, tools, errBuf.String()
}

func TestMCPRecordThenServe(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	calls := []mcpCall{
		{"echo", map[string]any{"text": "hello"}},
		{"add", map[string]any{"a": 2, "b": 40}},
		{"fail", map[string]any{"text": "no such file"}},
		{"rpcerror", nil},
		{"counter", nil},
		{"counter", nil},
		{"big", map[string]any{"bytes": 100000}},
	}
	rec, name, tools, errOut := mcpSession(t, []string{"ctx-record", "--store", storeDir, "--mcp", "--tag", "rec", "--", server}, calls)
	if name != "ctx-test-server" || len(tools) != 7 {
		t.Fatalf("through ctx record: server %q, tools %v", name, tools)
	}
	if !strings.Contains(errOut, "packed the MCP session (7 tool calls) as ctx://") {
		t.Fatalf("ctx record's stderr: %q", errOut)
	}
	if !strings.Contains(rec[2], `"isError":true`) || !strings.Contains(rec[3], `-32042`) || rec[4] == rec[5] {
		t.Fatalf("recorded results: %v", rec)
	}

	// The server is gone; the pack answers.
	if err := os.Remove(server); err != nil {
		t.Fatal(err)
	}
	again := append(append([]mcpCall{}, calls...), mcpCall{"counter", nil})
	served, name2, tools2, errOut := mcpSession(t, []string{"ctx-serve", "--store", storeDir, "--mcp", "--tag", "served", "--json", "rec"}, again)
	if name2 != name || strings.Join(tools2, ",") != strings.Join(tools, ",") {
		t.Fatalf("served server %q tools %v, recorded %q %v", name2, tools2, name, tools)
	}
	for i := range rec {
		if served[i] != rec[i] {
			t.Errorf("call %d (%s): served\n%s\nrecorded\n%s", i, calls[i].Tool, served[i], rec[i])
		}
	}
	// Repeated identical calls: the recorded answers in order, then the
	// last one again.
	if served[7] != rec[5] {
		t.Errorf("a third counter call got %s, want the last recorded answer %s", served[7], rec[5])
	}
	var sum struct {
		Pack     string `json:"pack"`
		Calls    int    `json:"calls"`
		Recorded int    `json:"answered_from_recording"`
		Misses   int    `json:"misses"`
	}
	if err := json.Unmarshal([]byte(lastLine(errOut)), &sum); err != nil || sum.Calls != 8 || sum.Recorded != 8 || sum.Misses != 0 {
		t.Fatalf("ctx serve --json summary %+v (%v) in %q", sum, err, errOut)
	}
	// The recorded and the served sessions are the same run.
	out, errText, code := ctxtest.Cmd(t, "", "ctx-diff", "--store", storeDir, "rec", "served")
	var rep struct {
		Summary map[string]int `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("ctx diff: exit %d %v\n%s", code, err, errText)
	}
	// The served session has one call more (the third counter): one step
	// added, nothing else.
	if rep.Summary["tool_drift"] != 1 || rep.Summary["param_drift"] != 0 || rep.Summary["output_drift"] != 0 || rep.Summary["input_drift"] != 0 {
		t.Fatalf("ctx diff rec served: %s", out)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestMCPServeMissPolicyAndPassthrough(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	mcpSession(t, []string{"ctx-record", "--store", storeDir, "--mcp", "--tag", "rec", "--", server},
		[]mcpCall{{"echo", map[string]any{"text": "hello"}}, {"add", map[string]any{"a": 1, "b": 2}}})

	// A miss is an error result naming it, never an invented answer.
	res, _, _, _ := mcpSession(t, []string{"ctx-serve", "--store", storeDir, "--mcp", "--tag", "miss", "rec"},
		[]mcpCall{{"echo", map[string]any{"text": "other"}}, {"add", map[string]any{"b": 2, "a": 1.0}}})
	if !strings.Contains(res[0], `"isError":true`) || !strings.Contains(res[0], "no recorded call of \\\"echo\\\"") {
		t.Fatalf("a miss got %s", res[0])
	}
	if !strings.Contains(res[1], `"sum":3`) {
		t.Fatalf("arguments in another key order and spelling did not match: %s", res[1])
	}
	// The miss shows in the diff as changed parameters.
	out, _, _ := ctxtest.Cmd(t, "", "ctx-diff", "--store", storeDir, "rec", "miss")
	if !strings.Contains(out, `"param_drift":1`) {
		t.Fatalf("ctx diff rec miss: %s", out)
	}

	// --on-miss passthrough asks the real server; --policy fail refuses a
	// recorded call; --policy passthrough always asks.
	res, _, _, errOut := mcpSession(t, []string{"ctx-serve", "--store", storeDir, "--mcp", "--json",
		"--on-miss", "passthrough", "--policy", "add=fail", "rec", "--", server},
		[]mcpCall{{"echo", map[string]any{"text": "other"}}, {"add", map[string]any{"a": 1, "b": 2}}, {"echo", map[string]any{"text": "hello"}}})
	if !strings.Contains(res[0], `"text":"other"`) || strings.Contains(res[0], "isError") {
		t.Fatalf("passthrough of a miss got %s", res[0])
	}
	if !strings.Contains(res[1], `"isError":true`) || !strings.Contains(res[1], "--policy add=fail") {
		t.Fatalf("--policy add=fail got %s", res[1])
	}
	if !strings.Contains(lastLine(errOut), `"passthrough":1`) || !strings.Contains(lastLine(errOut), `"failed_by_policy":1`) {
		t.Fatalf("summary: %s", errOut)
	}
	res, _, _, _ = mcpSession(t, []string{"ctx-serve", "--store", storeDir, "--mcp", "--policy", "counter=passthrough", "rec", "--", server},
		[]mcpCall{{"counter", nil}, {"counter", nil}})
	if !strings.Contains(res[0], `"text":"1"`) || !strings.Contains(res[1], `"text":"2"`) {
		t.Fatalf("--policy counter=passthrough got %v", res)
	}
}

func TestMCPRecordServerCrash(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command("ctx-record", "--store", storeDir, "--mcp", "--json", "--tag", "crashed", "--", server)
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	client := mcp.NewClient(&mcp.Implementation{Name: "ctx-test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "before"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a call whose server crashed returned no error")
	}
	_ = cs.Close()
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("ctx record exit %d, want the server's 3\n%s", code, errBuf.String())
	}
	m := showJSON(t, storeDir, "crashed")
	if len(m.Steps) != 2 || m.Steps[0].Tool != "echo" || m.Steps[1].Tool != "crash" {
		t.Fatalf("steps of the crashed session: %+v", m.Steps)
	}
	var meta struct {
		MCP struct {
			Unanswered int `json:"unanswered_calls"`
		} `json:"mcp"`
	}
	// The run's own end, which ctx log, ctx show and ctx suite read.
	if err := json.Unmarshal(m.Metadata, &meta); err != nil || m.End == nil || m.End.State != "error" || !strings.Contains(m.End.Message, "exit status 3") || meta.MCP.Unanswered != 1 {
		t.Fatalf("end %+v, metadata of the crashed session: %s", m.End, m.Metadata)
	}
	if strings.Contains(string(m.Metadata), `"end"`) {
		t.Errorf("the end is also in the metadata: %s", m.Metadata)
	}
}

type shownPack struct {
	Steps []struct {
		Tool     string          `json:"tool"`
		Metadata json.RawMessage `json:"metadata"`
	} `json:"steps"`
	Metadata json.RawMessage `json:"metadata"`
	End      *runEnd         `json:"end"`
}

// runEnd is a pack's end, as ctx show --json prints it.
type runEnd struct {
	State   string `json:"state"`
	Message string `json:"message"`
}

func showJSON(t *testing.T, storeDir, name string) shownPack {
	t.Helper()
	var m shownPack
	if err := json.Unmarshal([]byte(ctxtest.Must(t, "", "ctx-show", "--store", storeDir, "--json", name)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMCPServeBadInput writes raw lines to ctx serve: a line that is not
// JSON, a value that is not a message, an unknown method and a line over
// the bound each get their error, and the session goes on.
func TestMCPServeBadInput(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	mcpSession(t, []string{"ctx-record", "--store", storeDir, "--mcp", "--tag", "rec", "--", server},
		[]mcpCall{{"echo", map[string]any{"text": "hello"}}})

	// Through the maxrss program, which holds ctx serve's peak to 64 MiB
	// (measured from here, a child's peak would carry this process's).
	cmd, in, out, errBuf := rawPipe(t, "maxrss", "64", "ctx-serve", "--store", storeDir, "--mcp", "--max-message", "1", "rec")
	send := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
		l, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("after %.60q: %v\n%s", line, err, errBuf.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		return m
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	if m := send("this is not json"); code(m) != -32700 {
		t.Fatalf("not JSON: %v", m)
	}
	if m := send(`{"hello": "world"}`); code(m) != -32600 {
		t.Fatalf("not a message: %v", m)
	}
	if m := send(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("a", 3<<20) + `"}}}`); code(m) != -32600 {
		t.Fatalf("over the bound: %v", m)
	}
	m := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if res, _ := m["result"].(map[string]any); res == nil || res["serverInfo"] == nil {
		t.Fatalf("initialize after the bad lines: %v", m)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if m := send(`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`); code(m) != -32601 {
		t.Fatalf("unknown method: %v", m)
	}
	m = send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	if !strings.Contains(toJSON(m), `"text":"hello"`) {
		t.Fatalf("a recorded call after the bad lines: %v", m)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ctx serve, reading a 3 MiB line over a 1 MiB bound, within 64 MiB: %v\n%s", err, errBuf.String())
	}
}

// rawPipe starts a program with pipes for a test that writes raw lines.
func rawPipe(t *testing.T, prog string, args ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errBuf := new(strings.Builder)
	cmd.Stderr = errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, in, bufio.NewReader(outPipe), errBuf
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestMCPServeRefusesOtherPacks(t *testing.T) {
	storeDir := ctxtest.NewStoreDir(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "run.json")
	if err := os.WriteFile(log, []byte(`{"model":{"identifier":"m"},"prompts":[{"content":"hi"}],"steps":[{"tool":"t","parameters":{},"output":"o"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctxtest.Must(t, dir, "ctx-pack", "--store", storeDir, "--tag", "plain", log)
	_, errOut, code := ctxtest.Cmd(t, "", "ctx-serve", "--store", storeDir, "--mcp", "plain")
	if code != 2 || !strings.Contains(errOut, "holds no MCP session") {
		t.Fatalf("ctx serve of a pack without a session: exit %d\n%s", code, errOut)
	}
}

// BenchmarkMCPCall times one tools/call (echo) made by the Go SDK's
// client: straight to the server, through ctx record --mcp, and answered
// by ctx serve --mcp from a recording. The difference is what ctx adds
// to a call:
//
//	go test -run '^$' -bench BenchmarkMCPCall -benchtime 2000x .
func BenchmarkMCPCall(b *testing.B) {
	dir := b.TempDir()
	server := buildMCPServer(b, dir)
	storeDir := filepath.Join(dir, ".ctx")
	if out, err := exec.Command("ctx-init", dir).CombinedOutput(); err != nil {
		b.Fatalf("ctx init: %v\n%s", err, out)
	}
	args := map[string]any{"text": "hello"}
	// One recorded call for ctx serve to answer every time.
	run := func(b *testing.B, prog ...string) {
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cmd := exec.Command(prog[0], prog[1:]...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatalf("%v\n%s", err, stderr.String())
		}
		defer cs.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
	}
	b.Run("direct", func(b *testing.B) { run(b, server) })
	b.Run("record", func(b *testing.B) { run(b, "ctx-record", "--store", storeDir, "--mcp", "--tag", "bench", "--", server) })
	b.Run("serve", func(b *testing.B) { run(b, "ctx-serve", "--store", storeDir, "--mcp", "bench") })
}

// TestMCPRecordInterrupted: SIGTERM to ctx record --mcp in the middle of
// a session packs the calls so far, the end marked interrupted.
func TestMCPRecordInterrupted(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	cmd, in, out, errBuf := rawPipe(t, "ctx-record", "--store", storeDir, "--mcp", "--tag", "cut", "--", server)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"kept"}}}`,
	} {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatalf("no answer to %s: %v\n%s", line, err, errBuf.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ctx record after SIGTERM: %v\n%s", err, errBuf.String())
	}
	m := showJSON(t, storeDir, "cut")
	if len(m.Steps) != 1 || m.Steps[0].Tool != "echo" || m.End == nil || *m.End != (runEnd{"error", "interrupted"}) {
		t.Fatalf("the interrupted session: steps %+v, end %+v", m.Steps, m.End)
	}
}

// TestMCPRecordStreamableHTTP: ctx record --mcp-url relays a server of
// the streamable HTTP transport (the Go SDK's handler, here on the
// loopback) on a local port; the session packed serves back on stdio.
func TestMCPRecordStreamableHTTP(t *testing.T) {
	var n atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "http-test-server", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "counter", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(n.Add(1))}}}, nil
		})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)}
	go hs.Serve(ln)
	defer hs.Close()
	target := "http://" + ln.Addr().String() + "/mcp"

	storeDir := ctxtest.NewStoreDir(t)
	rec := exec.Command("ctx-record", "--store", storeDir, "--mcp-url", target, "--tag", "web", "--json")
	errPipe, _ := rec.StderrPipe()
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	stderr := bufio.NewReader(errPipe)
	first, err := stderr.ReadString('\n')
	local := ""
	if _, after, ok := strings.Cut(first, "relaying "); ok {
		local, _, _ = strings.Cut(after, " ")
	}
	if err != nil || !strings.HasPrefix(local, "http://127.0.0.1:") || !strings.HasSuffix(local, "/mcp") {
		t.Fatalf("ctx record's first line %q (%v)", first, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	results := func(cs *mcp.ClientSession) []string {
		var out []string
		for i := 0; i < 2; i++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "counter", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			// The protocol's own annotation of a result (the server's
			// name in _meta, under 2026-07-28) depends on the version
			// each transport negotiated; the result is the rest.
			res.Meta = nil
			out = append(out, toJSON(res))
		}
		return out
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "ctx-test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: local}, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorded := results(cs)
	cs.Close()
	if err := rec.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	if err := rec.Wait(); err != nil {
		t.Fatalf("ctx record --mcp-url: %v\n%s", err, rest)
	}
	if !strings.Contains(string(rest), `"calls":2`) {
		t.Fatalf("ctx record --mcp-url --json said %s", rest)
	}

	cs2, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("ctx-serve", "--store", storeDir, "--mcp", "web")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	served := results(cs2)
	cs2.Close()
	if strings.Join(served, "\n") != strings.Join(recorded, "\n") || recorded[0] == recorded[1] {
		t.Fatalf("served %v, recorded %v", served, recorded)
	}
}

// TestMCPRecordHTTPPassesSignalsOn: ctx record --mcp-url with a client
// command passes the signals it gets on to the command, as an OTLP
// recording does, and exits with the command's status once it has ended;
// the command spoke to no server, so there is nothing to pack.
func TestMCPRecordHTTPPassesSignalsOn(t *testing.T) {
	storeDir := ctxtest.NewStoreDir(t)
	rec := exec.Command("ctx-record", "--store", storeDir, "--mcp-url", "http://127.0.0.1:1/mcp", "--json", "--tag", "sig",
		"--", "/bin/sh", "-c", `trap 'echo "got TERM, url $CTX_MCP_URL"; exit 7' TERM; echo ready; while :; do sleep 0.01; done`)
	var errBuf strings.Builder
	rec.Stderr = &errBuf
	outPipe, _ := rec.StdoutPipe()
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outPipe)
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the command said %q %v\n%s", line, err, errBuf.String())
	}
	if err := rec.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	said, _ := io.ReadAll(out)
	err := rec.Wait()
	if code := rec.ProcessState.ExitCode(); code != 7 {
		t.Fatalf("ctx record exit %d (%v), want the command's 7\n%s", code, err, errBuf.String())
	}
	if !strings.HasPrefix(string(said), "got TERM, url http://127.0.0.1:") {
		t.Errorf("the command said %q", said)
	}
	// The command never reached the server (there is none): nothing MCP
	// was exchanged, so nothing is packed, and ctx record says so.
	if !strings.Contains(errBuf.String(), "nothing MCP was exchanged with http://127.0.0.1:1/mcp") {
		t.Fatalf("ctx record said %q", errBuf.String())
	}
	if out := ctxtest.Must(t, "", "ctx-log", "--store", storeDir, "--json"); strings.TrimSpace(out) != "" {
		t.Errorf("a session with nothing in it was packed: %s", out)
	}
}
