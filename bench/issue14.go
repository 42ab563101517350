package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// inline: the tree of packTree given inline (content and content_base64,
// alternately: the form every converter writes), packed into a fresh store
// against the same content given by path; then the same log repacked
// unchanged, held to a rate of log bytes.
func (e benchEnv) inline(tree string, prepareTree func() error) []workload {
	dir := filepath.Join(e.work, "inline")
	logPath := filepath.Join(dir, "inline.json")
	var logBytes int64
	prepare := once(func() error {
		if err := prepareTree(); err != nil {
			return err
		}
		if err := writeInlineLog(tree, logPath); err != nil {
			return err
		}
		fi, err := os.Stat(logPath)
		if err != nil {
			return err
		}
		logBytes = fi.Size()
		return nil
	})
	name := fmt.Sprintf("pack %s files, %s, inline", count(e.size.treeFiles), mb(int64(e.size.treeBytes)))
	fresh := workload{
		name:    name,
		prepare: prepare,
		cmds: []command{
			{label: "ctx pack inline.json (fresh store)", argv: e.ctx("pack", "inline.json"), dir: dir, setup: e.freshStore(dir)},
			{label: "ctx pack log.json by path (fresh store)", argv: e.ctx("pack", "--store", filepath.Join(dir, ".ctx"), "--root", "tree", "log.json"), dir: filepath.Dir(tree), setup: e.freshStore(dir)},
		},
		targets: []target{{cmd: 0, peer: 1, max: 1.2}},
		note:    "inputs alternate content and content_base64; the second command packs the same files named by path",
	}
	again := workload{
		name: "repack the inline log unchanged",
		prepare: func() error {
			if err := prepare(); err != nil {
				return err
			}
			if err := e.freshStore(dir)(); err != nil {
				return err
			}
			return runQuiet(dir, e.ctx("pack", "inline.json")...)
		},
		cmds: []command{
			{label: "ctx pack inline.json (again)", argv: e.ctx("pack", "inline.json"), dir: dir, alone: true},
		},
	}
	// The rate is per MB of log, known once prepared.
	again.targets = []target{{cmd: 0, minRate: 150, rateOf: func() float64 { return float64(logBytes) / 1e6 }, unit: "MB/s of log"}}
	return []workload{e.withFloor(fresh, filepath.Join(dir, ".ctx")), again}
}

