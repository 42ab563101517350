package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestMain makes this test binary the sandbox's launcher, as ctx-replay
// is, and a helper the tests run in the sandbox (CTX_SANDBOX_HELPER):
// "dial PATH" connects to a Unix socket and prints what it reads,
// "pair" makes a socketpair, "alloc MIB" allocates and touches MIB MiB.
func TestMain(m *testing.M) {
	if IsLaunch(os.Args) {
		os.Exit(Launch(os.Args[1:]))
	}
	if h := os.Getenv("CTX_SANDBOX_HELPER"); h != "" {
		os.Exit(helper(strings.Fields(h)))
	}
	os.Exit(m.Run())
}

func helper(args []string) int {
	switch args[0] {
	case "dial":
		c, err := net.Dial("unix", args[1])
		if err != nil {
			fmt.Println(err)
			return 1
		}
		b := make([]byte, 100)
		n, _ := c.Read(b)
		fmt.Printf("%s", b[:n])
	case "pair":
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		fmt.Println("pair made")
	case "alloc":
		n, _ := strconv.Atoi(args[1])
		b := make([]byte, n<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		fmt.Println("allocated", n, "MiB")
	}
	return 0
}

// newTest is a sandbox for a fresh workspace whose launcher is this test
// binary; namespaces false keeps it out of the user and PID namespaces,
// as where none can be made (the launcher is then a child subreaper).
func newTest(t *testing.T, p Policy, namespaces bool) *Sandbox {
	t.Helper()
	if _, err := landlockABI(); err != nil {
		t.Skip(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p.Workspace = t.TempDir()
	sb, err := New(exe, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if !namespaces {
		sb.once.Do(func() {})
	} else if !sb.probe() {
		t.Skipf("no user and PID namespace here: %v", sb.nsErr)
	}
	return sb
}

// run runs argv in the sandbox as replay does (its own process group, the
// launcher dying with this thread), with helper as the helper's command,
// until it ends or ctx is done.
func run(ctx context.Context, t *testing.T, sb *Sandbox, helper string, argv ...string) (string, error) {
	t.Helper()
	exe, _ := os.Executable()
	full, err := sb.Argv(argv, exe)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, full[0], full[1:]...)
	cmd.Dir = sb.policy.Workspace
	cmd.Env = sb.Env(os.Environ(), "CTX_SANDBOX_HELPER="+helper)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	sb.Prepare(cmd)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	out, err := cmd.CombinedOutput()
	sb.Finish()
	return string(out), err
}

// processesWith lists the processes whose command line holds marker.
func processesWith(marker string) []string {
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), marker) {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// TestStepEndsWithItsProcesses: what a program starts ends with it, a
// setsid'd daemon too (it leaves the program's process group and
// session), whether the program ends by itself or at its timeout; in a
// PID namespace and, where none can be made, through the subreaper.
func TestStepEndsWithItsProcesses(t *testing.T) {
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			sb := newTest(t, Policy{AllowNet: true}, ns)
			marker := fmt.Sprintf("ctx-sandbox-test-%d-%v", os.Getpid(), ns)
			daemon := "setsid sh -c 'sleep 60; : " + marker + "' >/dev/null 2>&1 &"
			out, err := run(context.Background(), t, sb, "", "/bin/sh", "-c", daemon+" "+daemon+" echo started")
			if err != nil || out != "started\n" {
				t.Fatalf("run: %q, %v", out, err)
			}
			if left := processesWith(marker); len(left) > 0 {
				t.Errorf("left running after the program ended: %q", left)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err = run(ctx, t, sb, "", "/bin/sh", "-c", daemon+" sleep 60")
			if err == nil {
				t.Fatal("the program outlived its context")
			}
			if left := processesWith(marker); len(left) > 0 {
				t.Errorf("left running after the timeout: %q", left)
			}
		})
	}
}

// listenUnix serves "hello" on a Unix socket at path, counting the
// connections it accepts.
func listenUnix(t *testing.T, path string) *atomic.Int32 {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", path, err)
	}
	t.Cleanup(func() { l.Close(); os.Remove(path) })
	n := new(atomic.Int32)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Write([]byte("hello"))
			c.Close()
		}
	}()
	return n
}

