//go:build unix

package replay

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A file that is not regular (a named pipe) is refused, not read: a
// replay must never block on one.
func TestReadRefusesFIFO(t *testing.T) {
	ws := testWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(ws.Dir(), "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := runTool(t, ws, "read_file", `{"path":"pipe"}`)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("read of a named pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read of a named pipe blocked")
	}
	if _, err := runTool(t, ws, "write_file", `{"path":"pipe","content":"x"}`); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("write to a named pipe: %v", err)
	}
}
