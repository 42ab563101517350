package ctx_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// How an MCP session ends, through the real programs and raw pipes: what
// the client sent before it left is answered, a client that stops reading
// ends the session without killing ctx, a server's leftovers are ended
// with it, and a session in which nothing MCP happened is not packed.

const (
	rawInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	rawInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func rawEcho(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
}

// pipeIn runs a program with all of its input written at once and closed
// (printf ... | PROG), and returns its output, standard error and exit
// status.
func pipeIn(t *testing.T, input string, prog string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Stdin = strings.NewReader(input)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// startSession writes initialize, initialized and an echo call to a
// server's input, and reads the two answers.
func startSession(t *testing.T, in io.Writer, out *bufio.Reader) {
	t.Helper()
	for _, l := range []string{rawInit, rawInitialized, rawEcho(2, "hi")} {
		if _, err := io.WriteString(in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatalf("no answer: %v", err)
		}
	}
}

// recordEcho records a session of one echo call, tagged rec.
func recordEcho(t *testing.T, storeDir, server string) {
	t.Helper()
	mcpSession(t, []string{"ctx-record", "--store", storeDir, "--mcp", "--tag", "rec", "--", server},
		[]mcpCall{{"echo", map[string]any{"text": "hello"}}})
}

// TestMCPPipedRequestsAnswered: a client that writes its requests and
// closes its output at once (printf ... | ctx serve --mcp) gets an answer
// to each. A single initialize piped into ctx serve was answered in about
// half of the runs: run it many times. Through ctx record the server (on
// the Go SDK, which drops the requests in flight when its input ends)
// gets its input closed only once it has answered what the client asked.
func TestMCPPipedRequestsAnswered(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	recordEcho(t, storeDir, server)

	for i := 0; i < 20; i++ {
		out, errOut, code := pipeIn(t, rawInit+"\n", "ctx-serve", "--store", storeDir, "--mcp", "rec")
		if code != 0 || !strings.Contains(out, `"id":1,"result":{`) {
			t.Fatalf("run %d: a single initialize piped in: exit %d, answered %q\n%s", i, code, out, errOut)
		}
	}
	session := rawInit + "\n" + rawInitialized + "\n" + rawEcho(2, "hello") + "\n"
	for _, prog := range [][]string{
		{"ctx-serve", "--store", storeDir, "--mcp", "rec"},
		{"ctx-record", "--store", storeDir, "--mcp", "--", server},
	} {
		out, errOut, code := pipeIn(t, session, prog[0], prog[1:]...)
		if code != 0 || !strings.Contains(out, `"id":1,"result":{`) || !strings.Contains(out, `{"jsonrpc":"2.0","id":2,"result":{`) || !strings.Contains(out, `"text":"hello"`) {
			t.Fatalf("%s: initialize, initialized and a call piped in: exit %d, answered\n%s\n%s", prog[0], code, out, errOut)
		}
		if !strings.Contains(errOut, "(1 ") || !strings.Contains(errOut, "the client closed the session") || strings.Contains(errOut, "waiting for") {
			t.Errorf("%s said %q", prog[0], errOut)
		}
	}
}

// TestMCPServeSharedIDsAndBatches: through the program and a raw pipe,
// requests sharing an id are each answered, and a batch is answered as
// one array under 2025-03-26 (the SDK's connection answered one request
// of a shared id, and a batch line by line).
func TestMCPServeSharedIDsAndBatches(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	recordEcho(t, storeDir, server)
	input := strings.Replace(rawInit, "2025-06-18", "2025-03-26", 1) + "\n" + rawInitialized + "\n" +
		strings.Repeat(rawEcho(7, "hello")+"\n", 20) +
		"[" + rawEcho(8, "hello") + `,{"jsonrpc":"2.0","id":9,"method":"ping"}]` + "\n"
	out, errOut, code := pipeIn(t, input, "ctx-serve", "--store", storeDir, "--mcp", "rec")
	if n := strings.Count(out, `{"jsonrpc":"2.0","id":7,"result":{`); code != 0 || n != 20 {
		t.Fatalf("20 calls of id 7: exit %d, %d answers\n%s\n%s", code, n, out, errOut)
	}
	var batch []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	arrays := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[") {
			arrays++
			if err := json.Unmarshal([]byte(l), &batch); err != nil {
				t.Fatal(err)
			}
		}
	}
	if arrays != 1 || len(batch) != 2 || batch[0].ID != 8 || batch[1].ID != 9 || batch[0].Result == nil {
		t.Fatalf("a batch of two requests answered as\n%s", out)
	}
}

// TestMCPClientStopsReading: a client that stops reading (closes the read
// end of ctx's standard output) ends the session: ctx is not killed by
// SIGPIPE (exit 141, nothing packed), it packs what came and says why
// the session ended.
func TestMCPClientStopsReading(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	recordEcho(t, storeDir, server)
	for _, prog := range [][]string{
		{"ctx-serve", "--store", storeDir, "--mcp", "--json", "--tag", "stopped", "rec"},
		{"ctx-record", "--store", storeDir, "--mcp", "--json", "--tag", "stopped", "--", server},
	} {
		t.Run(prog[0], func(t *testing.T) {
			cmd := exec.Command(prog[0], prog[1:]...)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			errBuf := new(strings.Builder)
			cmd.Stdout, cmd.Stderr = w, errBuf
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			startSession(t, in, bufio.NewReader(r))
			// The client stops reading, and goes on asking.
			r.Close()
			for i := 3; i < 2000; i++ {
				if _, err := io.WriteString(in, rawEcho(i, "unread")+"\n"); err != nil {
					break // ctx has ended the session
				}
			}
			in.Close()
			err = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); err != nil || code != 0 {
				t.Fatalf("exit %d (%v) when the client stopped reading\n%s", code, err, errBuf.String())
			}
			var line struct {
				Pack  string `json:"pack"`
				Calls int    `json:"calls"`
				Ended string `json:"ended"`
			}
			if err := json.Unmarshal([]byte(lastLine(errBuf.String())), &line); err != nil || line.Ended != "client_stopped_reading" || line.Calls < 1 {
				t.Fatalf("%s said %q", prog[0], errBuf.String())
			}
			m := showJSON(t, storeDir, "stopped")
			var meta struct {
				MCP struct {
					Ended string `json:"ended"`
				} `json:"mcp"`
			}
			if err := json.Unmarshal(m.Metadata, &meta); err != nil || meta.MCP.Ended != "client_stopped_reading" || len(m.Steps) < 1 {
				t.Fatalf("the pack: %d steps, metadata %s", len(m.Steps), m.Metadata)
			}
			ctxtest.Must(t, "", "ctx-rm", "--store", storeDir, "-f", "stopped")
		})
	}
}

