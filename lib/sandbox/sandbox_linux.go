package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI is the kernel's Landlock ABI, or why there is none.
func landlockABI() (int, error) {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, errors.New("this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)")
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, errors.New("Landlock is turned off on this kernel (add landlock to the lsm= boot parameter)")
	case err != nil:
		return 0, fmt.Errorf("cannot ask the kernel for Landlock: %v", err)
	case abi < 1:
		return 0, errors.New("this kernel has no Landlock")
	}
	return abi, nil
}

// configs are go-landlock's full configurations per ABI, from 1.
func configs() []landlock.Config {
	return []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
		landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
}

// Prepare sets what cmd (made from Argv's command line) needs from its
// parent: a user and PID namespace of its own, and a network namespace
// when the network is closed, where such namespaces can be made (the
// first call finds out, by starting the launcher once); the launcher dies
// with the thread that starts it; cancelling cmd's context asks the
// launcher to end the program and all it started (SIGTERM; cmd.WaitDelay
// later, SIGKILL).
func (s *Sandbox) Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	if s.probe() {
		s.namespaces(cmd.SysProcAttr)
	}
	if s.cg != nil && s.cg.fdv2 >= 0 {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, s.cg.fdv2
	}
}

// Finish ends what is left of a program in the sandbox's cgroup, when it
// has one (root): even a launcher killed before it could end them leaves
// nothing running.
func (s *Sandbox) Finish() {
	if s.cg != nil {
		s.cg.kill()
	}
}

// RefusedForks is how many processes the sandbox's cgroup did not let
// start for the bound on processes since the last call (0 without one:
// RLIMIT_NPROC keeps no count).
func (s *Sandbox) RefusedForks() int {
	if s.cg == nil {
		return 0
	}
	return s.cg.refused()
}

// probe says whether the namespaces can be made here, by starting the
// launcher in them, once.
func (s *Sandbox) probe() bool {
	s.once.Do(func() {
		probe := exec.Command(s.launcher, LaunchFlag+"=probe")
		probe.SysProcAttr = &syscall.SysProcAttr{}
		s.namespaces(probe.SysProcAttr)
		out, err := probe.CombinedOutput()
		if err != nil && len(bytes.TrimSpace(out)) > 0 {
			err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
		}
		s.nsErr = err
		s.netns = err == nil
	})
	return s.netns
}

// namespaces asks for a new user namespace, in which the caller keeps its
// own user and group ids, a new PID namespace, whose first process (the
// launcher) takes every other with it when it ends, and, when the network
// is closed, a new network namespace, which has only a loopback interface
// that is down.
func (s *Sandbox) namespaces(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
	if !s.policy.AllowNet {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// Launch is the launcher mode (args is os.Args[1:]). The first stage is
// the init of the program's processes (runInit); the second applies the
// rules to itself and executes the program. Either returns 126 (the
// shell's "cannot execute") after saying why on stderr.
func Launch(args []string) int {
	if len(args) == 1 && args[0] == LaunchFlag+"=probe" {
		return 0
	}
	r, argv, err := parseLaunch(args)
	if err == nil {
		if r.Init {
			return runInit(r, argv)
		}
		err = r.apply(argv)
	}
	fmt.Fprintf(os.Stderr, "ctx-replay: error: sandbox: %v\n", err)
	return 126
}

// apply restricts this thread (resource limits, Landlock, the seccomp
// filter) and executes argv; it returns only on failure. The restriction
// holds for the thread and everything it executes, which is why it runs
// in the launcher and not in ctx-replay.
func (r rules) apply(argv []string) error {
	cs := configs()
	if r.ABI < 1 || r.ABI > len(cs) {
		return fmt.Errorf("landlock ABI %d is not one this build knows", r.ABI)
	}
	cfg := cs[r.ABI-1]
	if !r.NoNet {
		cfg.HandledAccessNet = 0
	}
	rs := []landlock.Rule{
		landlock.RWDirs(r.RW...).WithRefer(),
		landlock.RODirs(r.RO...).IgnoreIfMissing(),
		landlock.ROFiles(r.ROFiles...).IgnoreIfMissing(),
		landlock.RWFiles(r.RWFiles...).IgnoreIfMissing(),
	}
	if r.ABI < 2 {
		rs[0] = landlock.RWDirs(r.RW...) // no refer right before ABI 2
	}
	fd, flags, err := cfg.NewRulesetFD(rs...)
	if err != nil {
		return fmt.Errorf("landlock: %v", err)
	}
	if fd >= 0 {
		defer unix.Close(fd)
	}
	// The restriction is per thread: this one applies it and executes the
	// program, never running anything else.
	runtime.LockOSThread()
	if err := r.limit(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if r.Seccomp {
		if err := installSeccomp(); err != nil {
			return err
		}
	}
	if fd >= 0 {
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("landlock_restrict_self: %v", err)
		}
	}
	err = syscall.Exec(argv[0], argv, os.Environ())
	return fmt.Errorf("%s: %v", argv[0], err)
}

// limit sets the resource limits of the program: its data, and, where no
// cgroup bounds them, its processes. RLIMIT_NPROC counts every task of
// the user in the user namespace: in the launcher's own, the launcher's
// tasks; without one, all the user's on the machine. Those are added, so
// the program may start Procs more.
func (r rules) limit() error {
	if r.Data > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: uint64(r.Data), Max: uint64(r.Data)}); err != nil {
			return fmt.Errorf("setrlimit(RLIMIT_DATA, %d): %v", r.Data, err)
		}
	}
	if r.Procs == 0 || r.Cgroup != "" {
		return nil
	}
	have := 0
	if r.UserNS {
		have = launcherTasks() - 1
	} else {
		have = userTasks(os.Getuid()) - 1
	}
	n := uint64(r.Procs + max(have, 0))
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_NPROC, %d): %v", n, err)
	}
	return nil
}

// launcherTasks is the number of threads of this process and of its
// parent (the launcher's two stages), as /proc, the host's, names them.
func launcherTasks() int {
	self, _ := statusField("/proc/self/status", "Threads:")
	ppid, ok := statusField("/proc/self/status", "PPid:")
	if !ok {
		return self
	}
	parent, _ := statusField(fmt.Sprintf("/proc/%d/status", ppid), "Threads:")
	return self + parent
}

// userTasks is the number of threads that processes of uid run on the
// machine (those /proc shows).
func userTasks(uid int) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/status")
	total := 0
	for _, f := range dirs {
		u, ok := statusField(f, "Uid:")
		if !ok || u != uid {
			continue
		}
		n, _ := statusField(f, "Threads:")
		total += n
	}
	return total
}

// statusField is the first number of the line of a /proc status file
// that starts with key.
func statusField(file, key string) (int, bool) {
	f, err := os.Open(file)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return 0, false
			}
			n, err := strconv.Atoi(fields[0])
			return n, err == nil
		}
	}
	return 0, false
}

// nprocExempt says whether RLIMIT_NPROC does not bind this process's
// children: the kernel never applies it to the root user of the initial
// user namespace.
func nprocExempt() bool {
	if os.Getuid() != 0 {
		return false
	}
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) >= 3 && f[0] == "0" && f[1] == "0"
}
