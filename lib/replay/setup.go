package replay

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/sandbox"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Place is where a replay runs: the workspace its steps see and the
// sandbox of the programs it starts.
type Place struct {
	// Workdir replays against an existing tree instead of a temporary
	// copy of the inputs; Repo makes the temporary workspace a checkout
	// of the run's commit from that clone; Keep keeps a temporary one.
	Workdir, Repo string
	Keep          bool
	// AllowExec is the replay's --allow-exec: without a sandbox here it
	// is refused, unless NoSandbox.
	AllowExec, NoSandbox bool
	// The sandbox's openings and bounds (sandbox.Policy).
	AllowNet     bool
	Env          []string
	MaxProcs     int
	MaxMemoryMiB int64
}

// Check refuses a place whose parts do not go together; its messages name
// ctx replay's flags.
func (p Place) Check() error {
	switch {
	case p.Repo != "" && p.Workdir != "":
		return errors.New("--repo makes a temporary workspace of the run's commit; with --workdir the tree is used as it is")
	case p.Keep && p.Workdir != "":
		return errors.New("--keep keeps the temporary workspace; with --workdir nothing is removed")
	case p.NoSandbox && (p.AllowNet || len(p.Env) > 0):
		return errors.New("--allow-net and --env open the sandbox; with --no-sandbox there is none")
	case p.MaxProcs < 0 || p.MaxMemoryMiB < 0 || p.MaxMemoryMiB > 1<<20:
		return errors.New("--max-procs and --max-memory take a number, 0 for no bound")
	}
	return nil
}

// Prepare makes the workspace of a replay of m (a temporary copy of its
// inputs, a checkout of its commit, or Workdir) and the sandbox of its
// programs, sets opts' Sandbox, Unconfined and Repo, and returns the
// workspace and the function that closes the sandbox and removes what
// Prepare made (the workspace stays with Keep or Workdir).
func Prepare(ctx context.Context, st *store.Store, m *pack.Manifest, p Place, opts *Options) (*Workspace, func(), error) {
	ws, err := NewWorkspace(p.Workdir, st.Root())
	if err != nil {
		return nil, nil, err
	}
	drop := func() {
		ws.Close()
		if !p.Keep {
			ws.Remove()
		}
	}
	var shared []string
	if p.Repo != "" {
		if shared, err = Checkout(ctx, ws, p.Repo, m.Env()); err != nil {
			drop()
			return nil, nil, err
		}
		opts.Repo = p.Repo
	}
	sb, unconfined, err := newSandbox(p, ws.Dir(), shared)
	if err != nil {
		drop()
		return nil, nil, err
	}
	opts.Sandbox, opts.Unconfined = sb, unconfined
	return ws, func() { sb.Close(); drop() }, nil
}

// newSandbox is the sandbox of the replay's programs, or nil and why they
// run unconfined: NoSandbox, or no sandbox here (then AllowExec is
// refused: shell commands from a pack never run unconfined unasked). The
// sandbox's launcher is this program (sandbox.IsLaunch).
func newSandbox(p Place, ws string, readOnly []string) (*sandbox.Sandbox, string, error) {
	if p.NoSandbox {
		return nil, "--no-sandbox", nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("cannot find the program's own file to launch the sandbox: %w", err)
	}
	sb, err := sandbox.New(exe, sandbox.Policy{Workspace: ws, ReadOnly: readOnly, AllowNet: p.AllowNet, Env: p.Env,
		MaxProcs: p.MaxProcs, MaxMemory: p.MaxMemoryMiB << 20})
	if err == nil && p.AllowExec && sb.Missing() != nil {
		sb.Close()
		err = sb.Missing()
	}
	switch {
	case err == nil:
		return sb, "", nil
	case p.AllowExec:
		return nil, "", text.WithHints(errors.New("--allow-exec needs a sandbox: "+err.Error()),
			"--no-sandbox runs the pack's shell commands with your rights, environment and network")
	}
	return nil, err.Error(), nil
}