// writeInlineLog writes a log naming every file of tree inline: even files
// as content, odd ones as content_base64.
func writeInlineLog(tree, logPath string) error {
	var files []string
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".git" {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return err
	}
	return writeFile(logPath, func(w *bufio.Writer) error {
		w.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"bench"},"prompts":[{"content":"pack the tree"}],"inputs":[`)
		for i, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(tree, p)
			if i > 0 {
				w.WriteByte(',')
			}
			if i%2 == 0 {
				fmt.Fprintf(w, `{"name":%q,"content":%q}`, filepath.ToSlash(rel), b)
			} else {
				fmt.Fprintf(w, `{"name":%q,"content_base64":%q}`, filepath.ToSlash(rel), base64.StdEncoding.EncodeToString(b))
			}
		}
		_, err := w.WriteString(`],"steps":[{"tool":"list_files","parameters":{"path":"."},"output":"..."}]}` + "\n")
		return err
	})
}

// memory: peak RSS of every verb on the inputs a generated Claude Code
// session of each size gives: convert and pack the session, show its pack,
// diff two generated packs and replay one of as many steps. One run each:
// these rows are about memory, held to 64 MiB and to staying flat as the
// input grows (the flat group's line).
func (e benchEnv) memory() []workload {
	var ws []workload
	for _, size := range e.size.sessionMBs {
		dir := filepath.Join(e.work, fmt.Sprintf("memory-%d", size))
		st := filepath.Join(dir, ".ctx")
		var pack, a, b string
		steps := 0
		w := workload{
			name:    fmt.Sprintf("peak RSS, %d MB Claude Code session", size),
			maxRuns: 1,
			flat:    "memory",
			prepare: func() error {
				if err := writeSession(filepath.Join(dir, "session.jsonl"), size*1e6); err != nil {
					return err
				}
				if err := runQuiet(dir, e.ctx("init")...); err != nil {
					return err
				}
				conv := filepath.Join(e.bin, "ctx-convert")
				if err := runQuiet(dir, "sh", "-c", `"$0" session.jsonl > log.ndjson`, conv); err != nil {
					return err
				}
				var err error
				if pack, err = runOutput(dir, "sh", "-c", `"$0" --no-sidecars - < log.ndjson`, filepath.Join(e.bin, "ctx-pack")); err != nil {
					return err
				}
				out, err := runOutput(dir, e.ctx("log", "--json")...)
				if err != nil {
					return err
				}
				var rec struct{ Steps int }
				if err := json.Unmarshal([]byte(out), &rec); err != nil {
					return fmt.Errorf("ctx log --json: %v", err)
				}
				steps = max(rec.Steps, 1000)
				for i, side := range []byte{'a', 'b'} {
					log := filepath.Join(dir, string(side)+".log.json")
					if err := writeFile(log, func(w *bufio.Writer) error { return writeDriftLog(w, side, steps) }); err != nil {
						return err
					}
					h, err := runOutput(dir, e.ctx("pack", "--no-sidecars", log)...)
					if err != nil {
						return err
					}
					if i == 0 {
						a = h
					} else {
						b = h
					}
				}
				rd := filepath.Join(dir, "replay")
				if err := writeReplayRun(rd, 1000, steps); err != nil {
					return err
				}
				rp, err := runOutput(rd, e.ctx("pack", "--store", st, "--no-sidecars", "run.json")...)
				if err != nil {
					return err
				}
				pack = pack + " " + rp
				return nil
			},
			cmds: []command{
				{label: "ctx convert session.jsonl", argv: e.ctx("convert", "session.jsonl"), dir: dir, alone: true},
				{label: "ctx pack - < log.ndjson (fresh store)", argv: e.ctx("pack", "--store", filepath.Join(dir, "fresh", ".ctx"), "-"), stdin: filepath.Join(dir, "log.ndjson"), dir: dir, alone: true,
					setup: func() error {
						removeAll(filepath.Join(dir, "fresh"))
						return runQuiet(dir, e.ctx("init", filepath.Join(dir, "fresh"))...)
					}},
				{label: "ctx show --json (the session's pack)", dir: dir, alone: true},
				{label: "ctx diff A B (generated, as many steps)", dir: dir, alone: true, finding: true},
				{label: "ctx replay (as many built-in reads)", dir: dir, alone: true},
			},
		}
		w.cmds[2].setup = func() error { w.cmds[2].argv = e.ctx("show", "--json", strings.Fields(pack)[0]); return nil }
		w.cmds[3].setup = func() error { w.cmds[3].argv = e.ctx("diff", a, b); return nil }
		w.cmds[4].setup = func() error {
			w.cmds[4].argv = e.ctx("replay", "--store", st, strings.Fields(pack)[1])
			w.cmds[4].dir = filepath.Join(dir, "replay")
			return nil
		}
		w.summary = func([]sample) string {
			return fmt.Sprintf("about %s steps in each pack (session's pack, diff sides, replay)", count(steps))
		}
		for j := range w.cmds {
			w.targets = append(w.targets, target{cmd: j, maxRSS: rssLimit})
		}
		ws = append(ws, w)
	}
	return ws
}

// inlineDocument: a log in document form with 5,000 inputs and 5,000
// outputs given inline (about 147 MB), packed into a fresh store, with
// the floor of its objects: the row of issue 44 whose peer is another
// implementation of the same design (not run here).
func (e benchEnv) inlineDocument() workload {
	dir := filepath.Join(e.work, "document")
	logPath := filepath.Join(dir, "run.json")
	n := e.size.documentParts
	return e.withFloor(workload{
		name:    fmt.Sprintf("pack %s inline inputs + %s inline outputs", count(n), count(n)),
		prepare: once(func() error { return writeDocumentLog(logPath, n, 147e6/(2*n)) }),
		cmds: []command{
			{label: "ctx pack run.json (fresh store)", argv: e.ctx("pack", "--no-sidecars", "run.json"), dir: dir, setup: e.freshStore(dir)},
		},
		note: "document form; every input and output given as content",
	}, filepath.Join(dir, ".ctx"))
}

// writeDocumentLog writes a log in document form of n inputs and n
// outputs, each about size bytes of text given inline.
func writeDocumentLog(path string, n, size int) error {
	r := rand.New(rand.NewPCG(44, 44))
	return writeFile(path, func(w *bufio.Writer) error {
		var text strings.Builder
		part := func(kind string, i int) {
			text.Reset()
			tw := bufio.NewWriter(&text)
			writeText(tw, r, size)
			tw.Flush()
			b, _ := json.Marshal(text.String())
			fmt.Fprintf(w, `{"name":"%s/%05d.txt","content":%s}`, kind, i, b)
		}
		w.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"bench"},"prompts":[{"content":"write the outputs"}],"inputs":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			part("in", i)
		}
		w.WriteString(`],"steps":[{"tool":"bash","parameters":{"command":"make"},"output":"ok"}],"outputs":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			part("out", i)
		}
		_, err := w.WriteString("]}\n")
		return err
	})
}
