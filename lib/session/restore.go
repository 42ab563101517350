package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// RestoreOptions say where a run goes.
type RestoreOptions struct {
	// To is the agent whose store receives the run; "" for the agent it
	// came from.
	To string
	// Cwd is where the session belongs on this machine (as
	// agentstore.WorkingDir gives it): a directory that exists.
	Cwd string
	// SessionID is the id the session takes: "" keeps the run's own (or
	// one made from the pack's hash), "new" makes a random one.
	SessionID string
	// Env names the agents' stores.
	Env agentstore.Getenv
	// Now is the time of the restore (cli.Clock): a rendered run that
	// recorded no time is dated by it, and a Gemini CLI session is
	// stamped with it as last used. Nil: time.Now.
	Now func() time.Time
	// Warn receives what the target cannot hold, and what its resume
	// will need.
	Warn func(string)
	// Note receives what the restore did beside the session's lines (the
	// time a Gemini CLI session is stamped with).
	Note func(string)
}

// Restored is what a restore did (ctx restore --json).
type Restored struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// Mode is "exact" (the session's own files, only the working
	// directory changed) or "rendered" (written from the run's steps).
	Mode   string `json:"mode"`
	Status string `json:"status"` // Written, Updated or Unchanged
	File   string `json:"file"`   // the session file
	Files  int    `json:"files"`
	Cwd    string `json:"cwd"`
	// Resume is the command that continues the session in Cwd.
	Resume []string `json:"resume"`
	// Lost lists what the target cannot hold, left out.
	Lost []string `json:"lost"`
	// Git is the checkout the run was in, when it recorded one.
	Git *pack.Git `json:"git,omitempty"`
	// Provider is the model provider a Codex session needs, and
	// ProviderConfigured whether $CODEX_HOME configures it.
	Provider           string `json:"provider,omitempty"`
	ProviderConfigured *bool  `json:"provider_configured,omitempty"`
}

// CheckoutNote says where the run worked when it recorded its
// repository (environment.git), and how to get that checkout; "" when it
// did not.
func (r *Restored) CheckoutNote() string {
	if r.Git == nil {
		return ""
	}
	where := "the run worked in a checkout"
	if r.Git.RepositoryURL != "" {
		where += " of " + r.Git.RepositoryURL
	}
	if r.Git.Commit != "" {
		where += " at " + r.Git.Commit
	}
	return where + ": 'ctx restore --repo CLONE --cwd NEWDIR' makes NEWDIR a checkout of it"
}

// NoPromptError is a pack with nothing to resume.
type NoPromptError struct{ Pack store.Hash }

func (e *NoPromptError) Error() string {
	return fmt.Sprintf("pack %s holds no prompt and no session file: there is no conversation to resume", e.Pack.Short())
}

