package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter closes what Landlock before ABI 9 leaves open: the
// host's Unix sockets (a docker, D-Bus or X11 socket, a daemon's under
// /run or /tmp), which a program reaches by connect(2) to the socket
// file whatever Landlock allows. A filter sees a system call's
// arguments, never the memory they point to, so it cannot tell a
// pathname address from an abstract one or from a socket inside the
// workspace: it refuses socket(2) of the AF_UNIX family (EACCES), which
// every such connection needs. socketpair(2), which makes two connected
// sockets and reaches nothing, stays open. io_uring_setup(2) is refused
// (ENOSYS: programs fall back to plain system calls), since io_uring
// makes sockets without socket(2). System calls of another ABI than the
// launcher's would dodge the filter: the i386 ABI on amd64 gets the same
// rules (its socketcall(2) multiplexer, whose arguments are in memory,
// refused whole), x32's system calls are refused (ENOSYS), and a program
// of any other ABI is killed (SIGSYS).
//
// The filter is a few instructions, written here rather than through a
// library: x/sys/unix has the types, and a library's generality (rule
// tables, argument comparisons over 64 bits) would be larger than it.

// seccompArch is this architecture's filter data: its audit architecture
// and the numbers of the system calls the filter looks at.
type seccompArch struct {
	audit                                         uint32
	socket, ioUringSetup                          uint32
	compat                                        uint32 // the audit architecture of a second ABI (i386 on amd64), 0: none
	compatSocket, compatSocketcall, compatIoUring uint32
	x32                                           bool // amd64: system call numbers with bit 30 are x32's
}

// archFilter is the filter data of this build's architecture, where ctx
// has it (architectures without the socketcall(2) multiplexer).
func archFilter() (seccompArch, bool) {
	a := archFor(runtime.GOARCH)
	return a, a.audit != 0
}

// archFor is the filter data of the architecture goarch (its audit
// architecture 0 where ctx has none).
func archFor(goarch string) seccompArch {
	switch goarch {
	case "amd64":
		return seccompArch{audit: unix.AUDIT_ARCH_X86_64, socket: 41, ioUringSetup: 425,
			compat: unix.AUDIT_ARCH_I386, compatSocket: 359, compatSocketcall: 102, compatIoUring: 425, x32: true}
	case "arm64":
		return seccompArch{audit: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUringSetup: 425}
	case "riscv64":
		return seccompArch{audit: unix.AUDIT_ARCH_RISCV64, socket: 198, ioUringSetup: 425}
	case "loong64":
		return seccompArch{audit: unix.AUDIT_ARCH_LOONGARCH64, socket: 198, ioUringSetup: 425}
	}
	return seccompArch{}
}

// seccompHere says whether ctx has a filter for this architecture.
func seccompHere() bool {
	_, ok := archFilter()
	return ok
}

// bpf assembles a classic BPF program whose jumps name labels, which
// must come later (BPF jumps only forward).
type bpf struct {
	insns  []unix.SockFilter
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	jt, jf string
}

func (b *bpf) label(name string) { b.labels[name] = len(b.insns) }

func (b *bpf) stmt(code uint16, k uint32) {
	b.insns = append(b.insns, unix.SockFilter{Code: code, K: k})
}

// jump compares the accumulator with k (code: BPF_JEQ, BPF_JGE) and goes
// to jt when it holds, else to jf ("" is the next instruction).
func (b *bpf) jump(code uint16, k uint32, jt, jf string) {
	b.fixups = append(b.fixups, fixup{len(b.insns), jt, jf})
	b.stmt(unix.BPF_JMP|code|unix.BPF_K, k)
}

func (b *bpf) assemble() ([]unix.SockFilter, error) {
	for _, f := range b.fixups {
		for _, t := range []struct {
			name string
			off  *uint8
		}{{f.jt, &b.insns[f.at].Jt}, {f.jf, &b.insns[f.at].Jf}} {
			if t.name == "" {
				continue
			}
			to, ok := b.labels[t.name]
			d := to - f.at - 1
			if !ok || d < 0 || d > 255 {
				return nil, fmt.Errorf("seccomp filter: bad jump to %q", t.name)
			}
			*t.off = uint8(d)
		}
	}
	return b.insns, nil
}

// seccompFilter is the filter of arch.
func seccompFilter(a seccompArch) ([]unix.SockFilter, error) {
	const (
		nrOff   = 0  // seccomp_data.nr
		archOff = 4  // seccomp_data.arch
		arg0Off = 16 // seccomp_data.args[0], its low half on a little-endian machine
		ld      = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		ret     = unix.BPF_RET | unix.BPF_K
	)
	b := &bpf{labels: map[string]int{}}
	b.stmt(ld, archOff)
	b.jump(unix.BPF_JEQ, a.audit, "", "foreign")
	b.stmt(ld, nrOff)
	if a.x32 {
		b.jump(unix.BPF_JGE, 0x40000000, "enosys", "")
	}
	b.jump(unix.BPF_JEQ, a.socket, "socket", "")
	b.jump(unix.BPF_JEQ, a.ioUringSetup, "enosys", "allow")
	b.label("foreign")
	if a.compat != 0 {
		b.jump(unix.BPF_JEQ, a.compat, "", "kill")
		b.stmt(ld, nrOff)
		b.jump(unix.BPF_JEQ, a.compatSocket, "socket", "")
		b.jump(unix.BPF_JEQ, a.compatSocketcall, "enosys", "")
		b.jump(unix.BPF_JEQ, a.compatIoUring, "enosys", "allow")
	}
	b.label("kill")
	b.stmt(ret, unix.SECCOMP_RET_KILL_PROCESS)
	b.label("socket")
	b.stmt(ld, arg0Off)
	b.jump(unix.BPF_JEQ, unix.AF_UNIX, "", "allow")
	b.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
	b.label("enosys")
	b.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	b.label("allow")
	b.stmt(ret, unix.SECCOMP_RET_ALLOW)
	return b.assemble()
}

// installSeccomp applies the filter to this thread (no_new_privs must be
// set), which keeps it across execve and hands it to every child.
func installSeccomp() error {
	a, ok := archFilter()
	if !ok {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	insns, err := seccompFilter(a)
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(insns)), Filter: &insns[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECCOMP): %v", err)
	}
	return nil
}
