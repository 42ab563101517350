// Package side loads the runs a verb compares, each named on the command
// line: a pack name, a file (a pack manifest, an execution log or a replay
// stream) or "-" for standard input holding any of the three. A log
// becomes a manifest in memory, a replay stream the replayed run
// (replaystream.Replayed); either way the result is a manifest with its
// hash. ctx diff loads its two sides with it.
//
// It must never write to the store or anywhere else (a pipe too large for
// memory is spooled to a temporary file, removed by Close), and every
// error and warning names the side it is about.
package side

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Loader turns each argument into the manifest of a run. Both sides of a
// comparison load at once; what a side has to say waits in its Side, so
// messages come out in the same order every time.
type Loader struct {
	st    *store.Store // nil when there is none: files still work
	stdin io.Reader
	blobs *Blobs

	mu       sync.Mutex
	cleanups []func()
	stream   bool // packs of the store: steps read when compared
}

// StreamSteps makes the sides that are packs of the store load without
// their steps, which Side.Steps reads from the store when they are
// compared (diff.CompareSteps): two packs of any length in little
// memory. Their Manifest then has no Steps.
func (l *Loader) StreamSteps() { l.stream = true }

// NewLoader returns a Loader reading pack names in st (nil: there is no
// store, and only files can be read) and "-" from stdin. With keep, the
// content of logs is kept (small inline content in memory, files by
// path) for Blobs.
func NewLoader(st *store.Store, stdin io.Reader, keep bool) *Loader {
	return &Loader{st: st, stdin: stdin, blobs: &Blobs{st: st, keep: keep}}
}

// Blobs opens the content of what the sides name, from wherever it is:
// the store, or a log's own content (diff.Blobs).
func (l *Loader) Blobs() *Blobs { return l.blobs }

// Close removes what loading left behind (a spooled standard input).
func (l *Loader) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.cleanups {
		f()
	}
}

func (l *Loader) onClose(f func()) {
	l.mu.Lock()
	l.cleanups = append(l.cleanups, f)
	l.mu.Unlock()
}

// Side is one loaded side: its manifest (with its Hash) or the error, and
// the warnings reading it gave, each naming the side.
type Side struct {
	Manifest *pack.Manifest
	Err      error
	Warnings []string
	// Replay is the replay stream the side was read from, when it was one
	// (the manifest is then the replayed run): what a page of the diff
	// says of the replay's fidelity.
	Replay *replaystream.Stream
	// Steps reads the run's steps: from the store for a pack loaded
	// with StreamSteps, else from Manifest.
	Steps pack.Steps
}

// LoadBoth reads A and B concurrently (reading and checking a manifest is
// most of the work of a diff) and returns them in order.
func (l *Loader) LoadBoth(a, b string) [2]Side {
	var out [2]Side
	var wg sync.WaitGroup
	for i, arg := range []string{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = l.Load(string(rune('A'+i)), arg)
		}()
	}
	wg.Wait()
	return out
}

// Load reads the side arg: "-" is standard input; an argument that names
// an existing file or holds a slash (ctx://HEX excepted) is a file;
// anything else is a pack name. letter names the side in every error and
// warning: "A (run.json): ...". An error is a *cli.Error (exit 2), with
// hints.
func (l *Loader) Load(letter, arg string) Side {
	var s Side
	s.Manifest, s.Err = l.load(letter, arg, &s)
	if s.Err == nil && s.Steps.Open == nil {
		s.Steps = pack.StepsOf(s.Manifest)
	}
	return s
}

// load reads the side arg; its warnings and replay stream go into s.
func (l *Loader) load(letter, arg string, s *Side) (*pack.Manifest, error) {
	label := fmt.Sprintf("%s (%s)", letter, arg)
	warnf := func(format string, args ...any) {
		s.Warnings = append(s.Warnings, label+": "+fmt.Sprintf(format, args...))
	}
	if arg == "-" {
		label = letter + " (standard input)"
		m, err := l.read(l.stdin, ".", s, warnf)
		return m, sideError(label, err)
	}
	if IsFile(arg) {
		in, err := cli.OpenInput(arg, "", nil)
		if err != nil {
			return nil, sideError(label, err)
		}
		defer in.Close()
		m, err := l.read(in.File, in.Dir(), s, warnf)
		return m, sideError(label, err)
	}
	m, err := l.pack(arg, s)
	return m, sideError(label, err)
}

// IsFile says whether an argument is read as a file: it names one that
// exists, or it contains a slash (and so is never a pack name). ctx://HEX
// holds slashes but is the pack naming form ctx pack prints: it is always
// a pack name.
func IsFile(arg string) bool {
	if strings.HasPrefix(arg, "ctx://") {
		return false
	}
	if strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator) {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}