// TestHostUnixSocketsClosed: a sandboxed program cannot connect to a Unix
// socket of the host, under a temporary directory or under /run, with the
// network closed or open; a socketpair still works, and the same helper
// unconfined does connect.
func TestHostUnixSocketsClosed(t *testing.T) {
	socks := []string{filepath.Join(t.TempDir(), "s.sock"), fmt.Sprintf("/run/ctx-sandbox-test-%d.sock", os.Getpid())}
	accepted := map[string]*atomic.Int32{}
	for _, s := range socks {
		accepted[s] = listenUnix(t, s)
	}
	exe, _ := os.Executable()
	for _, s := range socks {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "CTX_SANDBOX_HELPER=dial "+s)
		if out, err := cmd.CombinedOutput(); string(out) != "hello" {
			t.Fatalf("unconfined, the helper does not connect to %s: %q %v", s, out, err)
		}
	}
	for _, allowNet := range []bool{false, true} {
		sb := newTest(t, Policy{AllowNet: allowNet}, true)
		for _, s := range socks {
			before := accepted[s].Load()
			out, err := run(context.Background(), t, sb, "dial "+s, exe)
			if err == nil || !strings.Contains(out, "permission denied") || accepted[s].Load() != before {
				t.Errorf("allow-net %v: %s reached: %q, %v", allowNet, s, out, err)
			}
			if note := sb.Explain(out, 0); !strings.Contains(note, "the sandbox refused the Unix socket "+s) {
				t.Errorf("allow-net %v: the note of %q is %q", allowNet, out, note)
			}
		}
		if out, err := run(context.Background(), t, sb, "pair", exe); err != nil || out != "pair made\n" {
			t.Errorf("allow-net %v: socketpair: %q, %v", allowNet, out, err)
		}
	}
}

// TestProcessBound: a fork bomb stops at --max-procs, cleanly: the shell
// says it cannot fork, the program ends, and the note says which bound.
func TestProcessBound(t *testing.T) {
	for _, ns := range []bool{true, false} {
		t.Run(fmt.Sprintf("namespaces=%v", ns), func(t *testing.T) {
			sb := newTest(t, Policy{AllowNet: true, MaxProcs: 16}, ns)
			out, _ := run(context.Background(), t, sb, "", "/bin/sh", "-c", "for i in $(seq 40); do sleep 30 & done; echo ended")
			if !strings.Contains(strings.ToLower(out), "fork") {
				t.Fatalf("40 processes started under a bound of 16: %q", out)
			}
			note := sb.Explain(out, sb.RefusedForks())
			if !strings.Contains(note, "bound of 16 processes (") && !strings.Contains(note, "its bound of 16 processes") {
				t.Errorf("note %q", note)
			}
			if sb.cg != nil && !strings.Contains(note, "the sandbox refused") {
				t.Errorf("the cgroup counted no refusal: note %q", note)
			}
		})
	}
}

// TestMemoryBound: a process that allocates past --max-memory fails, and
// the note says which bound; one within it runs.
func TestMemoryBound(t *testing.T) {
	sb := newTest(t, Policy{AllowNet: true, MaxMemory: 128 << 20}, true)
	exe, _ := os.Executable()
	if out, err := run(context.Background(), t, sb, "alloc 16", exe); err != nil || out != "allocated 16 MiB\n" {
		t.Fatalf("16 MiB under a bound of 128: %q, %v", out, err)
	}
	out, err := run(context.Background(), t, sb, "alloc 512", exe)
	if err == nil || strings.Contains(out, "allocated") {
		t.Fatalf("512 MiB under a bound of 128: %q, %v", out, err)
	}
	if note := sb.Explain(out, 0); !strings.Contains(note, "bound of 128 MiB of memory per process") {
		t.Errorf("note %q of %q", note, out)
	}
}

// TestStaleCgroupsSwept: as root, the cgroup a replay killed with SIGKILL
// left behind (its ctx-replay process gone) is removed by the next
// sandbox that makes one; that of a replay still running is not.
func TestStaleCgroupsSwept(t *testing.T) {
	if !nprocExempt() {
		t.Skip("only root's sandbox makes cgroups")
	}
	base, _, err := pidsBase()
	if err != nil {
		t.Skip(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(base, fmt.Sprintf("ctx-replay-%d-test", gone.Process.Pid))
	live := filepath.Join(base, fmt.Sprintf("ctx-replay-%d-test", os.Getpid()))
	for _, d := range []string{stale, live} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Skip(err)
		}
	}
	t.Cleanup(func() { syscall.Rmdir(stale); syscall.Rmdir(live) })
	newTest(t, Policy{MaxProcs: 8, AllowNet: true}, false)
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the cgroup of a replay no longer running is still there: %s", stale)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the cgroup of a running replay was removed: %v", err)
	}
}