// Restore writes pack h into the store of an agent so that the agent's
// own resume finds it: exactly when the pack holds the session's files
// for that agent, rendered from its steps otherwise.
func Restore(st *store.Store, h store.Hash, opts RestoreOptions) (*Restored, error) {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	if opts.Note == nil {
		opts.Note = func(string) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if !utf8.ValidString(opts.Cwd) || !filepath.IsAbs(opts.Cwd) {
		return nil, fmt.Errorf("--cwd %q: the agents record an absolute, UTF-8 path", opts.Cwd)
	}
	if err := checkDir(opts.Cwd); err != nil {
		return nil, fmt.Errorf("--cwd %w", err)
	}
	m, _, err := pack.Head(st, h, nil)
	if err != nil {
		return nil, err
	}
	from, known := sourceAgent(m)
	to := opts.To
	if to == "" {
		if !known {
			return nil, text.WithHints(fmt.Errorf("pack %s does not say which agent's run it is", h.Short()),
				"give the agent to restore it into: --to "+strings.Join(agentstore.Names(), "|"))
		}
		to = from
	}
	a, err := agentstore.Lookup(to)
	if err != nil {
		return nil, err
	}
	to = a.Name
	agent, oldID, files, exact := Files(m)
	exact = exact && agent == to
	if !exact && len(m.Prompts) == 0 {
		return nil, &NoPromptError{Pack: h}
	}
	r := &restorer{st: st, h: h, m: m, opts: opts, to: to, now: opts.Now().UTC(), files: files}
	if exact {
		r.id, err = r.sessionID(oldID)
	} else {
		r.id, err = r.sessionID(runSessionID(m))
	}
	if err != nil {
		return nil, err
	}
	res := &Restored{Agent: to, Session: r.id, Cwd: opts.Cwd, Lost: []string{}}
	var outs []output
	if exact {
		res.Mode = "exact"
		outs, err = r.exact(oldID, files, res)
	} else {
		res.Mode = "rendered"
		outs, err = r.rendered(res)
		if known && len(files) > 1 {
			r.lose(fmt.Sprintf("%s of the %s session (sub-agents' transcripts): %s keeps only the calls and results of the session itself",
				text.Plural(len(files)-1, "companion file"), from, to))
		}
	}
	var done written
	if err == nil {
		res.Status, done, err = writeAll(outs)
	}
	if err != nil {
		return nil, r.already(err)
	}
	if err := r.after(res); err != nil {
		return nil, err
	}
	res.File = outs[len(outs)-1].path
	noteRestored(st, restoreRecord{Pack: h, Agent: to, Session: r.id, File: res.File, Cwd: opts.Cwd, Size: done.size, Sum: done.sum})
	if to == agentstore.Gemini && res.Status != Unchanged && !r.unstamped {
		opts.Note(fmt.Sprintf("the session is stamped as last used at %s (its lastUpdated): Gemini CLI deletes a session %d days after that by default (general.sessionRetention)",
			stamp(r.now), agentstore.GeminiRetentionDays))
	}
	res.Files = len(outs)
	res.Lost = append(res.Lost, r.lost...)
	if g := m.Env().Git; g != nil && (g.Commit != "" || g.RepositoryURL != "") {
		res.Git = g
	}
	res.Resume = resumeCommand(to, r.id)
	return res, nil
}

// restorer holds one restore's state.
type restorer struct {
	st   *store.Store
	h    store.Hash
	m    *pack.Manifest
	opts RestoreOptions
	to   string
	id   string
	lost []string
	now  time.Time // the time of the restore (RestoreOptions.Now)
	// files are the session's own files the pack holds (Files), any agent's.
	files []File
	// unstamped says a Gemini CLI session was written without the time
	// of the restore (a .json one whose lastUpdated was not found).
	unstamped bool
	// gemini: the project's slug and whether projects.json has it.
	slug      string
	slugKnown bool
}

func (r *restorer) lose(what string) {
	r.lost = append(r.lost, what)
	r.opts.Warn(fmt.Sprintf("%s cannot hold %s: left out", r.to, what))
}

// sessionID is the id the restored session takes: the one asked for, a
// random one for "new", else own (the run's), else one made from the
// pack's hash; Codex needs a UUID.
func (r *restorer) sessionID(own string) (string, error) {
	id := r.opts.SessionID
	switch {
	case id == "new":
		return randomUUID(), nil
	case id != "":
	case own != "" && (r.to != agentstore.Codex || agentstore.IsUUID(own)):
		id = own
	default:
		return derivedUUID(r.h.String() + " " + r.to), nil
	}
	if r.to == agentstore.Codex && !agentstore.IsUUID(id) {
		return "", fmt.Errorf("session id %q: Codex names its sessions by UUID (or give --session-id new)", id)
	}
	if !safeID(id) {
		return "", fmt.Errorf("session id %q: want 1 to 100 letters, digits, '.', '_' and '-', starting with a letter or digit", id)
	}
	return id, nil
}

// safeID reports whether id can name a session's files.
func safeID(id string) bool {
	if id == "" || len(id) > 100 || !isAlnum(id[0]) {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// runSessionID is the session id a run's log names (metadata.session_id).
func runSessionID(m *pack.Manifest) string {
	var md struct {
		ID string `json:"session_id"`
	}
	if len(m.Metadata) > 0 {
		_ = json.Unmarshal(m.Metadata, &md)
	}
	return md.ID
}

// randomUUID is a version 4 UUID.
func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return formatUUID(b)
}

// derivedUUID is a UUID made from seed, the same every time.
func derivedUUID(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	var b [16]byte
	copy(b[:], sum[:16])
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// resumeCommand is the agent's command that continues session id in its
// working directory.
func resumeCommand(agent, id string) []string {
	switch agent {
	case agentstore.ClaudeCode:
		return []string{"claude", "--resume", id}
	case agentstore.Codex:
		return []string{"codex", "resume", id}
	}
	return []string{"gemini", "--resume", id}
}

// sessionFile is where the session file goes in the target's store,
// named name (Codex: the rollout's name; Gemini: the chat file's; Claude
// Code: ID.jsonl), and the folder its companions are named from.
func (r *restorer) sessionFile(name string) (path, root string, err error) {
	base, err := agentstore.Dir(r.to, r.opts.Env)
	if err != nil {
		return "", "", err
	}
	switch r.to {
	case agentstore.ClaudeCode:
		root = filepath.Join(base, "projects", agentstore.ClaudeFolder(r.opts.Env, base, r.opts.Cwd))
	case agentstore.Codex:
		t, _, ok := agentstore.ParseCodexRolloutName(name)
		if !ok {
			return "", "", fmt.Errorf("%s is not a Codex rollout's file name", name)
		}
		root = filepath.Join(base, agentstore.CodexDatedFolder(t))
	case agentstore.Gemini:
		p, err := agentstore.ReadGeminiProjects(base)
		if err != nil {
			return "", "", err
		}
		r.slug, r.slugKnown = agentstore.GeminiProject(base, p, r.opts.Cwd)
		root = agentstore.GeminiChats(base, r.slug)
	}
	path = filepath.Join(root, name)
	return path, root, r.sameIDElsewhere(base, path)
}

// sameIDElsewhere refuses a session of the same id in another file of the
// store, which the agent's resume by id could take instead.
func (r *restorer) sameIDElsewhere(base, path string) error {
	var pattern string
	switch r.to {
	case agentstore.ClaudeCode:
		pattern = filepath.Join(base, "projects", "*", r.id+".jsonl")
	case agentstore.Codex:
		pattern = filepath.Join(base, "sessions", "*", "*", "*", "rollout-*-"+r.id+".jsonl")
	case agentstore.Gemini:
		pattern = filepath.Join(filepath.Dir(path), "session-*"+r.id[:min(8, len(r.id))]+".json*")
	}
	others, _ := filepath.Glob(pattern)
	for _, o := range others {
		if o == path {
			continue
		}
		if r.to == agentstore.Gemini {
			if meta, err := agentstore.ReadGeminiMeta(o); err != nil || meta.SessionID != r.id {
				continue
			}
		}
		return &ConflictError{Path: o, Why: "another file of the store holds this session id"}
	}
	return nil
}

// after does what the agent needs beside the session's files: Gemini
// CLI's project registry, and the check of Codex's model provider.
func (r *restorer) after(res *Restored) error {
	switch r.to {
	case agentstore.Gemini:
		return r.registerGemini()
	case agentstore.Codex:
		base, err := agentstore.Dir(agentstore.Codex, r.opts.Env)
		if err != nil {
			return err
		}
		cfg, err := agentstore.ReadCodexConfig(base)
		if err != nil {
			return err
		}
		ok := res.Provider == "" || cfg.Configures(res.Provider)
		res.ProviderConfigured = &ok
		if !ok {
			r.opts.Warn(fmt.Sprintf("codex will not resume this session until the model provider %q is configured: it was recorded with it, and %s configures no such provider (\"no longer configured\"); add a [model_providers.%s] table to config.toml, or run codex with -c 'model_providers.%s={...}'",
				res.Provider, filepath.Join(base, "config.toml"), res.Provider, res.Provider))
		}
	}
	return nil
}

// registerGemini records the project directory's slug in projects.json
// and the slug's ownership markers, as Gemini CLI does when it first runs
// in a directory (nothing when they are there already).
func (r *restorer) registerGemini() error {
	base, err := agentstore.Dir(agentstore.Gemini, r.opts.Env)
	if err != nil {
		return err
	}
	for _, m := range agentstore.GeminiMarkers(base, r.slug) {
		if _, err := os.Stat(m); errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(m), 0o700); err != nil {
				return err
			}
			if err := store.WriteFileAtomic(m, []byte(r.opts.Cwd), 0o600, ".ctx-restore-"); err != nil {
				return err
			}
		}
	}
	if r.slugKnown {
		return nil
	}
	// Read again just before the write: Gemini CLI may have added a
	// project since.
	p, err := agentstore.ReadGeminiProjects(base)
	if err != nil {
		return err
	}
	if s, ok := p.Projects[r.opts.Cwd]; ok && s == r.slug {
		return nil
	}
	p.Projects[r.opts.Cwd] = r.slug
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(agentstore.GeminiProjectsFile(base)); err == nil {
		mode = fi.Mode().Perm()
	}
	return store.WriteFileAtomic(agentstore.GeminiProjectsFile(base), p.Encode(), mode, ".ctx-restore-")
}

// createdTime is the run's created time, or the zero time.
func (r *restorer) createdTime() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.m.CreatedText())
	return t
}

