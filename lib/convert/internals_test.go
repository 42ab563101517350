package convert

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
)

func TestWorkdirText(t *testing.T) {
	w := newWorkdir("/tmp/tmp74wiyiny/")
	cases := []struct{ in, want string }{
		{"/tmp/tmp74wiyiny/hello.sh", "hello.sh"},
		{"/tmp/tmp74wiyiny", "."},
		{"/tmp/tmp74wiyiny/", "."},
		{"/tmp/tmp74wiyiny/a/../b.go", "b.go"},
		{"chmod +x /tmp/tmp74wiyiny/hello.sh && /tmp/tmp74wiyiny/hello.sh", "chmod +x ./hello.sh && ./hello.sh"},
		{"cd /tmp/tmp74wiyiny && ls", "cd . && ls"},
		{`open("/tmp/tmp74wiyiny/x")`, `open("./x")`},
		{"/tmp/tmp74wiyinyX/a", "/tmp/tmp74wiyinyX/a"},               // another directory
		{"/var/tmp/tmp74wiyiny/a", "/var/tmp/tmp74wiyiny/a"},         // not at a word start
		{"/home/dev/venv/bin/python", "/home/dev/venv/bin/python"},   // outside: as written
		{"/tmp/tmp74wiyiny/a b.txt", "./a b.txt"},                    // a space: text, not a path
		{"x=/tmp/tmp74wiyiny/out,y=/tmp/tmp74wiyiny", "x=./out,y=."}, // several
		{"", ""},
	}
	for _, c := range cases {
		if got := w.text(c.in); got != c.want {
			t.Errorf("text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := newWorkdir("").text("/tmp/x"); got != "/tmp/x" {
		t.Errorf("no workdir rewrote %q", got)
	}
	if newWorkdir("/").dir != "" || newWorkdir("rel").dir != "" {
		t.Errorf("/ and relative directories must rewrite nothing")
	}
}

func TestWorkdirName(t *testing.T) {
	w := newWorkdir("/work")
	cases := []struct {
		in   string
		want string
		ok   bool
	}{
		{"/work/src/a.go", "src/a.go", true},
		{"src/./a.go", "src/a.go", true},
		{"/work/../etc/passwd", "", false},
		{"../x", "", false},
		{"/etc/passwd", "", false},
		{"/work", "", false},
		{"/work/.ctx/objects/ab", "", false},
		{"a\\b", "", false},
		{"", "", false},
		{"C:/x", "", false},
	}
	for _, c := range cases {
		got, ok := w.name(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("name(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if _, ok := newWorkdir("").name("/abs/a.go"); ok {
		t.Errorf("an absolute path became a name with no working directory")
	}
}

func TestSafeNumber(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{"42", json.Number("42")},
		{"0.1", json.Number("0.1")},
		{"12324293800750531911", "12324293800750531911"}, // a span id: a double would round it
		{"9007199254740993", "9007199254740993"},
		{"9007199254740992", json.Number("9007199254740992")},
		{"1e400", "1e400"},
		{"-3.5e-7", json.Number("-3.5e-7")},
	}
	for _, c := range cases {
		if got := safeNumber(json.Number(c.in)); got != c.want {
			t.Errorf("safeNumber(%s) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

// TestStepsPairing runs the pairing queue through the orders transcripts
// really use: results out of order, ids reused, results with no call,
// calls with no result.
func TestStepsPairing(t *testing.T) {
	type op struct {
		kind string // call, result, model
		id   string
		text string
	}
	cases := []struct {
		name string
		ops  []op
		want []string // tool:output per step, in order
		miss int
		orph int
	}{
		{"in order", []op{{"call", "a", "t1"}, {"result", "a", "r1"}, {"model", "", "m"}}, []string{"t1:r1", "model:m"}, 0, 0},
		{"parallel, answered backwards", []op{{"call", "a", "t1"}, {"call", "b", "t2"}, {"model", "", "m"}, {"result", "b", "r2"}, {"result", "a", "r1"}}, []string{"t1:r1", "t2:r2", "model:m"}, 0, 0},
		{"reused id", []op{{"call", "x", "t1"}, {"result", "x", "r1"}, {"call", "x", "t2"}, {"result", "x", "r2"}}, []string{"t1:r1", "t2:r2"}, 0, 0},
		{"reused id, both open", []op{{"call", "x", "t1"}, {"call", "x", "t2"}, {"result", "x", "r1"}, {"result", "x", "r2"}}, []string{"t1:r1", "t2:r2"}, 0, 0},
		// An orphan result is an event, not a call (the tool it names is kept in
		// metadata).
		{"orphan result", []op{{"result", "z", "r"}}, []string{"orphan_result:r"}, 0, 1},
		{"no result", []op{{"call", "a", "t1"}, {"model", "", "m"}}, []string{"t1:", "model:m"}, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var warns []string
			w := newWriter(&out, Options{Model: "m", Warn: func(s string) { warns = append(warns, s) }})
			if err := w.run(runFields{}); err != nil {
				t.Fatal(err)
			}
			q := newSteps(w)
			for _, o := range c.ops {
				var err error
				text := o.text
				switch o.kind {
				case "call":
					_, err = q.call(o.id, stepRec{Type: "tool_call", Tool: o.text})
				case "result":
					_, err = q.result(o.id, callResult{Text: text, HasText: true, Tool: "named"})
				case "model":
					_, err = q.add(stepRec{Type: "model_call", Tool: "model", Output: &text})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := q.close(); err != nil {
				t.Fatal(err)
			}
			if err := w.out.Flush(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
				var ev pack.StepEvent
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatal(err)
				}
				o := ""
				if ev.Output != nil {
					o = *ev.Output
				}
				got = append(got, ev.Tool+":"+o)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("steps %v, want %v", got, c.want)
			}
			if q.missing != c.miss || q.orphans != c.orph {
				t.Errorf("missing %d orphans %d, want %d %d", q.missing, q.orphans, c.miss, c.orph)
			}
			if (c.miss > 0 || c.orph > 0) != (len(warns) > 0) {
				t.Errorf("warnings %q", warns)
			}
		})
	}
}

// TestStepsBounded checks that a call never answered does not hold every
// later step in memory.
func TestStepsBounded(t *testing.T) {
	var out bytes.Buffer
	w := newWriter(&out, Options{Model: "m"})
	_ = w.run(runFields{})
	q := newSteps(w)
	if _, err := q.call("never", stepRec{Type: "tool_call", Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3*maxWaiting; i++ {
		s := "x"
		if _, err := q.add(stepRec{Type: "model_call", Tool: "m", Output: &s}); err != nil {
			t.Fatal(err)
		}
		if len(q.queue) > maxWaiting+1 {
			t.Fatalf("queue holds %d steps", len(q.queue))
		}
	}
	if q.missing != 1 {
		t.Errorf("missing = %d, want 1", q.missing)
	}
}

func TestApplyEdits(t *testing.T) {
	cases := []struct {
		name string
		m    map[string]any
		want string
		ok   bool
	}{
		{"one", map[string]any{"oldString": "c", "newString": "C"}, "abCb", true},
		// Claude Code's Edit refuses a string found more than once without
		// replace_all: the edit was not made, so no file is known.
		{"not unique", map[string]any{"oldString": "b", "newString": "B"}, "", false},
		{"multi not unique", map[string]any{"edits": []any{map[string]any{"old_string": "a", "new_string": "A"}, map[string]any{"old_string": "b", "new_string": "B"}}}, "", false},
		{"all", map[string]any{"oldString": "b", "newString": "B", "replaceAll": true}, "aBcB", true},
		{"multi", map[string]any{"edits": []any{map[string]any{"old_string": "a", "new_string": "A"}, map[string]any{"old_string": "c", "new_string": "C"}}}, "AbCb", true},
		{"not found", map[string]any{"oldString": "z", "newString": "Z"}, "", false},
		{"empty old", map[string]any{"oldString": "", "newString": "Z"}, "", false},
		{"nothing", map[string]any{}, "", false},
	}
	for _, c := range cases {
		got, ok := applyEdits("abcb", c.m)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestTimes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"2026-01-21T06:20:30.851Z", "2026-01-21T06:20:30.851Z"},
		{"2025-05-12T20:27:36.997226-04:00", "2025-05-12T20:27:36.997226-04:00"},
		{"2025-01-27T22:44:56.900854", "2025-01-27T22:44:56.900854Z"}, // OpenHands: no zone, read as UTC
		{"2025-01-27 22:44:56", "2025-01-27T22:44:56Z"},
		{"yesterday", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := rfc3339(c.in); got != c.want {
			t.Errorf("rfc3339(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := unixTime(json.Number("1758026593210770000"), 1); got != "2025-09-16T12:43:13.21077Z" {
		t.Errorf("unixTime ns = %q", got)
	}
	if got := unixTime(json.Number("1738046713"), 0); got != "2025-01-28T06:45:13Z" {
		t.Errorf("unixTime s = %q", got)
	}
}

func TestIDText(t *testing.T) {
	if got := idText(json.Number("12324293800750531911"), 16); got != "ab08afea3548c547" {
		t.Errorf("idText = %q", got)
	}
	if got := idText("0xAB", 16); got != "ab" {
		t.Errorf("idText hex = %q", got)
	}
	if got := otlpID("qwiv6jVIxUc="); got != "ab08afea3548c547" {
		t.Errorf("otlpID base64 = %q", got)
	}
}
