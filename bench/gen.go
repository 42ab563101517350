package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// The generators below write the inputs of the workloads. Each is
// deterministic (fixed seeds), so two runs of the harness time the same
// bytes.

func runQuiet(dir string, argv ...string) error {
	_, err := runOutput(dir, argv...)
	return err
}

// runOutput runs argv in dir and returns its standard output, trimmed.
func runOutput(dir string, argv ...string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// writeFile creates path (and its directory) and fills it through a
// buffered writer.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
		err := writeFile(p, func(w *bufio.Writer) error {
			writeText(w, r, s)
			return nil
		})
		if err != nil {
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
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir // the peer's repository, left by a run kept with -work
		}
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
	return writeFile(path, func(w *bufio.Writer) error {
		r := rand.New(rand.NewPCG(3, 4))
		buf := make([]byte, 1<<20)
		for n > 0 {
			for i := 0; i+8 <= len(buf); i += 8 {
				v := r.Uint64()
				for k := 0; k < 8; k++ {
					buf[i+k] = byte(v >> (8 * k))
				}
			}
			m := min(int64(len(buf)), n)
			if _, err := w.Write(buf[:m]); err != nil {
				return err
			}
			n -= m
		}
		return nil
	})
}

// writePacks fills the store dir (created if need be) with n small packs of
// 1 to 7 steps, and their index entries, for ctx log. It writes the
// objects directly (objects/ab/cd...) without syncing: a fixture need not
// survive a crash, and ten thousand synced packs would take minutes to
// make. The index entries go to the index log in one append, as a stream
// of runs writes them.
func writePacks(dir string, n int) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if _, err := store.Init(dir); err != nil {
		return err
	}
	st, err := store.Open(dir)
	if err != nil {
		return err
	}
	put := func(b []byte) (store.Hash, error) {
		h := store.Sum(b)
		p := st.ObjectPath(h)
		if _, err := os.Stat(p); err == nil {
			return h, nil
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return h, err
		}
		return h, os.WriteFile(p, b, 0o444)
	}
	models := []string{"claude-opus-4-6", "gpt-4o", "gemini-2.5-pro"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var last store.Hash
	var entries []pack.IndexEntry
	for i := 0; i < n; i++ {
		prompt, err := put([]byte(fmt.Sprintf("task %d: fix the failing test\n", i)))
		if err != nil {
			return err
		}
		// Every tenth pack shares its created time with the one before,
		// so the tie-break on the time stored is exercised too.
		created := base.Add(time.Duration(i-i%10/9) * time.Minute).Format(time.RFC3339)
		m := &pack.Manifest{
			Version:     pack.Version,
			Created:     &created,
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
		entries = append(entries, pack.NewIndexEntry(h, m, base.Add(time.Duration(i)*time.Second)))
		last = h
	}
	if err := pack.WriteIndexEntries(st, entries); err != nil {
		return err
	}
	return st.WriteRef(store.LatestRef, last)
}

// writeCommits makes repo a git repository of n commits, one a minute, each
// changing one small file, through git fast-import.
func writeCommits(repo string, n int) error {
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	if err := runQuiet(repo, "git", "init", "-q"); err != nil {
		return err
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = repo
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriter(in)
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf("run %d: fix the failing test\n", i)
		data := fmt.Sprintf("run %d\n", i)
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter ctx <ctx@example.com> %d +0000\n", i+1, 1767225600+i*60)
		fmt.Fprintf(w, "data %d\n%s", len(msg), msg)
		if i > 0 {
			fmt.Fprintf(w, "from :%d\n", i)
		}
		fmt.Fprintf(w, "M 644 inline f.txt\ndata %d\n%s\n", len(data), data)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	// HEAD names main whatever init.defaultBranch says.
	if err := runQuiet(repo, "git", "symbolic-ref", "HEAD", "refs/heads/main"); err != nil {
		return err
	}
	got, err := runOutput(repo, "git", "rev-list", "--count", "main")
	if err != nil {
		return err
	}
	if got != fmt.Sprint(n) {
		return fmt.Errorf("the repository has %s commits, want %d", got, n)
	}
	return nil
}

// writeDriftLog writes an execution log of steps steps for ctx diff and
// ctx show. Side 'b' differs from side 'a' at 1% of the steps: half of
// those in a parameter, half in the output.
func writeDriftLog(w io.Writer, side byte, steps int) error {
	bw := bufio.NewWriter(w)
	tools := []string{"read_file", "edit_file", "bash", "grep"}
	bw.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"temperature":0}},`)
	bw.WriteString(`"system_prompt":"You are a careful coding agent.","prompts":[{"role":"user","content":"Fix every failing test"}],`)
	bw.WriteString("\"steps\":[\n")
	for i := 0; i < steps; i++ {
		line := i % 500
		out := fmt.Sprintf("step %d: package p%d; func F%d() { return %d } // the output of a tool call, about two hundred bytes long, like a small file read", i, i/100, i, line)
		if side == 'b' && i%200 == 37 {
			line++
		}
		if side == 'b' && i%200 == 137 {
			out += " (changed)"
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"tool":"%s","parameters":{"path":"src/p%d/f%d.go","line":%d,"context":3},"output":"%s","timestamp":"2026-01-01T00:00:00Z"}`+"\n",
			tools[i%4], i/100, i, line, out)
	}
	fmt.Fprintf(bw, `],"outputs":[{"name":"report.md","content":"done %c"}],"environment":{"os":"linux","tool_versions":{"bash":"5.2"}}}`+"\n", side)
	return bw.Flush()
}

