// Package sandbox confines the programs a replay starts (shell steps,
// ctx-tool-NAME programs, config tools): they read and write only the
// workspace, read the system directories programs need, see an
// environment cut down to an allow-list, reach no network unless allowed
// and none of the host's Unix sockets, end with the program that started
// them, and stay within a number of processes and an amount of memory.
// On Linux it uses Landlock (and, before Landlock ABI 9, a seccomp filter
// for Unix sockets), applied by a launcher (the calling program itself,
// started again in its hidden launcher mode) just before it executes the
// step's program; a user, PID and network namespace; and resource limits
// (a cgroup of the pids controller for root, whom RLIMIT_NPROC does not
// bound). It needs no root and no setuid helper.
//
// It must never widen what a program may do beyond its Policy, and never
// run a program unconfined when asked for a sandbox: where none can be
// had, New says why and the caller decides.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// LaunchFlag is the first argument of the launcher mode: the program
// started with "LaunchFlag=RULES -- PROGRAM ARGS..." applies RULES to
// itself and executes PROGRAM. A flag, so that no pack name can be
// mistaken for it.
const LaunchFlag = "--sandbox-exec"

// Policy is what a sandboxed program may do.
type Policy struct {
	// Workspace is the one directory programs may change (and read and
	// execute in).
	Workspace string
	// ReadOnly are directories programs may read beside the system ones
	// (the objects of the clone a --repo workspace shares).
	ReadOnly []string
	// AllowNet leaves the network open.
	AllowNet bool
	// Env names variables of the caller's environment passed besides the
	// allow-list (PATH, LANG, LC_*, TERM, TZ).
	Env []string
	// MaxProcs bounds the processes and threads a program and everything
	// it starts may run at once (0: no bound).
	MaxProcs int
	// MaxMemory bounds the memory each process may allocate, in bytes
	// (its data: heap and private writable mappings; 0: no bound).
	MaxMemory int64
}

// SystemDirs are the directories programs may read and execute from:
// where programs, their libraries and their configuration live. A
// missing one is skipped.
func SystemDirs() []string {
	return []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix/store"}
}

