package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runInit is the launcher's first stage, the init of the program's
// processes: it joins the sandbox's cgroup (root), starts the second
// stage (which applies the rules and executes the program), reaps every
// process that ends in its care, and, when the program ends or when it is
// asked to stop (SIGTERM: a step's timeout, an interrupted replay), ends
// everything the program started, then exits with the program's status
// (128+N for a signal N).
//
// In a PID namespace of its own it is the namespace's first process: the
// kernel kills every other process of the namespace when it exits, and
// kill(-1) reaches them all. Without one it is a child subreaper: the
// orphans of the program's processes (a setsid'd daemon among them)
// become its children, and it kills its children until none is left.
func runInit(r rules, argv []string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "ctx-replay: error: sandbox: %v\n", err)
		return 126
	}
	pidNS := os.Getpid() == 1
	if !pidNS {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fail(fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", err))
		}
	}
	if r.Cgroup != "" {
		if err := joinCgroup(r.Cgroup, r.Procs); err != nil {
			return fail(err)
		}
	}
	r.Init = false
	b, err := json.Marshal(r)
	if err != nil {
		return fail(err)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// The second stage dies with the thread that starts it (Pdeathsig):
	// this one, kept for the launcher's life.
	runtime.LockOSThread()
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	prog, err := os.StartProcess(self, append([]string{self, LaunchFlag + "=" + string(b), "--"}, argv...), &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return fail(err)
	}
	main, progress, empty := make(chan unix.WaitStatus, 1), make(chan struct{}, 1), make(chan struct{})
	go reapAll(prog.Pid, main, progress, empty)
	var status int
	select {
	case ws := <-main:
		status = exitStatus(ws)
	case s := <-stop:
		status = 128 + int(s.(syscall.Signal))
	}
	endAll(pidNS, progress, empty)
	return status
}

// reapAll reaps every child that ends: the status of the program (pid)
// goes to main, the end of any other is a token on progress. It closes
// empty when no child is left: then no process the program started is
// left either (each had an ancestor among this process's children, and
// became its child when that one ended).
func reapAll(pid int, main chan<- unix.WaitStatus, progress, empty chan<- struct{}) {
	for {
		var ws unix.WaitStatus
		p, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			close(empty)
			return
		case p == pid:
			main <- ws
		default:
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	}
}

// exitStatus is a shell's $? of a wait status.
func exitStatus(ws unix.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// endAll kills every process left and returns when all are reaped.
func endAll(pidNS bool, progress, empty <-chan struct{}) {
	for {
		if pidNS {
			unix.Kill(-1, unix.SIGKILL) // every process of the namespace but this one
		} else {
			for _, pid := range children(os.Getpid()) {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
		select {
		case <-empty:
			return
		case <-progress:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// children are the processes whose parent is pid, from /proc (a zombie
// among them until it is reaped, so its number is never another's).
func children(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == pid {
			if c, err := strconv.Atoi(strings.Fields(s)[0]); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
