package ctx_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/convert"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// TestSameHashes holds ctx pack's streamed manifest (steps kept in a
// scratch file, the manifest hashed while written) to the manifest built
// and encoded in memory: for the bundled example runs and for a log
// converted from every transcript of the corpus, the two give the same
// pack hash, byte for byte the same manifest.
func TestSameHashes(t *testing.T) {
	type log struct {
		name string
		root string
		data []byte
	}
	var logs []log
	runs, _ := filepath.Glob("examples/runs/*/run.json")
	for _, p := range runs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, log{p, filepath.Dir(p), b})
	}
	err := filepath.Walk("testdata/corpus", func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.HasSuffix(p, ".txt") || strings.HasSuffix(p, ".md") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		var out bytes.Buffer
		if _, err := convert.Convert(f, f, &out, convert.Options{Model: "corpus-model"}); err != nil {
			return nil // not a transcript on its own (a fixture's part)
		}
		logs = append(logs, log{p, t.TempDir(), out.Bytes()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) < 20 {
		t.Fatalf("only %d logs found", len(logs))
	}
	st := storetest.New(t)
	packed := 0
	for _, l := range logs {
		// Several logs one after another are several packs.
		want := inMemoryHashes(t, l.data, l.root, st)
		if len(want) == 0 {
			continue
		}
		var got []store.Hash
		logsIn := pack.NewLogs(bytes.NewReader(l.data))
		for r := logsIn.Next(); r != nil; r = logsIn.Next() {
			_, pub, err := pack.Save(st, r, pack.SaveOptions{Options: pack.Options{Root: l.root, Store: st}, Source: l.name})
			if err != nil {
				got = append(got, store.Hash{})
				continue
			}
			got = append(got, pub.Hash)
			b, err := st.ReadAll(pub.Hash)
			if err != nil {
				t.Fatalf("%s: %v", l.name, err)
			}
			if _, err := pack.Parse(b); err != nil {
				t.Fatalf("%s: the streamed manifest does not parse: %v", l.name, err)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d packs streamed, %d built in memory", l.name, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s, log %d: streamed %s, in memory %s", l.name, i+1, got[i], want[i])
			}
			if got[i] != (store.Hash{}) {
				packed++
			}
		}
	}
	if packed < 20 {
		t.Fatalf("only %d logs packed", packed)
	}
	t.Logf("%d logs, %d packs: the same hashes", len(logs), packed)
}

// inMemoryHashes builds each log of data with its steps in memory and
// returns the hash Encode gives (zero for a log Build refuses).
func inMemoryHashes(t *testing.T, data []byte, root string, st *store.Store) []store.Hash {
	var out []store.Hash
	logs := pack.NewLogs(bytes.NewReader(data))
	for r := logs.Next(); r != nil; r = logs.Next() {
		res, err := pack.Build(r, pack.HashSink{}, pack.Options{Root: root, Store: st})
		if err != nil {
			out = append(out, store.Hash{})
			continue
		}
		if res.Manifest.NumSteps() != len(res.Manifest.Steps) {
			t.Fatalf("a manifest built without Scratch has its steps elsewhere")
		}
		_, h, err := pack.Encode(res.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}
