package ctx_test

import (
	"bufio"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/contextsubstrate/ctx/internal/ptytest"
)

// TestMCPWaitsForAClientOnATerminal: ctx record --mcp and ctx serve --mcp
// started by hand in a terminal say that they wait for a client's
// messages there, and how a client connects; ended with nothing said
// (Ctrl-D, Ctrl-C), they pack nothing and say so (exit 2).
func TestMCPWaitsForAClientOnATerminal(t *testing.T) {
	dir := t.TempDir()
	server := buildMCPServer(t, dir)
	storeDir := ctxtest.NewStoreDir(t)
	recordEcho(t, storeDir, server)
	for _, c := range []struct {
		prog    []string
		end     string // how the user ends it: Ctrl-D or Ctrl-C
		waiting string
		nothing string
	}{
		{[]string{"ctx-record", "--store", storeDir, "--mcp", "--", server}, "Ctrl-D",
			"waiting for an MCP client's messages on standard input", "nothing MCP was exchanged with " + server},
		{[]string{"ctx-serve", "--store", storeDir, "--mcp", "rec"}, "Ctrl-C",
			"waiting for an MCP client's messages on standard input", "nothing was served: no MCP message came from the client"},
	} {
		t.Run(c.prog[0], func(t *testing.T) {
			ptmx, tty := ptytest.Open(t)
			cmd := exec.Command(c.prog[0], c.prog[1:]...)
			cmd.Stdin = tty
			errPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stderr := bufio.NewReader(errPipe)
			var said strings.Builder
			for !strings.Contains(said.String(), c.waiting) {
				line, err := stderr.ReadString('\n')
				said.WriteString(line)
				if err != nil {
					t.Fatalf("%s said %q", c.prog[0], said.String())
				}
			}
			if line, _ := stderr.ReadString('\n'); !strings.Contains(line, "hint:") || !strings.Contains(line, "the client's configuration") {
				t.Fatalf("no word on how to connect a client: %q after %q", line, said.String())
			}
			if c.end == "Ctrl-D" {
				if _, err := ptmx.Write([]byte{4}); err != nil {
					t.Fatal(err)
				}
			} else if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			rest, _ := readAll(stderr)
			_ = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(rest, c.nothing) {
				t.Fatalf("after %s: exit %d, said %q", c.end, code, rest)
			}
			if out := ctxtest.Must(t, "", "ctx-log", "--store", storeDir, "--json"); strings.Count(out, `"hash"`) != 1 {
				t.Fatalf("a session with nothing in it was packed:\n%s", out)
			}
		})
	}
}

func readAll(r *bufio.Reader) (string, error) {
	var b strings.Builder
	_, err := r.WriteTo(&b)
	return b.String(), err
}
