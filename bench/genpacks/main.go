// Command genpacks fills a store with many small packs for the benchmarks
// (bench/log.sh). It writes the documented layout directly (objects/ab/cd...,
// packs/<hex>) without syncing, because a benchmark fixture need not survive
// a crash and ten thousand synced packs would take minutes to make.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genpacks:", err)
		os.Exit(2)
	}
}

func run() error {
	dir := flag.String("store", ".ctx", "the `.ctx` directory to create or fill")
	n := flag.Int("n", 10000, "how many packs to make")
	flag.Parse()
	if err := os.MkdirAll(filepath.Dir(*dir), 0o755); err != nil {
		return err
	}
	if _, err := store.Init(*dir); err != nil {
		return err
	}
	st, err := store.Open(*dir)
	if err != nil {
		return err
	}
	put := func(b []byte) (store.Hash, error) {
		h := store.Sum(b)
		p := st.ObjectPath(h)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return h, err
		}
		if _, err := os.Stat(p); err == nil {
			return h, nil
		}
		return h, os.WriteFile(p, b, 0o444)
	}
	models := []string{"claude-opus-4-6", "gpt-4o", "gemini-2.5-pro"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var last store.Hash
	for i := 0; i < *n; i++ {
		prompt, err := put([]byte(fmt.Sprintf("task %d: fix the failing test\n", i)))
		if err != nil {
			return err
		}
		m := &pack.Manifest{
			Version: pack.Version,
			// Every tenth pack shares its created time with the one before,
			// so the tie-break on the time stored is exercised too.
			Created:     base.Add(time.Duration(i-i%10/9) * time.Minute).Format(time.RFC3339),
			Model:       pack.Model{Identifier: models[i%len(models)], Parameters: json.RawMessage(`{"temperature":0}`)},
			Prompts:     []pack.Prompt{{Role: "user", ContentRef: prompt}},
			Inputs:      []pack.File{},
			Outputs:     []pack.Output{},
			Environment: json.RawMessage(`{"os":"linux"}`),
		}
		for s := 0; s < 1+i%7; s++ {
			out := []byte(fmt.Sprintf("output of step %d of run %d\n", s, i))
			h, err := put(out)
			if err != nil {
				return err
			}
			size := int64(len(out))
			m.Steps = append(m.Steps, pack.Step{Index: s, Type: "tool_call", Tool: "read_file",
				Parameters: json.RawMessage(fmt.Sprintf(`{"path":"src/f%d.go"}`, s)), OutputRef: &h, OutputSize: &size, Deterministic: true})
		}
		canon, h, err := pack.Encode(m)
		if err != nil {
			return err
		}
		if _, err := put(canon); err != nil {
			return err
		}
		entry, _ := json.Marshal(pack.NewIndexEntry(h, m, base.Add(time.Duration(i)*time.Second)))
		if err := st.WriteIndex(h, append(entry, '\n')); err != nil {
			return err
		}
		last = h
	}
	return st.WriteRef(store.LatestRef, last)
}
