package fsck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

func packLog(t testing.TB, st *store.Store, log string) store.Hash {
	return packtest.Hash(t, packtest.Pack(t, st, log))
}

func tryPack(st *store.Store, log, root string) (store.Hash, error) {
	m, err := packtest.Try(st, log, root)
	if err != nil {
		return store.Hash{}, err
	}
	return store.ParseRef(m.Hash)
}

func logN(i int) string {
	return fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m%d"},
"prompts":[{"role":"user","content":"task %d"}],
"inputs":[{"name":"shared.txt","content":"shared\n"},{"name":"own.txt","content":"own %d\n"}],
"steps":[{"tool":"read_file","parameters":{"path":"own.txt"},"output":"own %d\n"}]}`, i, i, i, i)
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	os.Chmod(path, 0o644)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func kinds(rep *Report) string {
	var out []string
	for _, p := range rep.Problems {
		out = append(out, p.Kind+" "+logName().ReplaceAllString(p.Object, "index-*.log"))
	}
	return strings.Join(out, "\n")
}

// logName matches the name of an index log, which is random.
func logName() *regexp.Regexp { return regexp.MustCompile(`index-[0-9a-f]{16}\.log`) }

// indexLog is the path of st's one index log.
func indexLog(t *testing.T, st *store.Store) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(st.Root(), "packs", store.IndexLogPrefix+"*"+store.IndexLogSuffix))
	if len(logs) != 1 {
		t.Fatalf("index logs: %v", logs)
	}
	return logs[0]
}

// Each kind of damage gives exactly the problems it should, naming what it
// should.
func TestCheckFindsEachDamage(t *testing.T) {
	shared := store.Sum([]byte("shared\n"))
	tests := []struct {
		name    string
		damage  func(t *testing.T, st *store.Store, a store.Hash)
		want    func(a store.Hash) string
		earlier bool // on the index as earlier versions wrote it, a file per pack
	}{
		{"intact", func(*testing.T, *store.Store, store.Hash) {}, func(store.Hash) string { return "" }, false},
		{"corrupt blob", func(t *testing.T, st *store.Store, a store.Hash) {
			write(t, st.ObjectPath(shared), []byte("SHARED\n"))
		}, func(store.Hash) string { return "corrupt " + shared.String() }, false},
		{"missing blob", func(t *testing.T, st *store.Store, a store.Hash) {
			os.Remove(st.ObjectPath(shared))
		}, func(store.Hash) string { return "missing " + shared.String() }, false},
		{"corrupt manifest", func(t *testing.T, st *store.Store, a store.Hash) {
			b, _ := st.ReadAll(a)
			write(t, st.ObjectPath(a), append(b[:len(b)-1], ' '))
		}, func(a store.Hash) string { return "corrupt " + a.String() }, false},
		{"missing manifest", func(t *testing.T, st *store.Store, a store.Hash) {
			os.Remove(st.ObjectPath(a))
		}, func(a store.Hash) string { return "missing " + a.String() }, false},
		{"index entry removed", func(t *testing.T, st *store.Store, a store.Hash) {
			os.Remove(filepath.Join(st.Root(), "packs", a.Hex()))
		}, func(a store.Hash) string { return "unindexed " + a.String() }, true},
		{"index entry names another pack", func(t *testing.T, st *store.Store, a store.Hash) {
			write(t, filepath.Join(st.Root(), "packs", a.Hex()), []byte(`{"hash":"`+shared.String()+`"}`))
		}, func(a store.Hash) string { return "bad_index packs/" + a.Hex() }, true},
		{"index entry taken out of the log", func(t *testing.T, st *store.Store, a store.Hash) {
			if err := st.DeleteIndex(a); err != nil {
				t.Fatal(err)
			}
		}, func(a store.Hash) string { return "unindexed " + a.String() }, false},
		{"index log record damaged", func(t *testing.T, st *store.Store, a store.Hash) {
			p := indexLog(t, st)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(string(b), `"model":"m1"`)
			b[i+len(`"model":"m`)] = '2'
			write(t, p, b)
		}, func(a store.Hash) string { return "unindexed " + a.String() }, false},
		{"index entry in the log names another pack", func(t *testing.T, st *store.Store, a store.Hash) {
			if err := st.WriteIndex(a, []byte(`{"hash":"`+shared.String()+`"}`)); err != nil {
				t.Fatal(err)
			}
		}, func(a store.Hash) string { return "bad_index packs/index-*.log" }, false},
		{"index entry in the log is stale", func(t *testing.T, st *store.Store, a store.Hash) {
			b, err := st.ReadIndex(a)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.WriteIndex(a, []byte(strings.Replace(string(b), `"steps":1`, `"steps":2`, 1))); err != nil {
				t.Fatal(err)
			}
		}, func(a store.Hash) string { return "bad_index packs/index-*.log" }, false},
		{"symlinked index log", func(t *testing.T, st *store.Store, a store.Hash) {
			p := indexLog(t, st)
			os.Remove(p)
			if err := os.Symlink("/etc/passwd", p); err != nil {
				t.Fatal(err)
			}
		}, func(a store.Hash) string {
			return "unreadable packs/\nsymlink packs/index-*.log\nunindexed " + a.String()
		}, false},
		{"index entry for a blob", func(t *testing.T, st *store.Store, a store.Hash) {
			write(t, filepath.Join(st.Root(), "packs", shared.Hex()), []byte(`{"hash":"`+shared.String()+`"}`))
		}, func(store.Hash) string { return "bad_index packs/" + shared.Hex() }, false},
		{"blob that looks like a manifest", func(t *testing.T, st *store.Store, a store.Hash) {
			b := st.NewBatch()
			if _, err := b.PutBytes([]byte(`{"created":"yesterday","model":"not a manifest"}`)); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}, func(store.Hash) string { return "" }, false},
		{"tmp directory missing", func(t *testing.T, st *store.Store, a store.Hash) {
			os.Remove(filepath.Join(st.Root(), "tmp"))
		}, func(store.Hash) string { return "layout tmp/" }, false},
		{"config damaged", func(t *testing.T, st *store.Store, a store.Hash) {
			write(t, st.ConfigPath(), []byte(`{"version": 2}`))
		}, func(store.Hash) string { return "layout config.json" }, false},
		{"old temporary file", func(t *testing.T, st *store.Store, a store.Hash) {
			p := filepath.Join(st.Root(), "tmp", "obj-1")
			write(t, p, nil)
			old := time.Now().Add(-48 * time.Hour)
			os.Chtimes(p, old, old)
		}, func(store.Hash) string { return "tmp tmp/obj-1" }, false},
		{"fresh temporary file", func(t *testing.T, st *store.Store, a store.Hash) {
			write(t, filepath.Join(st.Root(), "refs", ".tmp-1"), nil)
		}, func(store.Hash) string { return "" }, false},
		{"draft and unknown files", func(t *testing.T, st *store.Store, a store.Hash) {
			write(t, filepath.Join(st.DraftsDir(), "x.json"), []byte("{}"))
			write(t, filepath.Join(st.Root(), "description"), []byte("mine"))
		}, func(store.Hash) string { return "" }, false},
		{"file where refs/ belongs", func(t *testing.T, st *store.Store, a store.Hash) {
			if err := os.RemoveAll(filepath.Join(st.Root(), "refs")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(st.Root(), "refs"), []byte("x"))
		}, func(store.Hash) string { return "stray refs" }, false},
		{"symlinked index entry", func(t *testing.T, st *store.Store, a store.Hash) {
			p := filepath.Join(st.Root(), "packs", a.Hex())
			os.Remove(p)
			if err := os.Symlink("/etc/passwd", p); err != nil {
				t.Fatal(err)
			}
		}, func(a store.Hash) string { return "symlink packs/" + a.Hex() + "\nunindexed " + a.String() }, true},
		{"symlink in drafts", func(t *testing.T, st *store.Store, a store.Hash) {
			if err := os.Symlink("/etc/passwd", filepath.Join(st.DraftsDir(), "x.json")); err != nil {
				t.Fatal(err)
			}
		}, func(store.Hash) string { return "symlink drafts/x.json" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := storetest.New(t)
			a := packLog(t, st, logN(1))
			if tt.earlier {
				st = storetest.EarlierIndex(t, st)
			}
			tt.damage(t, st, a)
			// Two minutes on, so the pack is not taken for one being
			// published now.
			rep, err := Check(st, Options{TmpAge: time.Hour, Now: time.Now().Add(2 * time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want(a)
			if got := kinds(rep); got != want {
				t.Fatalf("problems:\n%s\nwant:\n%s\nreport: %+v", got, want, rep.Problems)
			}
			if rep.OK != (want == "") {
				t.Errorf("ok = %v", rep.OK)
			}
		})
	}
}

// fsck run while packs are being written reports nothing: fresh temporary
// files belong to the writers, and a pack is never seen half published.
func TestCheckDuringConcurrentPacks(t *testing.T) {
	st := storetest.New(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	root := t.TempDir()
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := tryPack(st, logN(w*100000+i), root); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	for i := 0; i < 10; i++ {
		rep, err := Check(st, Options{TmpAge: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK {
			close(stop)
			wg.Wait()
			t.Fatalf("problems while packing: %+v", rep.Problems)
		}
	}
	close(stop)
	wg.Wait()
	rep, err := Check(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Packs == 0 {
		t.Fatalf("after packing: %d packs, problems %+v", rep.Packs, rep.Problems)
	}
}

// Repairs change only index entries and temporary files, and a repaired
// problem is no longer reported.
func TestRepair(t *testing.T) {
	for _, earlier := range []bool{false, true} {
		t.Run(fmt.Sprintf("earlier=%v", earlier), func(t *testing.T) { testRepair(t, earlier) })
	}
}

func testRepair(t *testing.T, earlier bool) {
	st := storetest.New(t)
	a := packLog(t, st, logN(1))
	b := packLog(t, st, logN(2))
	if earlier {
		st = storetest.EarlierIndex(t, st)
		os.Remove(filepath.Join(st.Root(), "packs", a.Hex()))
		write(t, filepath.Join(st.Root(), "packs", b.Hex()), []byte("{"))
	} else {
		if err := st.DeleteIndex(a); err != nil {
			t.Fatal(err)
		}
		if err := st.WriteIndex(b, []byte("{")); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(st.ObjectPath(store.Sum([]byte("own 2\n"))))
	tmp := filepath.Join(st.Root(), "tmp", "obj-9")
	write(t, tmp, nil)

	rep, err := Check(st, Options{RepairIndex: true, PruneTmp: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(rep), "missing "+store.Sum([]byte("own 2\n")).String(); got != want {
		t.Fatalf("problems after repair:\n%s\nwant:\n%s", got, want)
	}
	// Two entries, the temporary file, and the index rewritten as one log
	// (the earlier version's remaining file folded in).
	if len(rep.Repaired) != 4 || !strings.HasPrefix(rep.Repaired[3].Detail, "rewrote the index as one log of 2 entries") {
		t.Fatalf("repaired = %+v", rep.Repaired)
	}
	if earlier != strings.Contains(rep.Repaired[3].Detail, "1 file of packs/ folded in") {
		t.Fatalf("compaction: %s", rep.Repaired[3].Detail)
	}
	if ents, _ := os.ReadDir(filepath.Join(st.Root(), "packs")); len(ents) != 1 || !logName().MatchString(ents[0].Name()) {
		t.Fatalf("packs/ after --repair-index: %v", ents)
	}
	for _, h := range []store.Hash{a, b} {
		raw, err := st.ReadIndex(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pack.ParseIndexEntry(h, raw); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("temporary file not pruned: %v", err)
	}
}

// A damaged object many packs share is one problem, naming three of them
// in a stable order and counting the rest.
func TestDamagedSharedObjectIsOneProblem(t *testing.T) {
	st := storetest.New(t)
	for i := range 5 {
		packLog(t, st, logN(i))
	}
	shared := store.Sum([]byte("shared\n"))
	write(t, st.ObjectPath(shared), []byte("SHARED\n"))
	later := Options{Now: time.Now().Add(time.Hour)}
	one, err := Check(st, later)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Check(st, later)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Problems) != 1 || one.Problems[0].Kind != Corrupt || one.Problems[0] != two.Problems[0] {
		t.Fatalf("problems: %+v then %+v", one.Problems, two.Problems)
	}
	if d := one.Problems[0].Detail; strings.Count(d, "named by pack") != 1 || strings.Count(d, "; pack ") != 2 || !strings.HasSuffix(d, "; and 2 more") {
		t.Fatalf("detail = %s", d)
	}
}

// An object the walk finds missing and a writer stores again before fsck
// reports it is not missing: ctx gc deleted a removed pack's blobs, the
// same run was packed again meanwhile, and fsck read its manifest between
// the two. Before, fsck asked only whether the manifest naming the object
// was still there, and reported present objects as missing.
func TestObjectStoredAgainIsNotMissing(t *testing.T) {
	st := storetest.New(t)
	const content = "a blob gc deleted and a writer stored again\n"
	packLog(t, st, `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "m"}, "prompts": [], "inputs": [{"name": "a.txt", "content": "`+strings.TrimSuffix(content, "\n")+`\n"}], "steps": []}`)
	blob := store.Sum([]byte(content))
	if err := os.Remove(st.ObjectPath(blob)); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(st, Options{afterWalk: func() {
		if _, _, err := st.PutObject([]byte(content)); err != nil {
			t.Error(err)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("problems for an object present when fsck ended: %+v", rep.Problems)
	}
	// Still missing at the end: reported.
	if err := os.Remove(st.ObjectPath(blob)); err != nil {
		t.Fatal(err)
	}
	rep, err = Check(st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Kind != Missing || rep.Problems[0].Object != blob.String() {
		t.Fatalf("a missing object: %+v", rep.Problems)
	}
}
