package ctx_test

import (
	"encoding/json"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/contextsubstrate/ctx/cmd/ctx-diff/diffcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-init/initcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-pack/packcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-replay/replaycmd"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
)

// TestReplayStreamAndSavedPackDiffAlike replays every run the replay tests
// and the example corpus pack, both ways a user compares a run with its
// replay: `ctx replay X | ctx diff X -` and `ctx diff X $(ctx replay
// --save X)`. The two drift reports must be the same: the stream and the
// saved pack are one replayed run (replaystream.Replayed). Runs with a
// tree/ directory are replayed against it (--workdir) as well.
func TestReplayStreamAndSavedPackDiffAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every fixture twice")
	}
	for _, fx := range replayFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			modes := [][]string{nil}
			if fi, err := os.Stat(filepath.Join(fx.dir, "tree")); err == nil && fi.IsDir() {
				modes = append(modes, []string{"--workdir", "tree"})
			}
			for _, mode := range modes {
				streamDiff, savedDiff := replayBothWays(t, fx, mode)
				if !reflect.DeepEqual(streamDiff, savedDiff) {
					t.Errorf("%v: the drift of the replay stream and of the saved replay differ:\nstream: %s\nsaved:  %s", mode, streamDiff, savedDiff)
				}
			}
		})
	}
}

// replayFixture is a run to replay: a log in a directory holding what it
// needs (its files, .ctx/config.json, tools).
type replayFixture struct {
	name, dir, log string
}

// replayFixtures unpacks the runs of the replay and replay-diff scripts,
// and copies the corpus and example runs, each into a directory of its own.
func replayFixtures(t *testing.T) []replayFixture {
	t.Helper()
	var out []replayFixture
	scripts, _ := filepath.Glob("testdata/scripts/replay_*.txtar")
	more, _ := filepath.Glob("testdata/scripts/diff_replay*.txtar")
	for _, script := range append(scripts, more...) {
		ar, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(script), ".txtar")
		var logs []string
		for _, f := range ar.Files {
			if isRunLog(f.Name, f.Data) {
				logs = append(logs, f.Name)
			}
		}
		for _, log := range logs {
			dir := t.TempDir()
			for _, f := range ar.Files {
				p := filepath.Join(dir, filepath.FromSlash(f.Name))
				mode := os.FileMode(0o644)
				if strings.HasPrefix(filepath.Base(f.Name), "ctx-tool-") {
					mode = 0o755
				}
				writeFixtureFile(t, p, f.Data, mode)
			}
			out = append(out, replayFixture{name: base + "/" + log, dir: dir, log: log})
		}
	}
	corpus, _ := filepath.Glob("testdata/corpus/contextsubstrate-examples/*.json")
	examples, _ := filepath.Glob("examples/runs/*/run.json")
	for _, log := range append(corpus, examples...) {
		dir := t.TempDir()
		src := filepath.Dir(log)
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			writeFixtureFile(t, filepath.Join(dir, rel), b, 0o644)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, replayFixture{name: filepath.ToSlash(log), dir: dir, log: filepath.Base(log)})
	}
	return out
}

// isRunLog reports whether an archive file is an execution log with steps
// to replay (not a golden file, a config or a tool).
func isRunLog(name string, data []byte) bool {
	if !strings.HasSuffix(name, ".json") || strings.HasPrefix(filepath.Base(name), "want") || filepath.Base(name) == "config.json" {
		return false
	}
	var log struct {
		Model any   `json:"model"`
		Steps []any `json:"steps"`
	}
	return json.Unmarshal(data, &log) == nil && log.Model != nil && len(log.Steps) > 0
}

func writeFixtureFile(t *testing.T, p string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
}

// replayBothWays packs the fixture's log into a fresh store, then returns
// the drift of ctx diff X - over the stream of ctx replay X, and that of
// ctx diff X SAVED over the pack ctx replay --save X stored. Each report
// is kept without its a and b, which name the sides.
func replayBothWays(t *testing.T, fx replayFixture, mode []string) (stream, saved string) {
	t.Helper()
	t.Chdir(fx.dir)
	os.RemoveAll(".ctx")
	t.Setenv("CTX_EXEC_PATH", filepath.Join(fx.dir, "tools"))
	ctxtest.Run(t, initcmd.Run, nil)
	if b, err := os.ReadFile("config.json"); err == nil {
		writeFixtureFile(t, filepath.Join(".ctx", "config.json"), b, 0o644)
	}
	p := strings.TrimSpace(ctxtest.Run(t, packcmd.Run, nil, "--no-sidecars", fx.log))
	replay := append([]string{"--step-timeout", "2s"}, mode...)

	// Each replay gets the tree as the fixture left it.
	restore := func() {}
	if len(mode) > 0 {
		restore = snapshot(t, "tree")
	}
	out := ctxtest.Run(t, replaycmd.Run, nil, append(replay, p)...)
	stream = driftOf(t, ctxtest.Run(t, diffcmd.Run, strings.NewReader(out), p, "-"))
	restore()

	out = ctxtest.Run(t, replaycmd.Run, nil, append(replay, "--save", p)...)
	var rep replaystream.Report
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil || rep.Saved == "" {
		t.Fatalf("replay --save %s: no saved pack in %q (%v)", p, lines[len(lines)-1], err)
	}
	saved = driftOf(t, ctxtest.Run(t, diffcmd.Run, nil, p, rep.Saved))
	return stream, saved
}

// driftOf is a drift report without its a and b.
func driftOf(t *testing.T, report string) string {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("not a drift report: %v\n%s", err, report)
	}
	delete(r, "a")
	delete(r, "b")
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot copies dir aside and returns what puts it back as it was.
func snapshot(t *testing.T, dir string) func() {
	t.Helper()
	aside := filepath.Join(t.TempDir(), "aside")
	if err := os.CopyFS(aside, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(dir, os.DirFS(aside)); err != nil {
			t.Fatal(err)
		}
	}
}
