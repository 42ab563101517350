package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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

// Prepare sets what cmd (already started through Argv) needs from its
// parent: a user and network namespace of its own when the network is
// closed and such namespaces can be made. The first call finds out
// whether they can, by starting the launcher once.
func (s *Sandbox) Prepare(cmd *exec.Cmd) {
	if s.policy.AllowNet || !s.probe() {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	namespaces(cmd.SysProcAttr)
}

// probe says whether a user and network namespace can be made here, by
// starting the launcher in one, once.
func (s *Sandbox) probe() bool {
	s.once.Do(func() {
		probe := exec.Command(s.launcher, LaunchFlag+"=probe")
		probe.SysProcAttr = &syscall.SysProcAttr{}
		namespaces(probe.SysProcAttr)
		s.nsErr = probe.Run()
		s.netns = s.nsErr == nil
	})
	return s.netns
}

// namespaces asks for a new user namespace, in which the caller keeps its
// own user and group ids, and a new network namespace, which has only a
// loopback interface that is down.
func namespaces(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// Launch is the launcher mode (args is os.Args[1:]): it applies the rules
// to itself and executes the program, or returns 126 (the shell's "cannot
// execute") after saying why on stderr.
func Launch(args []string) int {
	if len(args) == 1 && args[0] == LaunchFlag+"=probe" {
		return 0
	}
	r, argv, err := parseLaunch(args)
	if err == nil {
		err = r.apply(argv)
	}
	fmt.Fprintf(os.Stderr, "ctx-replay: error: sandbox: %v\n", err)
	return 126
}

// apply restricts this thread with Landlock and executes argv; it returns
// only on failure. The restriction holds for the thread and everything it
// executes, which is why it runs in the launcher and not in ctx-replay.
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
		// The restriction is per thread: this one applies it and executes
		// the program, never running anything else.
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
		}
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("landlock_restrict_self: %v", err)
		}
	}
	err = syscall.Exec(argv[0], argv, os.Environ())
	return fmt.Errorf("%s: %v", argv[0], err)
}
