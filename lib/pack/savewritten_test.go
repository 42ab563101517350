package pack_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// SaveWritten stores the logs a writer writes as ctx pack - stores them
// from a file: the same packs; the writer's own failure comes first and
// stores nothing of the log it cut short; a log the store refuses stops
// the writer and names the log.
func TestSaveWritten(t *testing.T) {
	logs := `{"event":"run","model":{"identifier":"m"},"metadata":{"task":"a"}}
{"event":"step","tool":"x","output":"one"}
{"event":"run","model":{"identifier":"m"},"metadata":{"task":"b"}}
{"event":"step","tool":"x","output":"two"}
`
	save := func(st *store.Store, write func(io.Writer) error) ([]store.Hash, error) {
		var got []store.Hash
		err := pack.SaveWritten(st, write, pack.SaveOptions{Options: pack.Options{Store: st}, Source: "the writer"},
			func(_ *pack.Result, p pack.Published) error {
				got = append(got, p.Hash)
				return nil
			})
		return got, err
	}
	st := storetest.New(t)
	var fromFile []store.Hash
	if err := pack.SaveLogs(st, pack.NewLogs(strings.NewReader(logs)), pack.SaveOptions{Options: pack.Options{Store: st}, Source: "file"},
		func(_ *pack.Result, p pack.Published) error { fromFile = append(fromFile, p.Hash); return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := save(storetest.New(t), func(w io.Writer) error {
		for _, line := range strings.SplitAfter(logs, "\n") {
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(fromFile) {
		t.Errorf("written: %v, %v; from the file: %v", got, err, fromFile)
	}

	failed := errors.New("the transcript breaks off")
	st = storetest.New(t)
	got, err = save(st, func(w io.Writer) error {
		_, _ = io.WriteString(w, strings.Join(strings.SplitAfter(logs, "\n")[:3], ""))
		return failed
	})
	if !errors.Is(err, failed) || len(got) != 1 {
		t.Errorf("a writer that fails: %v, %d packs; want its error, the first log stored", err, len(got))
	}

	wrote := 0
	got, err = save(storetest.New(t), func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"event":"run","model":{"identifier":"m"}}`+"\n"+`{"event":"step","tool":"x","output":"a","bogus":[}`+"\n"); err != nil {
			return err
		}
		for {
			if _, err := io.WriteString(w, `{"event":"step","tool":"x","output":"more"}`+"\n"); err != nil {
				return err
			}
			wrote++
		}
	})
	if err == nil || !strings.Contains(err.Error(), "the writer") || len(got) != 0 {
		t.Errorf("a log the store refuses: %v, %d packs, after %d lines; want the store's error naming the log", err, len(got), wrote)
	}
}

// The subject of a pack just built is the build's: the first prompt that
// is not a system prompt, its first line, with the prompt never read back.
// A prompt given by path is read back from the store, and gives the same.
func TestSubjectFromTheBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.txt"), []byte("\n  fix the parser  \nmore"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prompt := range []string{`"content":"\n  fix the parser  \nmore"`, `"content_base64":"CiAgZml4IHRoZSBwYXJzZXIgIAptb3Jl"`, `"path":"p.txt"`} {
		log := `{"event":"run","model":{"identifier":"m"}}
{"event":"prompt","role":"system","content":"you are a system"}
{"event":"prompt",` + prompt + `}
{"event":"prompt","content":"a later prompt"}
{"event":"step","tool":"x","output":"a"}
`
		res, err := pack.Build(strings.NewReader(log), pack.HashSink{}, pack.Options{Root: dir})
		if err != nil {
			t.Fatal(err)
		}
		empty := storetest.New(t) // holds no prompt: only the build can tell
		fromBuild := pack.Subject(empty, res.Manifest)
		st := storetest.New(t)
		_, pub, err := pack.Save(st, strings.NewReader(log), pack.SaveOptions{Options: pack.Options{Root: dir, Store: st}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := pack.Load(st, pub.Hash)
		if err != nil {
			t.Fatal(err)
		}
		fromStore := pack.Subject(st, m)
		if fromStore != "fix the parser" {
			t.Errorf("%s: the subject read from the store is %q", prompt, fromStore)
		}
		if want := fromStore; strings.HasPrefix(prompt, `"path"`) {
			want = "" // by path: the build has no bytes; the empty store has none
			if fromBuild != want {
				t.Errorf("%s: the subject is %q, want %q", prompt, fromBuild, want)
			}
		} else if fromBuild != want {
			t.Errorf("%s: the subject from the build is %q, want %q", prompt, fromBuild, want)
		}
	}
}

// A Saver's AddWritten builds the log a writer writes with the options of
// that run: its extra inputs before the log's own (by content_ref, the
// log's inputs numbered after them), and a parent in place of the log's.
// The writer's failure comes first and stores nothing of its log; the
// runs before it are stored.
func TestSaverAddWritten(t *testing.T) {
	st := storetest.New(t)
	kept, _, err := st.PutObject([]byte("kept apart\n"))
	if err != nil {
		t.Fatal(err)
	}
	parent, _, err := st.PutObject([]byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	saver, err := pack.NewSaver(st, pack.SaveOptions{Options: pack.Options{Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	log := `{"event":"run","model":{"identifier":"m"},"parent":"sha256:` + strings.Repeat("0", 64) + `"}
{"event":"input","name":"own.txt","content":"own"}
{"event":"input","name":"own.txt","content":"twice"}
`
	write := func(s string, err error) func(io.Writer) error {
		return func(w io.Writer) error {
			if _, werr := io.WriteString(w, s); werr != nil {
				return werr
			}
			return err
		}
	}
	opts := pack.Options{Store: st, Parent: &parent, Inputs: []pack.InputEvent{
		{Event: "input", Name: "apart.txt", Content: pack.Content{ContentRef: kept.String()}},
	}}
	// The log names own.txt twice: the problem is numbered as the pack's
	// inputs are, after the one added.
	_, err = saver.AddWritten(write(log, nil), "the writer", opts)
	if err == nil || !strings.Contains(err.Error(), `inputs[2].name: "own.txt" is also the name of inputs[1]`) {
		t.Fatalf("AddWritten of a log naming an input twice: %v", err)
	}
	one := strings.Join(strings.SplitAfter(log, "\n")[:2], "")
	if _, err := saver.AddWritten(write(one, nil), "the writer", opts); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the transcript breaks off")
	saved, err := saver.AddWritten(write(one, failed), "the broken writer", opts)
	if !errors.Is(err, failed) || len(saved) != 1 {
		t.Fatalf("AddWritten of a writer that fails: %v, %d packs handed back, want its error and the run before it", err, len(saved))
	}
	more, err := saver.Close()
	if err != nil || len(more) != 0 {
		t.Fatalf("Close: %v, %d more", err, len(more))
	}
	m, err := pack.Load(st, saved[0].Published.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Inputs) != 2 || m.Inputs[0].Name != "apart.txt" || m.Inputs[0].ContentRef != kept || m.Inputs[1].Name != "own.txt" {
		t.Errorf("inputs: %+v, want apart.txt (the run's) then own.txt (the log's)", m.Inputs)
	}
	if m.Parent == nil || *m.Parent != parent {
		t.Errorf("parent: %v, want %s (the run's, not the log's)", m.Parent, parent)
	}
}
