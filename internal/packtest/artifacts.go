package packtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Artifacts is a directory with a store in it (.ctx) and a pack whose
// outputs are files of the directory, as ctx pack finds them: what the
// tests of sidecars and of ctx verify start from.
type Artifacts struct {
	Dir      string
	Store    *store.Store
	Manifest *pack.Manifest
	Result   *pack.Result
}

// NewArtifacts writes files (name -> content) into a new directory,
// makes a store there and packs log (a JSON execution log) with the
// directory as its root.
func NewArtifacts(t testing.TB, log string, files map[string]string) *Artifacts {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(dir, store.Dir)
	if _, err := store.Init(root); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	a := &Artifacts{Dir: dir, Store: st}
	a.Result, a.Manifest = a.Pack(t, log)
	return a
}

// Pack packs another log into the store, with the directory as its root:
// the result (the artifacts found) and the manifest, loaded back.
func (a *Artifacts) Pack(t testing.TB, log string) (*pack.Result, *pack.Manifest) {
	t.Helper()
	res, m, err := save(a.Store, log, a.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return res, m
}

// Path is where the file name (slash-separated) of the directory is.
func (a *Artifacts) Path(name string) string { return filepath.Join(a.Dir, filepath.FromSlash(name)) }

// Read reads the file name of the directory.
func (a *Artifacts) Read(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(a.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Write writes the file name of the directory.
func (a *Artifacts) Write(t testing.TB, name, content string) {
	t.Helper()
	if err := os.WriteFile(a.Path(name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TwoOutputs is a log whose two outputs are files: a.md, with its content
// in the log, confidence and notes, and b.md, found at its path.
const TwoOutputs = `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],
 "inputs":[{"name":"in.txt","content":"in"},{"name":"copy.txt","content":"in"}],
 "steps":[{"tool":"read_file","parameters":{"path":"in.txt"},"output":"in"},
          {"type":"model_call","tool":"m","output":"thinking"},
          {"tool":"write_file","output":"ok"},{"tool":"read_file","output":"in"}],
 "outputs":[{"name":"a.md","content":"A\n","confidence":"high","notes":"from a template"},
            {"name":"b.md","path":"b.md"}]}`

// TwoArtifacts is NewArtifacts of TwoOutputs, with a.md and b.md as the
// log says.
func TwoArtifacts(t testing.TB) *Artifacts {
	t.Helper()
	return NewArtifacts(t, TwoOutputs, map[string]string{"a.md": "A\n", "b.md": "B\n"})
}
