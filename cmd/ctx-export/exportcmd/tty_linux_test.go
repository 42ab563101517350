package exportcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/ptytest"
	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/store"
)

// The stream is never written to a terminal: exit 2 and a hint, nothing
// on the terminal.
func TestRefusesToWriteToATerminal(t *testing.T) {
	_, tty := ptytest.Open(t)
	root := filepath.Join(t.TempDir(), store.Dir)
	if _, err := store.Init(root); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := Run(context.Background(), []string{"--store", root, "--all"}, nil, tty, &stderr)
	code := cli.Report(name, err, &stderr)
	if code != cli.ExitTrouble {
		t.Fatalf("exit %d, want %d", code, cli.ExitTrouble)
	}
	msg := stderr.String()
	if !strings.Contains(msg, "ctx-export: error: refusing to write a tar stream to a terminal\n") || !strings.Contains(msg, "ctx-export: hint: redirect it") {
		t.Fatalf("stderr = %q", msg)
	}
	// -o FILE is fine from a terminal.
	out := filepath.Join(t.TempDir(), "all.tar")
	if err := Run(context.Background(), []string{"--store", root, "--all", "-o", out}, nil, tty, &stderr); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != 1024 {
		t.Fatalf("empty export: %v, %v", fi, err)
	}
}