// ended reports whether process pid is gone (a zombie waiting for its
// reaper counts as gone).
func ended(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// TestMCPRecordEndsWhatTheServerLeft: a server that starts a program
// holding its output open (as npx does, or a server's helper) does not
// keep ctx record, or whoever waits for its output, waiting: the program
// is ended with the server, when the client leaves and when the server
// ends first.
func TestMCPRecordEndsWhatTheServerLeft(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to tell whether a process is gone")
	}
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	for _, c := range []struct {
		name  string
		crash bool
		code  int
	}{{"the client leaves", false, 0}, {"the server ends first", true, 3}} {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			// Standard error is a file: a pipe held by the leftover
			// would keep this test waiting, as it kept the user.
			errFile, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
			if err != nil {
				t.Fatal(err)
			}
			defer errFile.Close()
			cmd := exec.Command("ctx-record", "--store", storeDir, "--mcp", "--json", "--",
				"/bin/sh", "-c", `sleep 1000 & echo $! > "$0"; exec "$1"`, pidFile, server)
			cmd.Stderr = errFile
			in, _ := cmd.StdinPipe()
			outPipe, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			startSession(t, in, bufio.NewReader(outPipe))
			b, err := os.ReadFile(pidFile)
			pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || perr != nil || ended(pid) {
				t.Fatalf("the server's helper: %q %v %v", b, err, perr)
			}
			defer func() { _ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run() }()
			if c.crash {
				// The client stays; the server's exit ends the session.
				if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"crash","arguments":{}}}`+"\n"); err != nil {
					t.Fatal(err)
				}
			} else {
				in.Close()
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatal("ctx record did not end with its server")
			}
			errText, _ := os.ReadFile(errFile.Name())
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, errText)
			}
			if !ended(pid) {
				t.Fatalf("the server's helper (process %d) outlived ctx record\n%s", pid, errText)
			}
			if !strings.Contains(string(errText), `"pack":"ctx://`) {
				t.Fatalf("nothing packed: %s", errText)
			}
			in.Close()
		})
	}
}

