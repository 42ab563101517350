package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter interprets a seccomp filter (the instructions it uses) on one
// system call of the audit architecture arch.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, arg0 uint64) uint32 {
	t.Helper()
	data := make([]byte, 64) // struct seccomp_data, little-endian
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	binary.LittleEndian.PutUint64(data[16:], arg0)
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K:
			holds := acc == in.K
			if in.Code&0xf0 == unix.BPF_JGE {
				holds = acc >= in.K
			}
			if holds {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x the filter should not use", pc, in.Code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

// TestSeccompFilter: of every architecture ctx has a filter for,
// socket(AF_UNIX) is refused with EACCES, io_uring_setup with ENOSYS,
// other sockets and system calls are allowed; on amd64 the i386 ABI gets
// the same rules and x32's system calls are refused.
func TestSeccompFilter(t *testing.T) {
	if a, ok := archFilter(); ok && (a.socket != unix.SYS_SOCKET || a.ioUringSetup != unix.SYS_IO_URING_SETUP) {
		t.Errorf("this architecture's numbers: socket %d, io_uring_setup %d; x/sys/unix says %d, %d", a.socket, a.ioUringSetup, unix.SYS_SOCKET, unix.SYS_IO_URING_SETUP)
	}
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	const allow = unix.SECCOMP_RET_ALLOW
	for _, goarch := range []string{"amd64", "arm64", "riscv64", "loong64"} {
		a := archFor(goarch)
		prog, err := seccompFilter(a)
		if err != nil {
			t.Fatalf("%s: %v", goarch, err)
		}
		for _, c := range []struct {
			arch, nr uint32
			arg0     uint64
			want     uint32
		}{
			{a.audit, a.socket, unix.AF_UNIX, errno(unix.EACCES)},
			{a.audit, a.socket, unix.AF_UNIX | 0xffffffff00000000, errno(unix.EACCES)},
			{a.audit, a.socket, unix.AF_INET, allow},
			{a.audit, a.socket, unix.AF_INET6, allow},
			{a.audit, a.ioUringSetup, 0, errno(unix.ENOSYS)},
			{a.audit, 0, unix.AF_UNIX, allow},
			{a.audit, 59, 0, allow},
			{0x12345678, 59, 0, unix.SECCOMP_RET_KILL_PROCESS},
		} {
			if got := runFilter(t, prog, c.arch, c.nr, c.arg0); got != c.want {
				t.Errorf("%s: arch %#x nr %d arg0 %#x: %#x, want %#x", goarch, c.arch, c.nr, c.arg0, got, c.want)
			}
		}
		if goarch != "amd64" {
			continue
		}
		for _, c := range []struct {
			arch, nr uint32
			arg0     uint64
			want     uint32
		}{
			{a.audit, 0x40000000 + 41, unix.AF_INET, errno(unix.ENOSYS)},
			{a.compat, a.compatSocket, unix.AF_UNIX, errno(unix.EACCES)},
			{a.compat, a.compatSocket, unix.AF_INET, allow},
			{a.compat, a.compatSocketcall, 1, errno(unix.ENOSYS)},
			{a.compat, a.compatIoUring, 0, errno(unix.ENOSYS)},
			{a.compat, 11, 0, allow},
		} {
			if got := runFilter(t, prog, c.arch, c.nr, c.arg0); got != c.want {
				t.Errorf("amd64: arch %#x nr %d arg0 %#x: %#x, want %#x", c.arch, c.nr, c.arg0, got, c.want)
			}
		}
	}
}