// pathDirs are the absolute directories of PATH: where the user keeps the
// programs steps run (go, npm, ~/.local/bin), readable and executable in
// the sandbox as the system directories are. A relative entry (".") is
// left out: it would name the workspace or nothing; so is an entry that
// holds the user's home directory ("/", "/home", $HOME itself), which
// would open all of it.
func pathDirs(path, home string) []string {
	var dirs []string
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if home != "" && (d == home || d == "/" || strings.HasPrefix(home, d+"/")) {
			continue
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// managerTrees are the trees of version managers that PATH reaches into
// the home directory for: a shim directory's manager (~/.pyenv for
// ~/.pyenv/shims: pyenv, rbenv, asdf, mise, nodenv put a script there that
// runs the manager, which runs the real program from its own tree), and
// the version a bin directory belongs to (~/.nvm/versions/node for
// ~/.nvm/versions/node/v20/bin, ~/.pyenv/versions/3.12 for its bin: the
// program's libraries lie beside its bin). They are opened read-only, as
// PATH's directories are; the rest of the home directory stays closed. A
// tree that would hold the home directory or a place where credentials
// are kept (~/.ssh, ~/.config, ~/.local, ...) is never opened.
func managerTrees(path, home string) []string {
	if home == "" {
		return nil
	}
	var trees []string
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(path) {
		d = filepath.Clean(d)
		rel, ok := strings.CutPrefix(d, home+"/")
		if !filepath.IsAbs(d) || !ok {
			continue
		}
		elems := strings.Split(rel, "/")
		tree := ""
		if len(elems) >= 2 && elems[len(elems)-1] == "shims" {
			tree = filepath.Dir(d)
		} else {
			for i := 1; i+1 < len(elems); i++ {
				if elems[i] == "versions" || elems[i] == "installs" {
					tree = filepath.Join(home, filepath.Join(elems[:i+2]...))
					break
				}
			}
		}
		if tree == "" || seen[tree] || holdsSecrets(tree, home) {
			continue
		}
		seen[tree] = true
		trees = append(trees, tree)
	}
	return trees
}

// holdsSecrets says whether the directory dir is, or holds, a place of
// the home directory where credentials are kept.
func holdsSecrets(dir, home string) bool {
	for _, s := range []string{".ssh", ".gnupg", ".aws", ".azure", ".config", ".docker", ".kube", ".local/share/keyrings",
		".password-store", ".netrc", ".git-credentials", ".pki", ".mozilla"} {
		p := filepath.Join(home, s)
		if dir == p || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return dir == home
}

// versionFiles are files of the home directory that version managers read
// to choose a version (asdf's and mise's ~/.tool-versions): copied into
// the sandbox's home when a manager's tree is opened, so a shim finds the
// version it would find outside.
func versionFiles() []string { return []string{".tool-versions"} }

// userHome is the user's home directory, clean, or "".
func userHome() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	return filepath.Clean(h)
}

// readFiles are single files of /dev, /proc and /sys that common programs
// read (random numbers, the number of processors, the page size of huge
// pages), and nothing that describes another process.
func readFiles() []string {
	return []string{"/dev/urandom", "/dev/random", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/filesystems",
		"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible"}
}

// writeFiles are the device files every program may write.
func writeFiles() []string { return []string{"/dev/null", "/dev/zero", "/dev/full"} }

// rules are what the launcher applies: every path as an absolute name.
type rules struct {
	RW      []string `json:"rw"`       // directories: read, write, execute
	RO      []string `json:"ro"`       // directories: read, execute
	ROFiles []string `json:"ro_files"` // files: read, execute
	RWFiles []string `json:"rw_files"` // files: read, write
	NoNet   bool     `json:"no_net"`   // no TCP bind or connect (Landlock ABI 4+)
	ABI     int      `json:"abi"`      // the Landlock ABI to apply
	// Init asks for the launcher's first stage: the init of the program's
	// processes, which starts the second stage (Init false: the rules
	// applied, the program executed) and ends what is left when it ends.
	Init bool `json:"init"`
	// Seccomp refuses Unix sockets (socket(AF_UNIX)) and io_uring, which
	// Landlock before ABI 9 does not restrict.
	Seccomp bool `json:"seccomp"`
	// Procs bounds the program's processes and threads (RLIMIT_NPROC,
	// counted in UserNS when the launcher runs in a user namespace of its
	// own, else among all the user's); 0: none.
	Procs  int  `json:"procs"`
	UserNS bool `json:"userns"`
	// Data bounds each process's data (RLIMIT_DATA), in bytes; 0: none.
	Data int64 `json:"data"`
	// Cgroup is a cgroup directory of the pids controller the first stage
	// joins (root, whom RLIMIT_NPROC does not bound); Procs is then its
	// pids.max, not a resource limit.
	Cgroup string `json:"cgroup"`
}

// Sandbox starts programs under a Policy.
type Sandbox struct {
	launcher string
	policy   Policy
	abi      int
	seccomp  bool   // a seccomp filter closes Unix sockets (Landlock before ABI 9)
	scratch  string // HOME and TMPDIR are its home and tmp
	home     string // the user's home directory ("" when unknown)
	trees    []string
	cg       *pidsCgroup // root's process bound (nil: none, or RLIMIT_NPROC)
	missing  error       // a bound asked for that cannot be had here

	once  sync.Once
	netns bool // the user, PID (and network) namespaces could be made
	nsErr error
}

// New is a sandbox for policy whose launcher is the program at path
// launcher (which must call Launch when its first argument starts with
// LaunchFlag). It fails, saying why and which flag does without, where a
// protection cannot be had: another OS, a kernel without Landlock, the
// host's Unix sockets that cannot be closed, the network (unless
// AllowNet). A bound on processes that cannot be had is Missing: the
// caller decides. Close removes its scratch directory.
func New(launcher string, policy Policy) (*Sandbox, error) {
	abi, err := landlockABI()
	if err != nil {
		return nil, err
	}
	if policy.Workspace == "" {
		return nil, errors.New("sandbox: no workspace")
	}
	if policy.MaxProcs < 0 || policy.MaxMemory < 0 {
		return nil, errors.New("sandbox: a negative limit")
	}
	ws, err := filepath.EvalSymlinks(policy.Workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace %s: %w", policy.Workspace, err)
	}
	policy.Workspace = ws
	// Landlock closes the host's Unix sockets from ABI 9; before, a
	// seccomp filter does, where ctx has one for this architecture.
	seccomp := abi < 9
	if seccomp && !seccompHere() {
		return nil, fmt.Errorf("cannot close the host's Unix sockets: Landlock ABI %d does not restrict them (ABI 9 does) and ctx has no seccomp filter for %s", abi, runtime.GOARCH)
	}
	scratch, err := os.MkdirTemp("", "ctx-replay-home-*")
	if err != nil {
		return nil, fmt.Errorf("sandbox: cannot create HOME and TMPDIR: %w", err)
	}
	if scratch, err = filepath.EvalSymlinks(scratch); err == nil {
		err = errors.Join(os.Mkdir(filepath.Join(scratch, "home"), 0o700), os.Mkdir(filepath.Join(scratch, "tmp"), 0o700))
	}
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("sandbox: cannot create HOME and TMPDIR: %w", err)
	}
	s := &Sandbox{launcher: launcher, policy: policy, abi: abi, seccomp: seccomp, scratch: scratch, home: userHome()}
	s.trees = managerTrees(os.Getenv("PATH"), s.home)
	if !policy.AllowNet && abi < 4 && !s.probe() {
		// Landlock closes TCP from ABI 4; before, only a namespace can.
		s.Close()
		return nil, fmt.Errorf("cannot close the network: Landlock ABI %d has no network rules and no user and network namespace can be made here (%v); --allow-net replays with the network open", abi, s.nsErr)
	}
	if policy.MaxProcs > 0 && nprocExempt() {
		if s.cg, err = newPidsCgroup(policy.MaxProcs); err != nil {
			s.missing = fmt.Errorf("cannot bound the processes of a step: RLIMIT_NPROC does not bind root and no cgroup of the pids controller can be made here (%v); --max-procs 0 replays without a bound", err)
			s.policy.MaxProcs = 0
		}
	}
	s.linkTrees()
	return s, nil
}

// linkTrees makes the managers' trees appear in the sandbox's home where
// they are in the user's (a symlink each: Landlock checks the tree it
// leads to, which is open read-only), and copies the version files the
// managers read from the home directory: a manager that finds its tree
// or the global version from $HOME (asdf, mise) works as it does outside.
// What cannot be made is left out: the shim then says what it misses.
func (s *Sandbox) linkTrees() {
	if len(s.trees) == 0 {
		return
	}
	home := s.Home()
	for _, t := range s.trees {
		rel, _ := filepath.Rel(s.home, t)
		link := filepath.Join(home, rel)
		if os.MkdirAll(filepath.Dir(link), 0o700) == nil {
			os.Symlink(t, link)
		}
	}
	for _, name := range versionFiles() {
		if b, err := os.ReadFile(filepath.Join(s.home, name)); err == nil && len(b) <= 64<<10 {
			os.WriteFile(filepath.Join(home, name), b, 0o600)
		}
	}
}

// Missing says which protection the policy asks for cannot be had here,
// and which flag does without it (root where no cgroup of the pids
// controller can be made: no bound on processes), or nil.
func (s *Sandbox) Missing() error { return s.missing }

// LandlockABI is the kernel's Landlock ABI version, or why there is none.
func LandlockABI() (int, error) { return landlockABI() }

// Confinement names what confines sandboxed programs on this kernel, as
// the report's sandbox begins: "landlock ABI 7 and seccomp" (the seccomp
// filter closes Unix sockets before ABI 9), or why there is none.
func Confinement() (string, error) {
	abi, err := landlockABI()
	if err != nil {
		return "", err
	}
	return confinement(abi), nil
}

func confinement(abi int) string {
	if abi < 9 {
		return fmt.Sprintf("landlock ABI %d and seccomp", abi)
	}
	return fmt.Sprintf("landlock ABI %d", abi)
}

// Close removes the sandbox's HOME and TMPDIR, and its cgroup.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	if s.cg != nil {
		s.cg.remove()
	}
	return os.RemoveAll(s.scratch)
}

