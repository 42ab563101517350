package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
)

// benchEnv knows where the programs are and where to put data.
type benchEnv struct {
	bin  string
	work string
}

// ctx returns the argv of `ctx VERB ARGS...`, calling ctx-VERB directly so
// the figures are the verb's own (dispatch has a row of its own).
func (e benchEnv) ctx(verb string, args ...string) []string {
	return append([]string{filepath.Join(e.bin, "ctx-"+verb)}, args...)
}

// Tree sizes of the pack workloads: at least 10,000 files and 150 MB.
const (
	treeFiles = 10000
	treeBytes = 150 << 20
	bigFile   = 1 << 30
)

func (e benchEnv) workloads() []workload {
	var ws []workload
	ws = append(ws, e.packTree()...)
	ws = append(ws, e.packBigFile())
	return ws
}

// packTree: a generated source-like tree packed by path, against git add -A
// into a fresh repository; then the same log again (all deduplicated)
// against git add -A of the unchanged tree.
func (e benchEnv) packTree() []workload {
	dir := filepath.Join(e.work, "tree")
	tree := filepath.Join(dir, "tree")
	prepared := false
	prepare := func() error {
		if prepared {
			return nil
		}
		if err := writeTree(tree, treeFiles, treeBytes); err != nil {
			return err
		}
		prepared = true
		return writeTreeLog(tree, filepath.Join(dir, "log.json"))
	}
	freshStore := func() error {
		if err := os.RemoveAll(filepath.Join(dir, ".ctx")); err != nil {
			return err
		}
		return runQuiet(dir, e.ctx("init")...)
	}
	freshRepo := func() error {
		if err := os.RemoveAll(filepath.Join(tree, ".git")); err != nil {
			return err
		}
		return runQuiet(tree, "git", "init", "-q")
	}
	pack := e.ctx("pack", "--root", "tree", "log.json")
	first := workload{
		name:    fmt.Sprintf("pack %d files, %d MB, by path", treeFiles, treeBytes>>20),
		prepare: prepare,
		cmds: []command{
			{label: "ctx pack log.json (fresh store)", argv: pack, dir: dir, setup: freshStore},
			{label: "git add -A (fresh repository)", argv: []string{"git", "add", "-A"}, dir: tree, setup: freshRepo},
		},
	}
	repack := workload{
		name: "repack the same log (all deduplicated)",
		prepare: func() error {
			if err := prepare(); err != nil {
				return err
			}
			if err := freshStore(); err != nil {
				return err
			}
			if err := runQuiet(dir, pack...); err != nil {
				return err
			}
			if err := freshRepo(); err != nil {
				return err
			}
			return runQuiet(tree, "git", "add", "-A")
		},
		cmds: []command{
			{label: "ctx pack log.json (again)", argv: pack, dir: dir},
			{label: "git add -A (unchanged tree)", argv: []string{"git", "add", "-A"}, dir: tree},
		},
	}
	return []workload{first, repack}
}

// packBigFile: one 1 GiB file by path, against sha256sum and cp of it.
func (e benchEnv) packBigFile() workload {
	dir := filepath.Join(e.work, "big")
	return workload{
		name: "pack one 1 GiB file by path",
		prepare: func() error {
			if err := writeRandomFile(filepath.Join(dir, "big.bin"), bigFile); err != nil {
				return err
			}
			log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"bench"},"prompts":[],"steps":[],"inputs":[{"path":"big.bin"}]}`
			return os.WriteFile(filepath.Join(dir, "log.json"), []byte(log), 0o644)
		},
		cmds: []command{
			{label: "ctx pack log.json (fresh store)", argv: e.ctx("pack", "log.json"), dir: dir, setup: func() error {
				if err := os.RemoveAll(filepath.Join(dir, ".ctx")); err != nil {
					return err
				}
				return runQuiet(dir, e.ctx("init")...)
			}},
			{label: "sha256sum big.bin", argv: []string{"sha256sum", "big.bin"}, dir: dir},
			{label: "cp big.bin copy.bin", argv: []string{"cp", "big.bin", "copy.bin"}, dir: dir, setup: func() error {
				return os.RemoveAll(filepath.Join(dir, "copy.bin"))
			}},
		},
	}
}

func runQuiet(dir string, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %v: %s", argv, err, out)
	}
	return nil
}

// words make generated files look like source text: compressible, as real
// trees are, so git's zlib is neither flattered nor punished.
func words() []string {
	return []string{"func", "return", "if", "err", "nil", "package", "import", "the", "value", "store",
		"pack", "manifest", "for", "range", "string", "int", "{", "}", "(", ")", ":=", "=", "\n", "\t", "// ",
		"context", "hash", "object", "error", "byte", "len", "append", "make", "map", "struct"}
}

func writeText(w *bufio.Writer, r *rand.Rand, n int) {
	ws := words()
	for n > 0 {
		s := ws[r.IntN(len(ws))]
		if r.IntN(7) == 0 {
			s = fmt.Sprintf("x%d ", r.Uint32())
		}
		if len(s) > n {
			s = s[:n]
		}
		w.WriteString(s)
		n -= len(s)
		if n > 0 && s != "\n" && s != "\t" {
			w.WriteByte(' ')
			n--
		}
	}
}

// writeTree writes files files totalling about total bytes under dir, in
// directories of 100, with sizes spread from a few hundred bytes to 1 MB.
func writeTree(dir string, files, total int) error {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := make([]int, files)
	sum := 0
	for i := range sizes {
		s := 200 + r.IntN(16<<10)
		if i%200 == 0 {
			s = 1 << 20
		}
		sizes[i] = s
		sum += s
	}
	for i := range sizes { // scale to the total
		sizes[i] = int(int64(sizes[i]) * int64(total) / int64(sum))
	}
	for i, s := range sizes {
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		writeText(w, r, s)
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// writeTreeLog writes an execution log naming every file of the tree by
// path (relative to the tree, which is the log's --root).
func writeTreeLog(tree, logPath string) error {
	var inputs []map[string]string
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tree, p)
		inputs = append(inputs, map[string]string{"path": filepath.ToSlash(rel)})
		return nil
	})
	if err != nil {
		return err
	}
	log := map[string]any{
		"created": "2026-01-01T00:00:00Z",
		"model":   map[string]any{"identifier": "bench"},
		"prompts": []any{map[string]string{"content": "pack the tree"}},
		"inputs":  inputs,
		"steps":   []any{map[string]any{"tool": "list_files", "parameters": map[string]string{"path": "."}, "output": "..."}},
	}
	b, err := json.Marshal(log)
	if err != nil {
		return err
	}
	return os.WriteFile(logPath, b, 0o644)
}

// writeRandomFile writes n pseudo-random (incompressible) bytes.
func writeRandomFile(path string, n int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 1<<20)
	for n > 0 {
		for i := 0; i+8 <= len(buf); i += 8 {
			v := r.Uint64()
			for k := 0; k < 8; k++ {
				buf[i+k] = byte(v >> (8 * k))
			}
		}
		m := int64(len(buf))
		if m > n {
			m = n
		}
		if _, err := f.Write(buf[:m]); err != nil {
			f.Close()
			return err
		}
		n -= m
	}
	return f.Close()
}
