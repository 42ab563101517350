package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
)

// recording packs a session of one echo call and loads it back as ctx
// serve does.
func recording(t *testing.T) *Recording {
	t.Helper()
	st := storetest.New(t)
	sess, err := NewSession("record", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sess.SetServer(map[string]json.RawMessage{InitializeInput: json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"rec","version":"1"}}`)},
		[]json.RawMessage{json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)})
	sess.Answered("echo", json.RawMessage(`{"text":"hi"}`), time.Now(), []byte(`{"content":[{"type":"text","text":"hi"}]}`), false, "")
	pub, err := Save(st, sess, pack.SaveOptions{Options: pack.Options{Root: t.TempDir(), Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := pack.Load(st, pub.Hash)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := LoadRecording(st, pub.Hash, m)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// serveLines serves rec to a client that writes lines and closes its
// output at once (printf ... | ctx serve), and returns each line answered.
func serveLines(t *testing.T, rec *Recording, out interface{ Write([]byte) (int, error) }, lines ...string) ServeSummary {
	t.Helper()
	sess, err := NewSession("serve", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sum, err := Serve(ctx, ServeConfig{Recording: rec, Session: sess, In: strings.NewReader(strings.Join(lines, "\n") + "\n"), Out: out, OnMiss: PolicyFail})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("the session did not end with the client's input")
	}
	return sum
}

func initialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func echoCall(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
}

func answers(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("not one message a line: %s", l)
		}
		got = append(got, m)
	}
	return got
}

// TestServeAnswersWhatWasRead: a client that writes its requests and
// closes its output at once gets every answer. The SDK's connection
// stops writing answers when its reader ends, so a single initialize
// piped in was answered about half the time: run many times.
func TestServeAnswersWhatWasRead(t *testing.T) {
	rec := recording(t)
	for i := 0; i < 200; i++ {
		var out bytes.Buffer
		serveLines(t, rec, &out, initialize("2025-06-18"))
		if got := answers(t, out.Bytes()); len(got) != 1 || got[0]["id"] != 1.0 || got[0]["result"] == nil {
			t.Fatalf("run %d: a single initialize piped in got %q", i, out.String())
		}
	}
	var out bytes.Buffer
	sum := serveLines(t, rec, &out, initialize("2025-06-18"), initialized, echoCall("2"))
	got := answers(t, out.Bytes())
	if len(got) != 2 || got[1]["id"] != 2.0 || !strings.Contains(out.String(), `"text":"hi"`) {
		t.Fatalf("initialize, initialized and a call piped in got %q", out.String())
	}
	if sum.Calls != 1 || sum.Ended != EndedClientClosed || sum.Messages != 3 {
		t.Fatalf("summary %+v", sum)
	}
}

// TestServeSharedIDs: requests that share an id, each read while another
// of that id is in flight, are each answered, with the id as the client
// wrote it.
func TestServeSharedIDs(t *testing.T) {
	rec := recording(t)
	lines := []string{initialize("2025-06-18"), initialized}
	for i := 0; i < 20; i++ {
		lines = append(lines, echoCall("7"))
	}
	lines = append(lines, echoCall(`"s"`), echoCall("1.0"))
	var out bytes.Buffer
	sum := serveLines(t, rec, &out, lines...)
	got := answers(t, out.Bytes())
	ids := map[string]int{}
	for _, m := range got[1:] {
		if m["result"] == nil {
			t.Fatalf("an error: %v", m)
		}
		b, _ := json.Marshal(m["id"])
		ids[string(b)]++
	}
	if len(got) != 23 || ids["7"] != 20 || ids[`"s"`] != 1 || !strings.Contains(out.String(), `"id":1.0,`) || sum.Calls != 22 {
		t.Fatalf("%d answers, by id %v; summary %+v\n%s", len(got), ids, sum, out.String())
	}
}

// TestServeBatch: a batch is answered as one array (JSON-RPC 2.0), an
// element that is no message with its own error in it, under a protocol
// version that has batches (2025-03-26); from 2025-06-18 on, which
// removed them, the batch gets one error.
func TestServeBatch(t *testing.T) {
	rec := recording(t)
	batch := `[` + echoCall(`"a"`) + `,{"jsonrpc":"2.0","id":"b","method":"ping"},{"hello":1},{"jsonrpc":"2.0","method":"notifications/x"}]`
	var out bytes.Buffer
	serveLines(t, rec, &out, initialize("2025-03-26"), initialized, batch)
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	var arr []map[string]any
	if len(lines) != 2 || json.Unmarshal(lines[1], &arr) != nil || len(arr) != 3 {
		t.Fatalf("a batch of two requests, a bad element and a notification got %q", out.String())
	}
	if arr[0]["id"] != "a" || arr[0]["result"] == nil || arr[1]["id"] != "b" || arr[2]["id"] != nil || arr[2]["error"] == nil {
		t.Fatalf("the batch's answers: %v", arr)
	}

	out.Reset()
	serveLines(t, rec, &out, initialize("2025-06-18"), initialized, batch)
	got := answers(t, out.Bytes()) // the refusal may come before initialize's answer
	var e map[string]any
	for _, m := range got {
		if m["id"] == nil {
			e, _ = m["error"].(map[string]any)
		}
	}
	if len(got) != 2 || e == nil || e["code"] != -32600.0 || !strings.Contains(e["message"].(string), "2025-06-18") {
		t.Fatalf("a batch under 2025-06-18 got %q", out.String())
	}
}

// brokenPipe takes n writes, then fails as a pipe whose reader went away.
type brokenPipe struct {
	n   int
	got bytes.Buffer
}

func (b *brokenPipe) Write(p []byte) (int, error) {
	if b.n == 0 {
		return 0, syscall.EPIPE
	}
	b.n--
	return b.got.Write(p)
}

// TestServeClientStopsReading: a client that stops reading ends the
// session, which says so and counts the answers it did not read.
func TestServeClientStopsReading(t *testing.T) {
	rec := recording(t)
	lines := []string{initialize("2025-06-18"), initialized}
	for i := 2; i < 200; i++ {
		lines = append(lines, echoCall(string(rune('0'+i%10))))
	}
	out := &brokenPipe{n: 3}
	sum := serveLines(t, rec, out, lines...)
	if sum.Ended != EndedClientStoppedReading || sum.Undelivered == 0 || sum.Calls < 2 {
		t.Fatalf("summary %+v", sum)
	}
}