// Name says what confines the programs, for the replay's report:
// "landlock ABI 7 and seccomp, no network". It is final once a program
// has started.
func (s *Sandbox) Name() string {
	name := confinement(s.abi)
	switch {
	case s.policy.AllowNet:
		name += ", network allowed"
	case s.netns:
		name += ", no network"
	default:
		name += ", no TCP (no network namespace here: UDP is open)"
	}
	if s.missing != nil {
		name += ", no bound on processes (root, and no pids cgroup here)"
	}
	return name
}

// Trees are the version managers' trees opened beside PATH (managerTrees).
func (s *Sandbox) Trees() []string { return s.trees }

// Home and Tmp are the HOME and TMPDIR of sandboxed programs.
func (s *Sandbox) Home() string { return filepath.Join(s.scratch, "home") }

// Tmp is the TMPDIR of sandboxed programs.
func (s *Sandbox) Tmp() string { return filepath.Join(s.scratch, "tmp") }

// Env is the environment of a sandboxed program: of environ, only the
// allow-list (PATH, LANG, LC_*, TERM, TZ) and the names of Policy.Env,
// then HOME and TMPDIR, then extra ("NAME=value" each, set by the caller
// and passed whatever their name).
func (s *Sandbox) Env(environ []string, extra ...string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && s.passes(name) {
			out = append(out, kv)
		}
	}
	out = append(out, "HOME="+s.Home(), "TMPDIR="+s.Tmp())
	return append(out, extra...)
}

