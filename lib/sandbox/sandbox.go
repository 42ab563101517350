// Package sandbox confines the programs a replay starts (shell steps,
// ctx-tool-NAME programs, config tools): they read and write only the
// workspace, read the system directories programs need, see an
// environment cut down to an allow-list, and reach no network unless
// allowed. On Linux it uses Landlock, applied by a launcher (the calling
// program itself, started again in its hidden launcher mode) in the child
// just before it executes the step's program, and a user and network
// namespace for the network. It needs no root and no setuid helper.
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
}

// Sandbox starts programs under a Policy.
type Sandbox struct {
	launcher string
	policy   Policy
	abi      int
	scratch  string // HOME and TMPDIR are its home and tmp

	once  sync.Once
	netns bool // the network namespace could be made
	nsErr error
}

// New is a sandbox for policy whose launcher is the program at path
// launcher (which must call Launch when its first argument starts with
// LaunchFlag). It fails, saying why, where no sandbox can be had: another
// OS, a kernel without Landlock. Close removes its scratch directory.
func New(launcher string, policy Policy) (*Sandbox, error) {
	abi, err := landlockABI()
	if err != nil {
		return nil, err
	}
	if policy.Workspace == "" {
		return nil, errors.New("sandbox: no workspace")
	}
	ws, err := filepath.EvalSymlinks(policy.Workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace %s: %w", policy.Workspace, err)
	}
	policy.Workspace = ws
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
	s := &Sandbox{launcher: launcher, policy: policy, abi: abi, scratch: scratch}
	if !policy.AllowNet && abi < 4 && !s.probe() {
		// Landlock closes TCP from ABI 4; before, only a namespace can.
		s.Close()
		return nil, fmt.Errorf("cannot close the network: Landlock ABI %d has no network rules and no user and network namespace can be made here (%v); --allow-net replays with the network open", abi, s.nsErr)
	}
	return s, nil
}

// LandlockABI is the kernel's Landlock ABI version, or why there is none.
func LandlockABI() (int, error) { return landlockABI() }

// Close removes the sandbox's HOME and TMPDIR.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	return os.RemoveAll(s.scratch)
}

// Name says what confines the programs, for the replay's report:
// "landlock ABI 7, no network". It is final once a program has started.
func (s *Sandbox) Name() string {
	name := fmt.Sprintf("landlock ABI %d", s.abi)
	switch {
	case s.policy.AllowNet:
		return name + ", network allowed"
	case s.netns:
		return name + ", no network"
	}
	return name + ", no TCP (no network namespace here: UDP is open)"
}

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

// Argv returns the command line that runs argv under the sandbox: the
// launcher with the rules, then argv, whose first word must be an
// absolute path. readable are files besides the system directories the
// program needs to read and execute (the program itself when it lies
// elsewhere).
func (s *Sandbox) Argv(argv []string, readable ...string) ([]string, error) {
	if len(argv) == 0 || !filepath.IsAbs(argv[0]) {
		return nil, fmt.Errorf("sandbox: program %q is not an absolute path", strings.Join(argv[:min(1, len(argv))], ""))
	}
	r := rules{
		RW:      []string{s.policy.Workspace, s.scratch},
		RO:      append(append(SystemDirs(), pathDirs(os.Getenv("PATH"), userHome())...), s.policy.ReadOnly...),
		ROFiles: append(readFiles(), readable...),
		RWFiles: writeFiles(),
		NoNet:   !s.policy.AllowNet,
		ABI:     s.abi,
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
	return r, args[2:], nil
}