// TestMCPRecordUndecodableAnswers: answers the SDK cannot decode (nested
// deeper than Go's decoder goes; longer than --max-message) were relayed
// to the client, so they are recorded as they passed: the raw bytes of
// their result are the call's output, noted as not decoded, and ctx serve
// gives them back byte for byte.
func TestMCPRecordUndecodableAnswers(t *testing.T) {
	dir := t.TempDir()
	deep := `{"content":[{"type":"text","text":"deep"}],"structuredContent":{"v":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 3<<20) + `"}]}`
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("init.json", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw-server","version":"1"}}}`+"\n")
	write("deep.json", `{"jsonrpc":"2.0","id":2,"result":`+deep+"}\n")
	// The id last, as the TypeScript SDK writes it.
	write("big.json", `{"result":`+big+`,"jsonrpc":"2.0","id":3}`+"\n")
	// A server that answers the client's requests, in the order this
	// test makes them, with the files.
	script := `read l; cat init.json; read l; read l; cat deep.json; read l; cat big.json; cat > /dev/null`
	storeDir := ctxtest.NewStoreDir(t)
	cmd, in, out, errBuf := rawPipe(t, "maxrss", "64", "ctx-record", "--store", storeDir, "--mcp", "--max-message", "1", "--tag", "raw", "--", "/bin/sh", "-c", "cd "+dir+" && "+script)
	ask := func(line string) string {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, `"notifications/`) {
			return ""
		}
		l, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("%v\n%s", err, errBuf.String())
		}
		return l
	}
	ask(rawInit)
	ask(rawInitialized)
	if got := ask(rawEcho(2, "deep")); got != `{"jsonrpc":"2.0","id":2,"result":`+deep+"}\n" {
		t.Fatalf("the deep answer was not relayed as it was: %.100q", got)
	}
	if got := ask(rawEcho(3, "big")); len(got) != len(big)+len(`{"result":,"jsonrpc":"2.0","id":3}`)+1 {
		t.Fatalf("the long answer was not relayed whole: %d bytes", len(got))
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ctx record: %v\n%s", err, errBuf.String())
	}
	m := showJSON(t, storeDir, "raw")
	if len(m.Steps) != 2 {
		t.Fatalf("%d steps", len(m.Steps))
	}
	for i, want := range []string{"not decoded", "over --max-message"} {
		var meta struct {
			MCP map[string]any `json:"mcp"`
		}
		_ = json.Unmarshal(m.Steps[i].Metadata, &meta)
		if note, _ := meta.MCP["undecoded"].(string); !strings.Contains(note, want) || meta.MCP["answered"] != nil {
			t.Errorf("step %d's metadata: %s", i, m.Steps[i].Metadata)
		}
	}
	if got := ctxtest.Must(t, "", "ctx-cat", "--store", storeDir, "raw:steps/0"); got != deep {
		t.Errorf("the deep answer's output: %.100q", got)
	}
	if got := ctxtest.Must(t, "", "ctx-cat", "--store", storeDir, "raw:steps/1"); got != big {
		t.Errorf("the long answer's output: %d bytes, want %d", len(got), len(big))
	}

	// Served back, byte for byte, under the client's ids.
	cmd, in, out, errBuf = rawPipe(t, "ctx-serve", "--store", storeDir, "--mcp", "raw")
	ask(rawInit)
	ask(rawInitialized)
	if got := ask(rawEcho(12, "deep")); got != `{"jsonrpc":"2.0","id":12,"result":`+deep+"}\n" {
		t.Errorf("ctx serve gave the deep answer back as %.200q", got)
	}
	if got := ask(rawEcho(13, "big")); got != `{"jsonrpc":"2.0","id":13,"result":`+big+"}\n" {
		t.Errorf("ctx serve gave the long answer back as %.200q", got)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ctx serve: %v\n%s", err, errBuf.String())
	}
}