// replayContent is input file i of the replay workload: 40 lines, about
// 2 KiB, like a source file.
func replayContent(i int) string {
	var b strings.Builder
	for l := 0; l < 40; l++ {
		fmt.Fprintf(&b, "line %02d of file %04d: the quick brown fox jumps\n", l, i)
	}
	return b.String()
}

func replayName(i int) string { return fmt.Sprintf("src/d%02d/f%04d.go", i%50, i) }

// writeReplayRun writes, under dir, run.json: a run with files inputs and
// steps built-in read steps (step s reads file 7s mod files and recorded
// its content); tree/: the same files, checked out; and paths.txt: the path
// each step reads, one a line, for the peers.
func writeReplayRun(dir string, files, steps int) error {
	for i := 0; i < files; i++ {
		if err := os.MkdirAll(filepath.Join(dir, "tree", filepath.Dir(replayName(i))), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "tree", replayName(i)), []byte(replayContent(i)), 0o644); err != nil {
			return err
		}
	}
	err := writeFile(filepath.Join(dir, "run.json"), func(w *bufio.Writer) error {
		w.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"inputs":[`)
		for i := 0; i < files; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"name":%q,"content":%q}`, replayName(i), replayContent(i))
		}
		w.WriteString(`],"steps":[`)
		for s := 0; s < steps; s++ {
			if s > 0 {
				w.WriteByte(',')
			}
			i := (s * 7) % files
			fmt.Fprintf(w, `{"tool":"read_file","parameters":{"path":%q},"output":%q}`, replayName(i), replayContent(i))
		}
		_, err := w.WriteString("]}\n")
		return err
	})
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "paths.txt"), func(w *bufio.Writer) error {
		for s := 0; s < steps; s++ {
			fmt.Fprintln(w, replayName((s*7)%files))
		}
		return nil
	})
}

// writeShellRun writes, under dir, run.json: a run with steps inputs and
// as many shell steps, step s running cat on input s and recording its
// content.
func writeShellRun(dir string, steps int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "run.json"), func(w *bufio.Writer) error {
		w.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"inputs":[`)
		for i := 0; i < steps; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"name":%q,"content":%q}`, replayName(i), replayContent(i))
		}
		w.WriteString(`],"steps":[`)
		for i := 0; i < steps; i++ {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, `{"tool":"bash","parameters":{"command":%q},"output":%q}`, "cat "+replayName(i), replayContent(i))
		}
		_, err := w.WriteString("]}\n")
		return err
	})
}

