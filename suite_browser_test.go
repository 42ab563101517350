package ctx_test

import (
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/interop"
)

// TestSuiteDiffPageInChromium loads ctx suite diff --html in headless
// Chromium: the page's own script runs, nothing from the runs runs or is
// fetched, the tasks come changes first (regressions, then improvements,
// one side's only, the unchanged), and a changed task opens onto its two
// runs' steps side by side, its first divergence marked.
func TestSuiteDiffPageInChromium(t *testing.T) {
	chromium := interop.Need(t, "chromium")
	canary := `<script>document.title="pwned"</script><img src="http://127.0.0.1:9/x" onerror="document.body.appendChild(document.createElement('xss-canary'))">` +
		"<iframe src=\"http://127.0.0.1:9/f\"></iframe><textarea>\u202etxt.exe"
	dir := t.TempDir()
	run := func(task string, passed bool, out string) string {
		ev := map[string]any{"event": "run", "model": map[string]any{"identifier": "m"},
			"task": map[string]any{"id": task}, "outcome": map[string]any{"passed": passed}}
		var b strings.Builder
		line, _ := json.Marshal(ev)
		b.Write(line)
		b.WriteByte('\n')
		for i := 0; i < 12; i++ {
			o := fmt.Sprintf("line %d\n", i)
			if i == 7 {
				o = out
			}
			step, _ := json.Marshal(map[string]any{"event": "step", "tool": "bash", "parameters": map[string]any{"command": fmt.Sprint("step ", i)}, "output": o})
			b.Write(step)
			b.WriteByte('\n')
		}
		return b.String()
	}
	a := run("t1", true, "ok") + run("t2"+canary, true, "ok") + run("t3", false, "FAIL") + run("t4", true, "ok")
	b := run("t1", true, "ok") + run("t2"+canary, false, canary) + run("t3", true, "ok") + run("t5", true, "ok")
	for name, s := range map[string]string{"a.ndjson": a, "b.ndjson": b} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctxtest.Must(t, dir, "ctx-init")
	ctxtest.Must(t, dir, "ctx-suite", "add", "base", "a.ndjson")
	ctxtest.Must(t, dir, "ctx-suite", "add", "cand", "b.ndjson")
	if _, errOut, code := ctxtest.Cmd(t, dir, "ctx-suite", "diff", "--html", "-o", "suite.html", "base", "cand"); code != 1 {
		t.Fatalf("ctx suite diff --html: exit %d (want 1: a task regressed)\n%s", code, errOut)
	}
	dom, requests := loadInChromium(t, chromium, filepath.Join(dir, "suite.html"))
	checkNoCanary(t, "suite diff", dom, requests, "http://127.0.0.1:9")
	var order []string
	for _, m := range regexp.MustCompile(`<details class="task (\w+)" id="task-\d+">`).FindAllStringSubmatch(dom, -1) {
		order = append(order, m[1])
	}
	if got := strings.Join(order, " "); got != "regressed improved only_a only_b same" {
		t.Errorf("tasks in the order %q, want changes first", got)
	}
	// The regressed task's lanes: twelve rows, the first divergence at
	// step 7 marked, anchored in the task's own namespace.
	regressed := dom[strings.Index(dom, `<details class="task regressed"`):strings.Index(dom, `<details class="task improved"`)]
	if n := strings.Count(regressed, `<div class="r`); n < 12 {
		t.Errorf("the regressed task shows %d rows of steps, want its 12", n)
	}
	if !regexp.MustCompile(`<div class="r d first" id="task-0-step-7"`).MatchString(regressed) {
		t.Errorf("the regressed task does not mark its first divergence at step 7")
	}
	if !strings.Contains(dom, `regressed <b>1</b>`) || !strings.Contains(dom, `improved <b>1</b>`) {
		t.Errorf("the summary does not count the changes")
	}
}
