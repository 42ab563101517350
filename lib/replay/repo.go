package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/text"
)

// MissingCommitError is a commit the clone given with --repo does not
// have.
type MissingCommitError struct {
	Dir, Commit, URL string
}

func (e *MissingCommitError) Error() string {
	return fmt.Sprintf("--repo %s: commit %s is not in this clone", e.Dir, e.Commit)
}

// ErrorHints say how to fetch the commit.
func (e *MissingCommitError) ErrorHints() []string {
	from := "origin"
	if e.URL != "" {
		from = e.URL
	}
	return []string{fmt.Sprintf("fetch it: git -C %s fetch %s %s", text.ShellWord(e.Dir), text.ShellWord(from), e.Commit)}
}

// Checkout makes the temporary workspace ws a checkout of the commit the
// run names (environment.git.commit) from the clone dir (CheckoutDir). It
// returns the object directories the checkout reads, which a sandboxed
// step must be able to read too. Inputs staged afterwards replace the
// checkout's files of the same names.
func Checkout(ctx context.Context, ws *Workspace, dir string, env pack.Environment) ([]string, error) {
	if !ws.temp {
		return nil, errors.New("--repo makes a temporary workspace; it does not go with --workdir")
	}
	objects, err := CheckoutDir(ctx, ws.dir, dir, env)
	if err != nil {
		return nil, err
	}
	ws.checkout = true
	return objects, nil
}

// CheckoutDir makes dest, an empty directory, a checkout of the commit
// the run names (environment.git.commit) from the clone dir: a clone of
// dir sharing its objects (git clone --shared), its HEAD detached at the
// commit. dir's working tree, index, HEAD and refs are not touched. It
// returns the object directories the checkout reads. ctx replay --repo
// and ctx restore --repo use it.
func CheckoutDir(ctx context.Context, dest, dir string, env pack.Environment) ([]string, error) {
	if env.Git == nil || env.Git.Commit == "" {
		err := errors.New("--repo: the run names no commit (environment.git.commit): there is nothing to check out")
		if env.Git != nil && env.Git.Branch != "" {
			// Claude Code records the branch only; its tip has moved since.
			return nil, text.WithHints(err, fmt.Sprintf("the run names the branch %s: check out the commit it was at then, and replay with --workdir", env.Git.Branch))
		}
		return nil, err
	}
	commit := env.Git.Commit
	if !isHex(commit) || len(commit) < 7 || len(commit) > 64 {
		return nil, fmt.Errorf("--repo: environment.git.commit %q is not a commit hash", commit)
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--repo %s: %v", dir, text.UnwrapPath(err))
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("--repo %s is not a directory", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	common, err := git(ctx, abs, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("--repo %s is not a git clone: %v", dir, err)
	}
	url := ""
	if env.Git != nil {
		url = env.Git.RepositoryURL
	}
	full, err := git(ctx, abs, "rev-parse", "--verify", "--quiet", "--end-of-options", commit+"^{commit}")
	if err != nil {
		return nil, &MissingCommitError{Dir: dir, Commit: commit, URL: url}
	}
	if _, err := git(ctx, dest, "clone", "--quiet", "--shared", "--no-checkout", "--", abs, "."); err != nil {
		return nil, fmt.Errorf("--repo %s: cannot clone it into %s: %v", dir, dest, err)
	}
	if _, err := git(ctx, dest, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", full); err != nil {
		return nil, fmt.Errorf("--repo %s: cannot check out %s: %v", dir, commit, err)
	}
	objects := []string{filepath.Join(common, "objects")}
	// The clone's own alternates (a clone of a shared clone) are read too.
	if b, err := os.ReadFile(filepath.Join(common, "objects", "info", "alternates")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && filepath.IsAbs(l) {
				objects = append(objects, l)
			}
		}
	}
	return objects, nil
}

// git runs git in dir with the caller's environment less the variables
// that would point it at another repository, and returns its output,
// trimmed, or its last line of stderr as the error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		if l := strings.TrimSpace(errs.String()); l != "" {
			lines := strings.Split(l, "\n")
			return "", errors.New(lines[len(lines)-1])
		}
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// isHex reports whether s is lower- or upper-case hex digits.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// repositoryNote is the report's repository sentence: what the workspace
// holds of the repository the run worked in, or how to give it.
func repositoryNote(env pack.Environment, repo string) string {
	g := env.Git
	if g == nil || g.Commit == "" && g.RepositoryURL == "" {
		return ""
	}
	what := "the run worked in a checkout"
	if g.RepositoryURL != "" {
		what += " of " + g.RepositoryURL
	}
	if g.Commit != "" {
		what += " at " + g.Commit
	}
	if g.Branch != "" {
		what += " (" + g.Branch + ")"
	}
	if repo != "" {
		return what + "; the workspace is that commit, from " + repo
	}
	return what + "; the workspace lacks it: give a clone with --repo DIR"
}

// NewCheckout makes dest a checkout of the run's commit from the clone
// dir (CheckoutDir) for ctx restore --repo: dest does not exist yet (it
// is made), or is an empty directory. A dest that is already a checkout
// of that commit (a second restore --repo of the run) is left as it is,
// and made is false. When it fails, what it made is removed: a directory
// it made, or what it put in the empty one. undo removes the checkout
// it made, for a caller whose next step failed (nil when it made none).
func NewCheckout(ctx context.Context, dest, dir string, env pack.Environment) (undo func(), err error) {
	if env.Git == nil || env.Git.Commit == "" {
		_, err := CheckoutDir(ctx, dest, dir, env) // says why, touching nothing
		return nil, err
	}
	ents, err := os.ReadDir(dest)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return nil, err
		}
		undo = func() { os.RemoveAll(dest) }
	case err != nil:
		return nil, fmt.Errorf("--cwd %s: %v", dest, text.UnwrapPath(err))
	case len(ents) > 0:
		if checkedOutAt(ctx, dest, dir, env) {
			return nil, nil
		}
		return nil, text.WithHints(fmt.Errorf("--cwd %s: not empty, and not a checkout of the run's commit %s", dest, env.Git.Commit),
			"--repo makes --cwd a new checkout: name a directory that does not exist yet")
	default:
		undo = func() { emptyOut(dest) }
	}
	if _, err := CheckoutDir(ctx, dest, dir, env); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// checkedOutAt reports whether dest is the top of a git checkout whose
// HEAD is the commit the run names, as the clone dir resolves it.
func checkedOutAt(ctx context.Context, dest, dir string, env pack.Environment) bool {
	if env.Git == nil || env.Git.Commit == "" {
		return false
	}
	want, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", env.Git.Commit+"^{commit}")
	if err != nil {
		return false
	}
	top, err := git(ctx, dest, "rev-parse", "--show-toplevel")
	if err != nil {
		return false
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil || filepath.Clean(top) != real {
		return false
	}
	head, err := git(ctx, dest, "rev-parse", "--verify", "--quiet", "HEAD")
	return err == nil && head == want
}

// emptyOut removes what dir holds, leaving it empty.
func emptyOut(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
