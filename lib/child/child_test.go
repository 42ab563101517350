//go:build unix

package child

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStatus is the exit status as a shell says it.
func TestStatus(t *testing.T) {
	for _, c := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
		{"kill -KILL $$", 128 + int(syscall.SIGKILL)},
	} {
		got, err := Status(exec.Command("/bin/sh", "-c", c.script).Run())
		if err != nil || got != c.want {
			t.Errorf("%s: %d %v, want %d", c.script, got, err, c.want)
		}
	}
	if _, err := Status(exec.ErrNotFound); err == nil {
		t.Error("an error that is no exit status passed as one")
	}
}

// start runs a shell script as a child that says "ready" once its traps
// are set, and waits for that line.
func start(t *testing.T, script string, opts Options) *Child {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Stdout = w
	c, err := Start(cmd, opts)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the child said %q, %v", line, err)
	}
	return c
}

// TestForward passes the signals ctx gets on to the child, but not those
// a terminal sent the child itself (Interactive); ctx is not ended by
// them.
func TestForward(t *testing.T) {
	const script = `trap 'exit 5' INT; trap 'exit 6' TERM; echo ready; while :; do sleep 0.01; done`
	c := start(t, script, Options{Forward: true, Interactive: true})
	// Ctrl-C on a terminal reaches the child from the terminal, not
	// from ctx: not sent again. SIGTERM is passed on.
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, err := c.Wait(); code != 6 || err != nil {
		t.Errorf("exit %d %v, want 6 (SIGTERM passed on, SIGINT not)", code, err)
	}

	c = start(t, script, Options{Forward: true})
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code, err := c.Wait(); code != 5 || err != nil {
		t.Errorf("exit %d %v, want 5 (SIGINT passed on)", code, err)
	}
}

// TestStop asks the child to end, then kills one that will not.
func TestStop(t *testing.T) {
	c := start(t, `echo ready; while :; do sleep 0.01; done`, Options{})
	c.Stop(time.Minute)
	if code, _ := c.Wait(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d after SIGTERM", code)
	}
	c = start(t, `trap '' TERM; echo ready; while :; do sleep 0.01; done`, Options{})
	c.Stop(10 * time.Millisecond)
	if code, _ := c.Wait(); code != 128+int(syscall.SIGKILL) {
		t.Errorf("exit %d of a child that ignores SIGTERM", code)
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done is open after Stop")
	}
}

// gone reports whether process pid has ended (a zombie not yet reaped by
// whoever inherited it counts as ended).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

// TestStopGroup: a child that exits leaving a program of its own behind,
// holding its output open; Stop ends that program too (SIGTERM, then
// SIGKILL for one that ignores it), and the output reaches its end.
func TestStopGroup(t *testing.T) {
	for _, c := range []struct {
		name, script string
		grace        time.Duration
	}{
		{"ends on SIGTERM", `sleep 1000 & echo $!`, time.Minute},
		{"ignores SIGTERM", `trap '' TERM; sleep 1000 & echo $!`, 10 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := exec.Command("/bin/sh", "-c", c.script)
			cmd.Stdout = w
			ch, err := Start(cmd, Options{Group: true})
			w.Close()
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(r)
			line, err := br.ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				t.Fatalf("the child said %q, %v", line, err)
			}
			if code, err := ch.Wait(); code != 0 || err != nil {
				t.Fatalf("exit %d %v", code, err)
			}
			if gone(pid) {
				t.Fatal("the program the child left behind is gone before Stop")
			}
			ch.Stop(c.grace)
			if !gone(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d, started by the child, outlived Stop", pid)
			}
			if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
				t.Fatalf("the child's output after Stop: %q %v", rest, err)
			}
		})
	}
}
