package session

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// CaptureOptions say which sessions a capture looks at.
type CaptureOptions struct {
	// Agents are the agents whose stores are read (agentstore names);
	// nil for every agent.
	Agents []string
	// Dir is the project's working directory (agentstore.WorkingDir);
	// "" for every project.
	Dir string
	// Env is the environment that names the stores (HOME,
	// CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME).
	Env agentstore.Getenv
	// Warn receives what the converter could not map, and sessions that
	// were kept without steps.
	Warn func(string)
	// Captured, when set, is told of each pack as it is stored.
	Captured func(Captured)
}

// Captured is a session packed by a capture.
type Captured struct {
	Agent   string  `json:"agent"`
	Session string  `json:"session"`
	Status  string  `json:"status"` // "new" or "grown"
	Pack    string  `json:"pack"`   // ctx://HEX
	Parent  *string `json:"parent"` // the previous capture (grown), or null
	Tag     string  `json:"tag"`
	File    string  `json:"file"` // the session file
	Files   int     `json:"files"`
	Steps   int     `json:"steps"`
}

// Failed is a session a capture could not pack.
type Failed struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	File    string `json:"file"`
	Error   string `json:"error"`
}

// CaptureReport is what ctx capture --json prints.
type CaptureReport struct {
	Captured  []Captured `json:"captured"`
	Unchanged int        `json:"unchanged"`
	Failed    []Failed   `json:"failed"`
	// Sessions is how many sessions were found, Looked where.
	Sessions int      `json:"sessions"`
	Looked   []string `json:"looked"`
}

// Capture packs every session of the agents' stores that is new or has
// grown since its last capture (the pack its tag names): a grown session
// is a pack whose parent is the previous one, and the tag moves to it. A
// session whose files are the same is left alone, found so by the stat
// cache and the capture cache without reading its files or its pack.
func Capture(st *store.Store, opts CaptureOptions) (*CaptureReport, error) {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	agents := opts.Agents
	if agents == nil {
		agents = agentstore.Names()
	}
	rep := &CaptureReport{Captured: []Captured{}, Failed: []Failed{}, Looked: []string{}}
	var all []agentstore.Session
	for _, a := range agents {
		found, looked, err := agentstore.Find(a, opts.Env, opts.Dir)
		rep.Looked = append(rep.Looked, looked...)
		if err != nil {
			return rep, err
		}
		all = append(all, found...)
	}
	rep.Sessions = len(all)
	if len(all) == 0 {
		return rep, nil
	}
	c := capturer{st: st, opts: opts, stat: st.LoadStatCache(), cache: loadCaptureCache(st)}
	for _, s := range all {
		got, err := c.one(s)
		switch {
		case err != nil:
			rep.Failed = append(rep.Failed, Failed{Agent: s.Agent, Session: s.ID, File: s.Path(), Error: err.Error()})
		case got == nil:
			rep.Unchanged++
		default:
			rep.Captured = append(rep.Captured, *got)
			if opts.Captured != nil {
				opts.Captured(*got)
			}
		}
	}
	c.cache.save(st)
	_ = st.SaveStatCache(c.stat)
	return rep, nil
}

type capturer struct {
	st    *store.Store
	opts  CaptureOptions
	stat  *store.StatCache
	cache *captureCache
}

