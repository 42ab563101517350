package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pidsCgroup is a cgroup of the pids controller made for a sandbox's
// programs when ctx runs as root, whom RLIMIT_NPROC does not bound: the
// launcher joins it (in cgroup v2, it is started in it), its pids.max
// bounds the processes, and whatever is left in it when a program ends
// is killed.
type pidsCgroup struct {
	dir     string
	v2      bool
	refusal int // pids.events' "max" at the last look
	fdv2    int // cgroup v2: the directory, to start the launcher in it (-1: none)
}

// launcherSlack is what pids.max allows beyond the program's processes
// until the launcher has counted its own threads (it then sets pids.max
// exactly).
const launcherSlack = 16

// newPidsCgroup makes the cgroup, beside or below this process's own.
func newPidsCgroup(procs int) (*pidsCgroup, error) {
	base, v2, err := pidsBase()
	if err != nil {
		return nil, err
	}
	sweepCgroups(base)
	dir, err := os.MkdirTemp(base, fmt.Sprintf("ctx-replay-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("cannot make a cgroup in %s: %v", base, err)
	}
	c := &pidsCgroup{dir: dir, v2: v2, fdv2: -1}
	if err := c.setMax(procs + launcherSlack); err != nil {
		c.remove()
		return nil, fmt.Errorf("cannot bound the processes of the cgroup %s: %v", dir, err)
	}
	if v2 {
		if c.fdv2, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			c.remove()
			return nil, fmt.Errorf("cannot open the cgroup %s: %v", dir, err)
		}
	}
	return c, nil
}

// sweepCgroups removes the cgroups in base that replays killed before
// they could remove them left (ctx-replay-PID-*, PID no longer running):
// an empty cgroup is only litter, and one that holds a process cannot be
// removed.
func sweepCgroups(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "ctx-replay-*-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(d), "ctx-replay-"), "-", 2)[0])
		if err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			unix.Rmdir(d)
		}
	}
}

// pidsBase is the directory a cgroup of the pids controller can be made
// in: this process's own cgroup in a cgroup v1 hierarchy of the
// controller; in the cgroup v2 hierarchy, the closest ancestor of this
// process's cgroup that hands the controller to its children (a cgroup
// v2 that holds processes cannot).
func pidsBase() (string, bool, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return "", false, err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, m := range mounts {
			switch {
			case !m.v2 && parts[1] != "" && hasWord(parts[1], ",", "pids") && m.pids:
				return m.dir(parts[2]), false, nil
			case m.v2 && parts[0] == "0" && parts[1] == "":
				for d := m.dir(parts[2]); strings.HasPrefix(d+"/", m.point+"/"); d = filepath.Dir(d) {
					if b, err := os.ReadFile(filepath.Join(d, "cgroup.subtree_control")); err == nil && hasWord(strings.TrimSpace(string(b)), " ", "pids") {
						return d, true, nil
					}
					if d == m.point {
						break
					}
				}
			}
		}
	}
	return "", false, errors.New("no cgroup of the pids controller hands it to new cgroups here")
}

// cgroupMount is a mounted cgroup hierarchy.
type cgroupMount struct {
	point, root string // where it is mounted, and which of its cgroups is there
	v2, pids    bool   // cgroup v2; a v1 hierarchy of the pids controller
}

// dir is the directory of the cgroup path (as /proc/self/cgroup names it).
func (m cgroupMount) dir(path string) string {
	rel := strings.TrimPrefix(path, m.root)
	return filepath.Join(m.point, rel)
}

// cgroupMounts lists the cgroup hierarchies of /proc/self/mountinfo.
func cgroupMounts() ([]cgroupMount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []cgroupMount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
		before, after, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(tail) < 3 || !strings.HasPrefix(fields[4], "/") {
			continue
		}
		switch tail[0] {
		case "cgroup2":
			out = append(out, cgroupMount{point: fields[4], root: fields[3], v2: true})
		case "cgroup":
			out = append(out, cgroupMount{point: fields[4], root: fields[3], pids: hasWord(tail[2], ",", "pids")})
		}
	}
	return out, sc.Err()
}

// hasWord says whether the list s, words separated by sep, holds w.
func hasWord(s, sep, w string) bool {
	for _, x := range strings.Split(s, sep) {
		if x == w {
			return true
		}
	}
	return false
}

// setMax sets pids.max.
func (c *pidsCgroup) setMax(n int) error {
	return os.WriteFile(filepath.Join(c.dir, "pids.max"), []byte(strconv.Itoa(n)), 0)
}

// refused is how many times a process could not start for pids.max since
// the last call.
func (c *pidsCgroup) refused() int {
	b, err := os.ReadFile(filepath.Join(c.dir, "pids.events"))
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "max "); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	d := n - c.refusal
	c.refusal = n
	return max(d, 0)
}

// kill ends every process in the cgroup and returns when it is empty, or
// after a second of trying.
func (c *pidsCgroup) kill() {
	if c.v2 {
		os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) // Linux 5.14
	}
	for range 100 {
		b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// remove kills what is left and removes the cgroup.
func (c *pidsCgroup) remove() {
	c.kill()
	if c.fdv2 >= 0 {
		unix.Close(c.fdv2)
		c.fdv2 = -1
	}
	for range 50 {
		if err := unix.Rmdir(c.dir); err == nil || errors.Is(err, unix.ENOENT) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// joinCgroup is the launcher's first stage joining the cgroup dir (in
// cgroup v2 it was started there), then bounding the program to procs
// processes besides its own threads. Where it cannot set pids.max, the
// value the sandbox set stands (procs and launcherSlack).
func joinCgroup(dir string, procs int) error {
	if !inCgroup(filepath.Base(dir)) {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("0"), 0); err != nil {
			return fmt.Errorf("cannot join the cgroup %s: %v", dir, err)
		}
	}
	own, _ := statusField("/proc/self/status", "Threads:")
	(&pidsCgroup{dir: dir}).setMax(procs + max(own, 1))
	return nil
}

// inCgroup says whether this process is in a cgroup named name.
func inCgroup(name string) bool {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(line, "/"+name) {
			return true
		}
	}
	return false
}