// writeSession writes a Claude Code session transcript of at least target
// bytes: one prompt, then turns of assistant text and a Read, Edit or Bash
// call with its result (and the toolUseResult Claude Code keeps beside
// it), over 40 files of a working directory.
func writeSession(path string, target int) error {
	const cwd = "/tmp/tmpbench01"
	var body strings.Builder
	for k := 0; k < 40; k++ {
		fmt.Fprintf(&body, `    value_%d = compute(%d, limit=1024)\n`, k, k)
	}
	env := `"sessionId":"bench","version":"2.1.14","cwd":"` + cwd + `","gitBranch":"main","userType":"external","isSidechain":false`
	return writeFile(path, func(w *bufio.Writer) error {
		size := 0
		line := func(format string, args ...any) {
			n, _ := fmt.Fprintf(w, format+"\n", args...)
			size += n
		}
		line(`{"type":"user",%s,"uuid":"u0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"Refactor the compute module and keep the tests green."}}`, env)
		for i := 1; size < target; i++ {
			ts := fmt.Sprintf("2026-01-01T%02d:%02d:%02d.000Z", i/3600%24, i/60%60, i%60)
			f := fmt.Sprintf("%s/src/module_%d.py", cwd, i%40)
			line(`{"type":"assistant",%s,"uuid":"a%d","parentUuid":"u%d","timestamp":"%s","requestId":"req_%d","message":{"id":"msg_%d","model":"claude-opus-4-5-20251101","type":"message","role":"assistant","content":[{"type":"text","text":"Step %d: I will look at %s and then adjust the call sites so the limit is passed explicitly everywhere it is used."}],"stop_reason":null,"usage":{"input_tokens":%d,"output_tokens":40}}}`,
				env, i, i-1, ts, i, i, i, f, 1000+i)
			var call, res string
			switch i % 3 {
			case 0:
				call = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"Read","input":{"file_path":"%s"}}`, i, f)
				res = fmt.Sprintf(`"content":"def compute():\n%s"}]},"toolUseResult":{"type":"text","file":{"filePath":"%s","content":"def compute_%d():\n%s","numLines":41,"startLine":1,"totalLines":41}}`, body.String(), f, i%40, body.String())
			case 1:
				call = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"Edit","input":{"file_path":"%s","old_string":"limit=1024","new_string":"limit=LIMIT","replace_all":true}}`, i, f)
				res = fmt.Sprintf(`"content":"The file %s has been updated."}]},"toolUseResult":{"filePath":"%s","oldString":"limit=1024","newString":"limit=LIMIT","originalFile":"def compute_%d():\n%s","structuredPatch":[],"userModified":false,"replaceAll":true}`, f, f, i%40, body.String())
			default:
				out := body.String() + "41 passed in 0.52s"
				call = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"cd %s && python -m pytest tests/test_module_%d.py -q","description":"Run the tests"}}`, i, cwd, i%40)
				res = fmt.Sprintf(`"content":"%s","is_error":false}]},"toolUseResult":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false}`, out, out)
			}
			line(`{"type":"assistant",%s,"uuid":"b%d","parentUuid":"a%d","timestamp":"%s","requestId":"req_%d","message":{"id":"msg_%d","model":"claude-opus-4-5-20251101","type":"message","role":"assistant","content":[%s],"stop_reason":null,"usage":{"input_tokens":%d,"output_tokens":60}}}`,
				env, i, i, ts, i, i, call, 1000+i)
			line(`{"type":"user",%s,"uuid":"u%d","parentUuid":"b%d","timestamp":"%s","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result",%s,"sourceToolAssistantUUID":"b%d"}`,
				env, i, i, ts, i, res, i)
		}
		return nil
	})
}

// writeRunStream writes the NDJSON stream a suite of runs gives ctx pack
// -: runs logs one after another, each a run event, one prompt and steps
// steps whose outputs differ from run to run, as an evaluation of one
// agent over a task set does. At 2,000 runs of 40 steps it is about 11 MB
// and 82,000 distinct objects (a prompt and 40 outputs per run). side 0
// names each run's task in its metadata only (any ctx packs it); side
// 'a' or 'b' gives the run event the task and outcome fields of ctx
// suite, b failing 5% of the tasks a passes and differing in one output
// of a tenth of the runs.
func writeRunStream(path string, runs, steps int, side byte) error {
	tools := []string{"read_file", "bash", "edit_file", "grep"}
	return writeFile(path, func(w *bufio.Writer) error {
		for r := 0; r < runs; r++ {
			suite := ""
			if side != 0 {
				passed := r%3 != 0
				if side == 'b' && r%20 == 1 {
					passed = false
				}
				suite = fmt.Sprintf(`,"task":{"id":"task-%04d"},"outcome":{"passed":%t}`, r, passed)
			}
			fmt.Fprintf(w, `{"event":"run","created":"2026-01-01T%02d:%02d:%02dZ","model":{"identifier":"bench-model","parameters":{"temperature":0}},"metadata":{"task":"task-%04d"}%s}`+"\n",
				r/3600%24, r/60%60, r%60, r, suite)
			fmt.Fprintf(w, `{"event":"prompt","content":"Solve task-%04d: make the failing test in src/t%04d pass."}`+"\n", r, r)
			for i := 0; i < steps; i++ {
				tool := tools[i%len(tools)]
				out := fmt.Sprintf("run %d step %d: func F%d() int { return %d } // ok", r, i, i, r*steps+i)
				if side == 'b' && r%10 == 3 && i == steps/2 {
					out += " (changed)"
				}
				fmt.Fprintf(w, `{"event":"step","tool":"%s","parameters":{"path":"src/t%04d/f%02d.go"},"output":"%s"}`+"\n",
					tool, r, i, out)
			}
		}
		return nil
	})
}

// writeSuiteBlobs writes every object of every pack of suite name in the
// store st (its manifest and what it names), a directory per run under
// dir, each object a file of its hex name, and returns how many: the
// blobs ctx suite push sends, for oras to push.
func writeSuiteBlobs(st, name, dir string) (int, error) {
	s, err := store.Open(st)
	if err != nil {
		return 0, err
	}
	h, err := s.ReadSuiteRef(name)
	if err != nil {
		return 0, err
	}
	b, err := s.ReadAll(h)
	if err != nil {
		return 0, err
	}
	var obj struct {
		Runs []struct{ Pack store.Hash }
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return 0, err
	}
	n := 0
	for i, r := range obj.Runs {
		m, err := pack.Load(s, r.Pack)
		if err != nil {
			return n, err
		}
		run := filepath.Join(dir, fmt.Sprintf("%05d", i))
		if err := os.MkdirAll(run, 0o755); err != nil {
			return n, err
		}
		objects := map[store.Hash]bool{r.Pack: true}
		for _, ref := range m.Refs() {
			objects[ref.Hash] = true
		}
		for o := range objects {
			data, err := s.ReadAll(o)
			if err != nil {
				return n, err
			}
			if err := os.WriteFile(filepath.Join(run, o.Hex()), data, 0o644); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
