package ctx_test

import (
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contextsubstrate/ctx/internal/interop"
)

// TestHTMLPagesInChromium opens the pages of ctx diff --html and ctx show
// --html in headless Chromium, three starts in all, on two runs whose every
// string carries an XSS canary: scripts that would change the title or add
// an element, and references to a server this test runs, which must never
// be asked for anything. After load the DOM holds the first-divergence
// anchor, one badge per drift type with the report's counts, the folded
// runs, and the mark of the page's own script (it ran; the run's did not);
// Chromium's network log shows no request from the page. Without its
// script, the same DOM is there.
func TestHTMLPagesInChromium(t *testing.T) {
	chromium := interop.Need(t, "chromium")

	var hits atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Errorf("the page asked the canary server for %s", r.URL)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()

	canary := `<script>document.title="pwned"</script>` +
		`<img src="` + url + `/img" onerror="document.body.appendChild(document.createElement('xss-canary'))">` +
		`<script src="` + url + `/s.js"></script></textarea><iframe src="` + url + `/f"></iframe>` +
		`<a href="javascript:document.title='pwned'">link</a><link rel="stylesheet" href="` + url + `/c.css">` +
		"\u202etxt.exe\u2066\x1b[31m"
	dir := t.TempDir()
	for _, side := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, side+".json"), canaryRun(side, canary), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctxtest.Must(t, dir, "ctx-init")
	a := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--no-sidecars", "a.json"))
	b := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--no-sidecars", "b.json"))
	out, errOut, code := ctxtest.Cmd(t, dir, "ctx-diff", a, b)
	if code != 1 {
		t.Fatalf("ctx diff: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Summary         map[string]int `json:"summary"`
		FirstDivergence int            `json:"first_divergence"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ctxtest.Cmd(t, dir, "ctx-diff", "--html", "-o", "diff.html", a, b); code != 1 {
		t.Fatalf("ctx diff --html: exit %d\n%s", code, errOut)
	}
	ctxtest.Must(t, dir, "ctx-show", "--html", "-o", "show.html", b)

	// The diff page.
	file, err := os.ReadFile(filepath.Join(dir, "diff.html"))
	if err != nil {
		t.Fatal(err)
	}
	dom, requests := loadInChromium(t, chromium, filepath.Join(dir, "diff.html"))
	checkNoCanary(t, "diff", dom, requests, url)
	first := fmt.Sprintf(`href="#step-%d">first divergence: step %d</a>`, rep.FirstDivergence, rep.FirstDivergence)
	if !strings.Contains(dom, first) {
		t.Errorf("no first-divergence link: %s", first)
	}
	if !regexp.MustCompile(`<div class="r d first" id="step-` + fmt.Sprint(rep.FirstDivergence) + `"`).MatchString(dom) {
		t.Errorf("the first divergence's anchor is not its row")
	}
	badges := map[string]int{}
	for _, m := range regexp.MustCompile(`<a class="badge (\w+)" href="#([\w-]+)"[^>]*>\w+<b>(\d+)</b></a>`).FindAllStringSubmatch(dom, -1) {
		if _, dup := badges[m[1]]; dup {
			t.Errorf("two badges for %s", m[1])
		}
		var n int
		fmt.Sscan(m[3], &n)
		badges[m[1]] = n
		if !strings.Contains(dom, `id="`+m[2]+`"`) {
			t.Errorf("the %s badge links to #%s, which is not on the page", m[1], m[2])
		}
	}
	for typ, n := range rep.Summary {
		if typ != "total" && badges[typ] != n {
			t.Errorf("badge %s: %d, the report says %d", typ, badges[typ], n)
		}
	}
	if len(badges) < 8 {
		t.Errorf("%d badges, want one for each of the 8 drift types: %v", len(badges), badges)
	}
	folds := strings.Count(dom, `<details class="run">`)
	if folds < 2 || folds != strings.Count(string(file), `<details class="run">`) {
		t.Errorf("%d folded runs after load (%d in the file)", folds, strings.Count(string(file), `<details class="run">`))
	}
	if !strings.Contains(dom, `<form id="filter">`) {
		t.Errorf("the filter is still hidden: the page's script did not run")
	}

	// Without its script the page reads the same: the lanes, badges and
	// folds are all in the markup; only the filter stays hidden. (Chromium
	// dumps no DOM with JavaScript turned off, so a copy of the page whose
	// policy allows no script stands in.)
	noScript := regexp.MustCompile(`script-src &#39;sha256-[^;]*;`).ReplaceAll(file, []byte("script-src &#39;none&#39;;"))
	if err := os.WriteFile(filepath.Join(dir, "noscript.html"), noScript, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, requests = loadInChromium(t, chromium, filepath.Join(dir, "noscript.html"))
	if !strings.Contains(dom, `<html lang="en">`) || !strings.Contains(dom, `<form id="filter" hidden="">`) {
		t.Errorf("the page's script ran where its policy allows none")
	}
	for _, want := range []string{first, `<details class="run">`, `<a class="badge tool_drift"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("without its script the page lacks %s", want)
		}
	}
	if len(requests) > 0 {
		t.Errorf("without its script the page requested %v", requests)
	}

	// The show page.
	dom, requests = loadInChromium(t, chromium, filepath.Join(dir, "show.html"))
	checkNoCanary(t, "show", dom, requests, url)
	if !strings.Contains(dom, `verify: <span class="vs verified">verified</span>`) {
		t.Errorf("the show page does not say the pack verified")
	}
	if hits.Load() > 0 {
		t.Errorf("the canary server was asked %d times", hits.Load())
	}
}

// canaryRun is an execution log whose every string holds the canary; B
// differs from A in every section, and in steps that leave runs of
// unchanged ones between them.
func canaryRun(side, canary string) []byte {
	c := func(s string) string { return canary + s }
	steps := make([]map[string]any, 40)
	for i := range steps {
		steps[i] = map[string]any{"tool": c("read"), "parameters": map[string]any{"path": c(fmt.Sprint(i))},
			"output": c(fmt.Sprintf("line %d\n", i)), "timestamp": fmt.Sprintf("2026-01-01T00:00:%02dZ", i)}
	}
	model, tool := "m-a", "5.1"
	if side == "b" {
		model, tool = "m-b", "5.2"
		steps[6]["parameters"] = map[string]any{"path": c("other")}
		steps[15]["output"] = c("another output\n")
		steps[27]["tool"] = c("write")
		steps = append(steps, map[string]any{"tool": c("extra"), "output": c("")})
	}
	doc := map[string]any{
		"created":       "2026-01-01T00:00:00Z",
		"model":         map[string]any{"identifier": c(model)},
		"system_prompt": c(side),
		"prompts":       []any{map[string]any{"role": "user", "content": c(side)}},
		"inputs":        []any{map[string]any{"name": "in.txt", "content": c(side)}},
		"steps":         steps,
		"outputs":       []any{map[string]any{"name": "out.md", "content": c(side), "notes": c(side)}},
		"environment":   map[string]any{"os": c("linux"), "tool_versions": map[string]any{c("bash"): tool}},
	}
	b, _ := json.Marshal(doc)
	return b
}

// loadInChromium loads a page in headless Chromium and returns the DOM
// after load and the URLs of the requests the network log holds that a
// page made (Chromium's own service requests are refused by the resolver
// rules and told apart by their initiator).
func loadInChromium(t *testing.T, chromium, page string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	netlog := filepath.Join(dir, "netlog.json")
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--log-net-log="+netlog,
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--dump-dom", "file://"+page)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("chromium wrote no network log: %v", err)
	}
	var log struct {
		Events []struct {
			Params struct {
				URL       string `json:"url"`
				Initiator string `json:"initiator"`
			} `json:"params"`
		} `json:"events"`
	}
	// A log cut at exit lacks its closing brackets.
	if err := json.Unmarshal(raw, &log); err != nil {
		if err := json.Unmarshal(append(raw, []byte("]}")...), &log); err != nil {
			t.Fatalf("the network log does not parse: %v", err)
		}
	}
	var urls []string
	for _, e := range log.Events {
		u := e.Params.URL
		if u == "" || strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "data:") {
			continue
		}
		// Each request has one event naming its initiator: the page's
		// origin ("null" for a file), or "not an origin" for Chromium's own.
		if e.Params.Initiator == "" || e.Params.Initiator == "not an origin" {
			if !strings.Contains(u, "127.0.0.1") {
				continue
			}
		}
		urls = append(urls, u)
	}
	return string(dom), urls
}

func checkNoCanary(t *testing.T, name, dom string, requests []string, url string) {
	t.Helper()
	if len(dom) < 1000 || !strings.Contains(dom, "</html>") {
		t.Fatalf("%s: no page after load:\n%s", name, dom)
	}
	if !strings.Contains(dom, `<html lang="en" class="js">`) {
		t.Errorf("%s: the page's own script did not run", name)
	}
	if title := regexp.MustCompile(`<title>([^<]*)</title>`).FindStringSubmatch(dom); title == nil || !strings.HasPrefix(title[1], "ctx ") {
		t.Errorf("%s: the title is %q", name, title)
	}
	for _, bad := range []string{"<xss-canary", "pwned</title>", "<img", "<iframe", "<textarea", "\u202e"} {
		if strings.Contains(dom, bad) {
			t.Errorf("%s: the DOM after load holds %q", name, bad)
		}
	}
	if !strings.Contains(dom, `&lt;script&gt;document.title="pwned"&lt;/script&gt;`) {
		t.Errorf("%s: the canary is not shown as text", name)
	}
	for _, u := range requests {
		t.Errorf("%s: the page requested %s", name, u)
	}
	if strings.Contains(strings.Join(requests, " "), url) {
		t.Errorf("%s: the canary server is in the network log", name)
	}
}