// passes says whether the variable name reaches sandboxed programs.
func (s *Sandbox) passes(name string) bool {
	switch {
	case name == "PATH", name == "LANG", name == "TERM", name == "TZ", strings.HasPrefix(name, "LC_"):
		return true
	}
	for _, n := range s.policy.Env {
		if n == name {
			return true
		}
	}
	return false
}

// openDirs are the directories sandboxed programs may use: rw those they
// may change, ro those they may read and execute. A directory of PATH or a
// manager's tree this user cannot reach (root's ~/go/bin in the PATH of
// another user) is left out: the program could not use it either, and
// Landlock cannot open it.
func (s *Sandbox) openDirs() (rw, ro []string) {
	ro = SystemDirs()
	for _, d := range append(pathDirs(os.Getenv("PATH"), s.home), s.trees...) {
		if _, err := os.Stat(d); err == nil {
			ro = append(ro, d)
		}
	}
	return []string{s.policy.Workspace, s.scratch}, append(ro, s.policy.ReadOnly...)
}

// Argv returns the command line that runs argv under the sandbox: the
// launcher with the rules, then argv, whose first word must be an
// absolute path. readable are files besides the system directories the
// program needs to read and execute (the program itself when it lies
// elsewhere).
func (s *Sandbox) Argv(argv []string, readable ...string) ([]string, error) {
	if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		return nil, fmt.Errorf("sandbox: program %q is not an absolute path", strings.Join(argv[:min(1, len(argv))], ""))
	}
	rw, ro := s.openDirs()
	r := rules{
		RW:      rw,
		RO:      ro,
		ROFiles: append(readFiles(), readable...),
		RWFiles: writeFiles(),
		NoNet:   !s.policy.AllowNet,
		ABI:     s.abi,
		Init:    true,
		Seccomp: s.seccomp,
		Procs:   s.policy.MaxProcs,
		UserNS:  s.probe(),
		Data:    s.policy.MaxMemory,
	}
	if s.cg != nil {
		r.Cgroup = s.cg.dir
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append([]string{s.launcher, LaunchFlag + "=" + string(b), "--"}, argv...), nil
}

// IsLaunch says whether args (os.Args) ask for the launcher mode.
func IsLaunch(args []string) bool {
	return len(args) > 1 && strings.HasPrefix(args[1], LaunchFlag+"=")
}

// parseLaunch reads the launcher's arguments (os.Args[1:]).
func parseLaunch(args []string) (rules, []string, error) {
	var r rules
	if len(args) < 3 || !strings.HasPrefix(args[0], LaunchFlag+"=") || args[1] != "--" {
		return r, nil, errors.New("usage: " + LaunchFlag + "=RULES -- PROGRAM [ARG...]")
	}
	dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(args[0], LaunchFlag+"=")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, nil, fmt.Errorf("rules: %v", err)
	}
	if !filepath.IsAbs(args[2]) {
		return r, nil, fmt.Errorf("program %q is not an absolute path", args[2])
	}
	if r.Procs < 0 || r.Data < 0 {
		return r, nil, errors.New("rules: a negative limit")
	}
	return r, args[2:], nil
}