// checkDir says why dir cannot be a session's working directory: it does
// not exist, or is not a directory.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such directory", dir)
	case err != nil:
		return fmt.Errorf("%s: %v", dir, text.UnwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// WorkingDir is dir as a restore takes it: absolute, symbolic links
// resolved (agentstore.WorkingDir), an existing directory.
func WorkingDir(dir string) (string, error) {
	if err := checkDir(dir); err != nil {
		return "", err
	}
	return agentstore.WorkingDir(dir)
}

// AlreadyRestoredError is a restore refused because the file the session
// id names elsewhere in the store holds this very session: restored
// before for another directory, or the file it was captured from.
type AlreadyRestoredError struct {
	Path string
	Dir  string // the directory it was restored for; "" when not known
}

func (e *AlreadyRestoredError) Error() string {
	if e.Dir == "" {
		return fmt.Sprintf("this session is already in %s (the file it was captured from): nothing was written", e.Path)
	}
	return fmt.Sprintf("this session is already restored for %s (%s): nothing was written", e.Dir, e.Path)
}

// ErrorHints say how to have it here too.
func (e *AlreadyRestoredError) ErrorHints() []string {
	return []string{"--session-id new restores it again, as a new session of this directory"}
}

// already turns a conflict with a file that holds this very session
// into an AlreadyRestoredError; any other error is returned as it is.
func (r *restorer) already(err error) error {
	var ce *ConflictError
	if !errors.As(err, &ce) {
		return err
	}
	for _, rec := range loadRestored(r.st) {
		if rec.File == ce.Path && rec.Agent == r.to && rec.Session == r.id && rec.Cwd != r.opts.Cwd && rec.startsWith(ce.Path) {
			return &AlreadyRestoredError{Path: ce.Path, Dir: rec.Cwd}
		}
	}
	if len(r.files) > 0 {
		if sum, serr := prefixSum(ce.Path, r.files[0].Size); serr == nil && sum == r.files[0].Ref {
			return &AlreadyRestoredError{Path: ce.Path}
		}
	}
	return err
}
