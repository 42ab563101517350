package store_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contextsubstrate/ctx/lib/bundle"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// A power loss keeps what was synced and may keep or lose anything else:
// the bytes of a file written since its last sync, a name linked or
// renamed since its directory's last sync. These tests record, through the
// fault hook, every write, sync, link and rename of a pack, a stream of
// packs and an import, and hold the order to that model:
//
//   - an object gets its name only once its bytes are durable (no file
//     synced, no syncfs since its temporary file was written): a power
//     loss never leaves a short or empty file under an object's name;
//   - a ref is renamed into place only once its new content is durable;
//   - a pack is named (its index record appended, a ref renamed) only
//     once its manifest and every object the manifest names are visible
//     and their names durable (their directory synced, or the filesystem,
//     after the link), and a manifest is visible only once the objects it
//     names are.
//
// So whatever a power loss keeps, every name it keeps resolves.

// event is one write, sync, link or rename of the store.
type event struct{ op, path string }

// recorder is the fault hook that records the events and checks, as they
// come, that a name is given only to durable bytes.
type recorder struct {
	t      *testing.T
	root   string
	mu     sync.Mutex
	events []event
	dirty  map[string]bool // files written since their last sync
	bad    []string
}

func record(t *testing.T, st *store.Store) *recorder {
	r := &recorder{t: t, root: st.Root(), dirty: map[string]bool{}}
	store.SetFaults(st, r.hook)
	return r
}

func (r *recorder) hook(op, path string, _ int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{op, path})
	rel, _ := filepath.Rel(r.root, path)
	rel = filepath.ToSlash(rel)
	switch op {
	case "write":
		r.dirty[path] = true
	case "sync":
		if path == r.root {
			r.dirty = map[string]bool{} // syncfs: everything
		} else {
			delete(r.dirty, path)
		}
	case "link":
		r.linked(rel)
	case "rename":
		if strings.HasPrefix(rel, "refs/") {
			for p := range r.dirty {
				if filepath.Dir(p) == filepath.Dir(path) {
					r.bad = append(r.bad, fmt.Sprintf("%s renamed into place while %s, its new content, was not synced", rel, filepath.Base(p)))
				}
			}
		}
	}
	return nil
}

// linked checks that the object, or packfile, about to get the name rel
// has no unsynced temporary file: the one that holds its bytes is found
// by its content.
func (r *recorder) linked(rel string) {
	parts := strings.Split(rel, "/")
	if len(parts) != 3 || parts[0] != "objects" {
		return
	}
	for p := range r.dirty {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone: renamed already, or removed
		}
		var holds bool
		switch name := parts[2]; {
		case strings.HasSuffix(name, ".pack"):
			holds = store.Sum(b).Hex()+".pack" == name
		case strings.HasSuffix(name, ".idx"):
			ix, err := store.ParsePackfileIndex(b)
			holds = err == nil && ix.Packfile.Hex()+".idx" == name
		default:
			holds = store.Sum(b).Hex() == parts[1]+parts[2]
		}
		if holds {
			r.bad = append(r.bad, fmt.Sprintf("%s linked while its bytes (%s) were not synced", rel, filepath.Base(p)))
		}
	}
}

