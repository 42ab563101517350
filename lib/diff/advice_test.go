package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// shifted is a run of n steps, and the same run with one step taken
// before them and a later output changed: by index every step after the
// first faces another tool, by sequence one step is added and one output
// changed.
func shifted(n int) (run, run) {
	tools := []string{"read_file", "edit_file", "bash", "list_dir"}
	a := base()
	a.steps = nil
	for i := range n {
		t := tools[i%len(tools)]
		a.steps = append(a.steps, [3]string{t, fmt.Sprintf(`{"n":%d}`, i), fmt.Sprintf("out %d", i)})
	}
	b := a
	b.steps = append([][3]string{{"glob", `{"pattern":"*.go"}`, "a.go"}}, a.steps...)
	b.steps[n] = [3]string{b.steps[n][0], b.steps[n][1], "another output"}
	return a, b
}

// TestAdvice: a report by index says when the sequence alignment would
// read better (the steps of one run shifted against the other's), and
// only then; it is not part of the JSON report.
func TestAdvice(t *testing.T) {
	a, b := shifted(8)
	r, err := Compare(a.manifest(), b.manifest(), Options{Advise: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Advice, "--align sequence pairs 8 more steps with their own tool") {
		t.Errorf("advice %q", r.Advice)
	}
	if doc, _ := json.Marshal(r); strings.Contains(string(doc), "align sequence") {
		t.Errorf("the JSON report carries the advice: %s", doc)
	}
	for _, tt := range []struct {
		name string
		a, b run
		opts Options
	}{
		{"not asked", a, b, Options{}},
		{"aligned by sequence already", a, b, Options{Align: AlignSequence, Advise: true}},
		{"same steps, other parameters", a, func() run {
			c := a
			c.steps = append([][3]string(nil), a.steps...)
			for i := range c.steps {
				c.steps[i][1] = `{"n":-1}`
			}
			return c
		}(), Options{Advise: true}},
		{"a step added at the end", a, func() run {
			c := a
			c.steps = append(append([][3]string(nil), a.steps...), [3]string{"glob", "{}", ""})
			return c
		}(), Options{Advise: true}},
	} {
		r, err := Compare(tt.a.manifest(), tt.b.manifest(), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Advice != "" {
			t.Errorf("%s: advice %q", tt.name, r.Advice)
		}
	}
}

// TestHumanShiftedStepsInColumns: when the sequence alignment pairs steps
// at different indexes, --human puts A's index and B's in two columns, so
// no line holds a number of one run beside a number of the other; when
// every step is at the same index, a line says "step N" as before.
func TestHumanShiftedStepsInColumns(t *testing.T) {
	a, b := shifted(4)
	r, err := Compare(a.manifest(), b.manifest(), Options{Align: AlignSequence})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteHuman(&out, r, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := `steps
  A  B  (the step's index in each run)
  -  0  glob: added (only in B)
  3  4  list_dir: output changed from ` + sh("out 3") + ` (5 B) to ` + sh("another output") + ` (14 B)
`
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("got\n%s\nwant it to begin\n%s", out.String(), want)
	}
	if regexp.MustCompile(`step \d+ \(\d+ in B\)`).MatchString(out.String()) {
		t.Errorf("a line holds the indexes of both runs:\n%s", out.String())
	}
	// The JSON sentence keeps both indexes, with step and step_b.
	if d := r.Drift[len(r.Drift)-1].Detail; !strings.HasPrefix(d, "step 3 (4 in B) list_dir: output changed") {
		t.Errorf("detail %q", d)
	}

	// Steps at the same index on both sides: no columns.
	c := a
	c.steps = append([][3]string(nil), a.steps...)
	c.steps[1][2] = "changed"
	r, err = Compare(a.manifest(), c.manifest(), Options{Align: AlignSequence})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := WriteHuman(&out, r, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "steps\n  step 1 edit_file: output changed from ") {
		t.Errorf("got\n%s", out.String())
	}
}