// pack resolves a pack name in the store; with StreamSteps, its steps go
// into s.Steps.
func (l *Loader) pack(name string, s *Side) (*pack.Manifest, error) {
	if l.st == nil {
		return nil, cli.Errorf(cli.ExitTrouble, "no .ctx store found (run 'ctx init')").
			WithHint("%q is read as a pack name: there is no file of that name", name)
	}
	h, err := l.st.ResolvePack(name)
	if err != nil {
		return nil, cli.NameError(err).WithHint("%q is read as a pack name: there is no file of that name", name)
	}
	var m *pack.Manifest
	if l.stream {
		var n int
		if m, n, err = pack.Head(l.st, h, nil); err == nil {
			s.Steps = pack.StoredSteps(l.st, h, n)
		}
	} else {
		m, err = pack.Load(l.st, h)
	}
	if err != nil {
		return nil, cli.NameError(err).WithHint("%q is read as a pack name: there is no file of that name", name)
	}
	return m, nil
}

// read reads a manifest, a log or a replay stream from r; root is where
// a log's relative paths resolve.
func (l *Loader) read(r io.Reader, root string, s *Side, warnf func(string, ...any)) (*pack.Manifest, error) {
	kind, in, cleanup, err := sniffInput(r)
	if cleanup != nil {
		l.onClose(cleanup)
	}
	if err != nil {
		return nil, err
	}
	switch kind {
	case KindManifest:
		return readManifest(in)
	case KindReplay:
		return l.replay(in, s, warnf)
	default:
		return l.log(in, root, warnf)
	}
}

// readManifest reads a manifest file. A hash field must name the content:
// a manifest edited by hand, or damaged, is refused rather than trusted.
func readManifest(r io.Reader) (*pack.Manifest, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	m, err := pack.Parse(data)
	if err != nil {
		return nil, err
	}
	_, h, err := pack.Encode(m)
	if err != nil {
		return nil, err
	}
	if m.Hash != "" && m.Hash != h.String() {
		return nil, fmt.Errorf("manifest says its hash is %s but its content hashes to %s (edited or damaged?)", m.Hash, h)
	}
	m.Hash = h.String()
	return m, nil
}

// log builds a manifest from an execution log in memory: content is only
// hashed (and, for --human, kept when small), nothing is stored. A store,
// when there is one, resolves content_ref without writing to it.
func (l *Loader) log(r io.Reader, root string, warnf func(string, ...any)) (*pack.Manifest, error) {
	res, err := pack.Build(r, l.blobs, pack.Options{
		Root:  root,
		Store: l.st,
		Warn:  func(s string) { warnf("%s", s) },
	})
	if err != nil {
		return nil, err
	}
	m := res.Manifest
	_, h, err := pack.Encode(m)
	if err != nil {
		return nil, err
	}
	m.Hash = h.String()
	return m, nil
}

// replay reads a replay stream and returns the replayed run: the pack it
// names with the replay's outcomes, or the pack it saved when that is in
// the store.
func (l *Loader) replay(r io.Reader, s *Side, warnf func(string, ...any)) (*pack.Manifest, error) {
	rp, err := replaystream.Read(r)
	if err != nil {
		return nil, err
	}
	s.Replay = rp
	if l.st == nil {
		return nil, cli.Errorf(cli.ExitTrouble, "no .ctx store found (run 'ctx init'): a replay stream is read against its pack %s", rp.Report.Pack)
	}
	if saved, ok := rp.Report.SavedPack(); ok && l.st.Has(saved) {
		return pack.Load(l.st, saved)
	}
	orig, err := pack.Load(l.st, rp.Report.Pack)
	if err != nil {
		return nil, fmt.Errorf("the replayed pack: %w", err)
	}
	m, warnings, err := replaystream.Replayed(orig, rp)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		warnf("%s", w)
	}
	_, h, err := pack.Encode(m)
	if err != nil {
		return nil, err
	}
	m.Hash = h.String()
	return m, nil
}

// sideError puts the side's label before every line of an error, keeping
// its exit code and hints.
func sideError(label string, err error) error {
	if err == nil {
		return nil
	}
	var ce *cli.Error
	if errors.As(err, &ce) && ce.Err != nil {
		out := &cli.Error{Code: ce.Code, Err: prefixLines(label, ce.Err), Hints: ce.Hints}
		return out
	}
	var se *pack.SyntaxError
	if errors.As(err, &se) {
		return cli.Errorf(cli.ExitTrouble, "%s: %v", label, se)
	}
	return &cli.Error{Code: cli.ExitTrouble, Err: prefixLines(label, err)}
}

// prefixLines prefixes each line of err's message, so every problem of an
// invalid log says which side it is in.
func prefixLines(label string, err error) error {
	lines := strings.Split(strings.TrimRight(err.Error(), "\n"), "\n")
	for i, line := range lines {
		lines[i] = label + ": " + line
	}
	return errors.New(strings.Join(lines, "\n"))
}