// check holds the events to the model for each pack of packs: from the
// first event that can name it (an append to the index log, a ref
// renamed) after its manifest became visible, back.
func (r *recorder) check(st *store.Store, packs []store.Hash, existed map[store.Hash]bool) {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bad {
		r.t.Error(b)
	}
	// Where each object became visible: its own link, or the .idx of the
	// packfile that holds it.
	visible := func(h store.Hash) (int, string) {
		loose, _ := filepath.Rel(r.root, st.ObjectPath(h))
		loose = filepath.ToSlash(loose)
		for i, e := range r.events {
			rel, _ := filepath.Rel(r.root, e.path)
			rel = filepath.ToSlash(rel)
			if e.op != "link" {
				continue
			}
			if rel == loose {
				return i, filepath.Dir(e.path)
			}
			if name, ok := strings.CutSuffix(rel, ".idx"); ok && strings.HasPrefix(rel, "objects/packed/") {
				ix, err := st.ReadPackfileIndex(strings.TrimPrefix(name, "objects/packed/"))
				if err != nil {
					continue
				}
				for _, pe := range ix.Entries {
					if pe.Hash == h {
						return i, filepath.Dir(e.path)
					}
				}
			}
		}
		return -1, ""
	}
	// durable reports whether the name made at event i in dir was synced
	// before event j.
	durable := func(i int, dir string, j int) bool {
		for k := i + 1; k < j; k++ {
			if e := r.events[k]; e.op == "sync" && (e.path == dir || e.path == r.root) {
				return true
			}
		}
		return false
	}
	for _, p := range packs {
		m, err := pack.Load(st, p)
		if err != nil {
			r.t.Errorf("pack %s: %v", p, err)
			continue
		}
		mi, mdir := visible(p)
		if mi < 0 {
			if !existed[p] {
				r.t.Errorf("pack %s: its manifest never became visible", p)
			}
			continue
		}
		named := -1
		for k := mi + 1; k < len(r.events); k++ {
			e := r.events[k]
			rel, _ := filepath.Rel(r.root, e.path)
			if (e.op == "write" && strings.HasPrefix(filepath.Base(e.path), store.IndexLogPrefix)) || (e.op == "rename" && strings.HasPrefix(filepath.ToSlash(rel), "refs/")) {
				named = k
				break
			}
		}
		if named < 0 {
			r.t.Errorf("pack %s: never named", p)
			continue
		}
		if !durable(mi, mdir, named) {
			r.t.Errorf("pack %s: named (event %d, %v) before its manifest's name (event %d) was synced", p, named, r.events[named], mi)
		}
		for _, ref := range m.Refs() {
			bi, bdir := visible(ref.Hash)
			switch {
			case bi < 0 && existed[ref.Hash]:
			case bi < 0:
				r.t.Errorf("pack %s: %s (%s) never became visible", p, ref.Hash, ref.Where)
			case bi > mi || (bi < mi && bdir != mdir && !durable(bi, bdir, mi)):
				r.t.Errorf("pack %s: its manifest visible (event %d) before %s (%s, event %d) was durable", p, mi, ref.Hash, ref.Where, bi)
			}
		}
	}
}

// present lists the objects a store has before the recorded work.
func present(t *testing.T, st *store.Store) map[store.Hash]bool {
	t.Helper()
	names, _, err := st.ObjectNames()
	if err != nil {
		t.Fatal(err)
	}
	out := map[store.Hash]bool{}
	for _, h := range names {
		out[h] = true
	}
	return out
}

func TestPackOnlyNamesWhatIsDurable(t *testing.T) {
	root, log := faultRun(t)
	st := newStore(t)
	// A pack before, whose objects the recorded one deduplicates.
	if _, err := packRun(st, root, []byte(strings.Replace(string(log), "fix the build", "fix the tests", 1))); err != nil {
		t.Fatal(err)
	}
	existed := present(t, st)
	r := record(t, st)
	h, err := packRun(st, root, log)
	if err != nil {
		t.Fatal(err)
	}
	r.check(st, []store.Hash{h}, existed)
}

func TestStreamOnlyNamesWhatIsDurable(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, `{"event":"run","created":"2026-03-01T00:00:00Z","model":{"identifier":"m"}}`+"\n")
		fmt.Fprintf(&b, `{"event":"prompt","content":"task %d"}`+"\n", i)
		fmt.Fprintf(&b, `{"event":"step","tool":"read_file","parameters":{"path":"a"},"output":"out %d"}`+"\n", i)
		fmt.Fprintf(&b, `{"event":"step","tool":"bash","parameters":{},"output":%q}`+"\n", strings.Repeat("large ", 200000+i))
	}
	st := newStore(t)
	existed := present(t, st)
	r := record(t, st)
	packs, err := packStream(st, b.String())
	if err != nil || len(packs) != 40 {
		t.Fatalf("%d packs, %v", len(packs), err)
	}
	r.check(st, packs, existed)
}

func TestImportOnlyNamesWhatIsDurable(t *testing.T) {
	root, log := faultRun(t)
	want, tarball := exportedRun(t, root, log)
	st := newStore(t)
	existed := present(t, st)
	r := record(t, st)
	batch := st.NewBatch()
	if _, err := bundle.Import(bytes.NewReader(tarball.Bytes()), st, batch); err != nil {
		t.Fatal(err)
	}
	r.check(st, []store.Hash{want}, existed)
}

// Another writer links objects and has not synced their directory yet
// when a pack deduplicates them: the pack's commit syncs those
// directories before its manifest may name them.
func TestDedupSyncsWhatItNames(t *testing.T) {
	root, log := faultRun(t)
	st := newStore(t)
	r := record(t, st)
	// As the other writer's commit leaves them between its links and its
	// sync: bytes durable, names not yet.
	for _, content := range []string{"be careful", "package a\n", "ok\n"} {
		h := store.Sum([]byte(content))
		p := st.ObjectPath(h)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o444); err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		r.events = append(r.events, event{"link", p})
		r.mu.Unlock()
	}
	h, err := packRun(st, root, log)
	if err != nil {
		t.Fatal(err)
	}
	r.check(st, []store.Hash{h}, map[store.Hash]bool{})
}