// one captures session s: nil when it is unchanged.
func (c *capturer) one(s agentstore.Session) (*Captured, error) {
	agent, err := agentstore.Lookup(s.Agent)
	if err != nil {
		return nil, err
	}
	if err := CheckTag(s.Agent, s.ID); err != nil {
		return nil, err
	}
	tag := Tag(s.Agent, s.ID)
	files := make([]File, len(s.Files))
	for i, rel := range s.Files {
		files[i] = File{Rel: rel, Main: i == 0}
	}
	sortCompanions(files)
	for i := range files {
		p := filepath.Join(s.Root, filepath.FromSlash(files[i].Rel))
		if files[i].Ref, files[i].Size, err = c.hash(p); err != nil {
			return nil, err
		}
	}
	if files[0].Size == 0 {
		return nil, nil // not one whole line yet: the next capture takes it
	}
	digest := digestOf(files)
	prev, err := c.st.ReadRef(tag)
	var parent *store.Hash
	switch {
	case err == nil:
		if d, ok := c.previous(prev); ok && d == digest {
			return nil, nil
		}
		parent = &prev
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	return c.pack(s, agent, files, tag, parent)
}

// previous is the digest of the files in the pack h (the cache's, else
// its manifest's).
func (c *capturer) previous(h store.Hash) (store.Hash, bool) {
	if d, ok := c.cache.get(h); ok {
		return d, true
	}
	m, _, err := pack.Head(c.st, h, nil)
	if err != nil {
		return store.Hash{}, false
	}
	_, _, files, ok := Files(m)
	if !ok {
		return store.Hash{}, false
	}
	d := digestOf(files)
	c.cache.put(h, d)
	return d, true
}

// pack stores the session's files, then its converted run with them.
func (c *capturer) pack(s agentstore.Session, agent agentstore.Agent, files []File, tag string, parent *store.Hash) (*Captured, error) {
	// From the first file stored to the pack indexed, ctx gc deletes
	// nothing (the store's write lock; pack.Save's nests in it).
	unlock, err := c.st.LockWrites()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var inputs []pack.InputEvent
	for i := range files {
		p := filepath.Join(s.Root, filepath.FromSlash(files[i].Rel))
		if files[i].Ref, files[i].Size, err = c.put(p, files[i].Size); err != nil {
			return nil, err
		}
		inputs = append(inputs, pack.InputEvent{Event: "input", Name: inputName(s.Agent, files[i].Rel),
			Content:  pack.Content{ContentRef: files[i].Ref.String()},
			Metadata: map[string]any{metaKey: fileMeta{Agent: s.Agent, ID: s.ID, Main: files[i].Main}}})
	}
	source := fmt.Sprintf("%s session %s (%s)", s.Agent, s.ID, s.Path())
	pub, steps, err := packRun{st: c.st, format: agent.Format, main: files[0].Ref, inputs: inputs,
		parent: parent, tag: tag, source: source, warn: c.opts.Warn}.save()
	if err != nil {
		return nil, err
	}
	c.cache.put(pub.Hash, digestOf(files))
	got := &Captured{Agent: s.Agent, Session: s.ID, Status: "new", Pack: pub.Hash.URI(), Tag: tag,
		File: s.Path(), Files: len(files), Steps: steps}
	if parent != nil {
		u := parent.URI()
		got.Status, got.Parent = "grown", &u
	}
	return got, nil
}

// sortCompanions keeps the session file first and orders the others by
// name, as Files does, so that their digests compare.
func sortCompanions(files []File) {
	sort.SliceStable(files[1:], func(i, j int) bool { return files[1+i].Rel < files[1+j].Rel })
}

// hash returns the hash and size of the part of the file at p a capture
// keeps (keptSize), from the stat cache when the file is the one last
// hashed, else by reading it.
func (c *capturer) hash(p string) (store.Hash, int64, error) {
	if h, ok := c.stat.Known(p); ok {
		if fi, err := os.Lstat(p); err == nil {
			return h, fi.Size(), nil
		}
	}
	f, fi, n, err := openKept(p)
	if err != nil {
		return store.Hash{}, 0, err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, io.LimitReader(f, n)); err != nil {
		return store.Hash{}, 0, fmt.Errorf("%s: %w", p, err)
	}
	var h store.Hash
	sum.Sum(h[:0])
	if n == fi.Size() {
		c.stat.Note(p, fi, h)
	}
	return h, n, nil
}

// put stores the first n bytes of the file at p.
func (c *capturer) put(p string, n int64) (store.Hash, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return store.Hash{}, 0, err
	}
	defer f.Close()
	h, size, _, err := c.st.PutObjectFrom(func(w io.Writer) error {
		got, err := io.Copy(w, io.LimitReader(f, n))
		if err == nil && got != n {
			err = fmt.Errorf("%s: shorter than it was a moment ago (%d bytes, not %d)", p, got, n)
		}
		return err
	})
	return h, size, err
}

// openKept opens the file at p (a regular file, not through a final
// link) and says how much of it a capture keeps: a JSON-lines file up to
// its last newline (a line the agent is still writing waits for the next
// capture), any other file whole.
func openKept(p string) (*os.File, fs.FileInfo, int64, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", p)
	}
	if err != nil {
		f.Close()
		return nil, nil, 0, err
	}
	n := fi.Size()
	if strings.HasSuffix(p, ".jsonl") {
		if n, err = lastNewline(f, n); err != nil {
			f.Close()
			return nil, nil, 0, err
		}
	}
	return f, fi, n, nil
}

// lastNewline is the length of f's first size bytes up to and with
// their last newline (0 when there is none).
func lastNewline(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
