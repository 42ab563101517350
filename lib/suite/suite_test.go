package suite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// TestCmpTask orders ids as Inspect orders samples.
func TestCmpTask(t *testing.T) {
	ids := []string{"10", "2", "b", "a", "1"}
	runs := make([]Run, len(ids))
	for i, id := range ids {
		runs[i] = Run{Task: id, Epoch: 1}
	}
	runs = append(runs, Run{Task: "2", Epoch: 3}, Run{Task: "2", Epoch: 2})
	sortRuns(runs)
	var got []string
	for _, r := range runs {
		got = append(got, r.Task+":"+string(rune('0'+r.Epoch)))
	}
	if strings.Join(got, " ") != "1:1 2:1 2:2 2:3 10:1 a:1 b:1" {
		t.Errorf("order %v", got)
	}
}

// TestStemOf names a task by its file or folder.
func TestStemOf(t *testing.T) {
	for in, want := range map[string]string{
		"django__django-11099.traj":                      "django__django-11099",
		"django__django-11099.traj.json.gz":              "django__django-11099",
		"django__django-11099/django__django-11099.traj": "django__django-11099",
		"run.v2.jsonl": "run.v2",
		"README":       "README",
	} {
		if got := stemOf(in); got != want {
			t.Errorf("stemOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadResults reads each shape of results file and names the field
// of a bad one.
func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := func() []Run { return []Run{{Task: "a", Epoch: 1}, {Task: "b", Epoch: 1}, {Task: "c", Epoch: 1}} }
	verdicts := func(rs []Run) string {
		var out []string
		for _, r := range rs {
			switch p := r.Passed(); {
			case p == nil && r.End != nil && r.End.State == "error":
				out = append(out, r.Task+"=errored("+r.End.Message+")")
			case p == nil:
				out = append(out, r.Task+"=?")
			case *p:
				out = append(out, r.Task+"=pass:"+r.Outcome.Source)
			default:
				out = append(out, r.Task+"=fail:"+r.Outcome.Source)
			}
		}
		return strings.Join(out, " ")
	}
	cases := []struct {
		name, file, want string
		warnings         int
	}{
		{"results.json", `{"resolved": ["a", "z"], "no_logs": ["c"]}`, "a=pass:results.json b=fail:results.json c=fail:results.json", 2},
		{"errors.json", `{"resolved": ["a"], "test_timeout": ["b", "a"]}`, "a=pass:errors.json b=errored(test_timeout) c=fail:errors.json", 1},
		{"results_summary.json", `{"instances": [{"instance_id": "b", "resolved": true}, {"instance_id": "c", "resolved": false}]}`, "a=? b=pass:results_summary.json c=fail:results_summary.json", 1},
		{"report.json", `{"a": {"resolved": false, "tests_status": {}}}`, "a=fail:report.json b=? c=?", 1},
		{"run.json", `{"resolved_ids": ["c"], "unresolved_ids": ["a"], "error_ids": ["b"]}`, "a=fail:run.json b=errored(error_ids) c=pass:run.json", 0},
		{"both.json", `{"resolved": ["a"], "unresolved": ["b"]}`, "a=pass:both.json b=fail:both.json c=?", 1},
		{"report-ids.json", `{"resolved_ids": ["a"], "unresolved_ids": ["b"]}`, "a=pass:report-ids.json b=fail:report-ids.json c=?", 1},
		{"tb.json", `{"results": [{"task_id": "a", "trial_name": "a.1-of-2", "is_resolved": true}, {"task_id": "a", "trial_name": "a.2-of-2", "is_resolved": false},
			{"task_id": "c", "trial_name": "c.1-of-1", "is_resolved": null, "failure_mode": "test_timeout"}], "resolved_ids": ["a"]}`,
			"a=pass:tb.json b=? c=errored(test_timeout)", 2},
		{"trial.json", `{"task_id": "b", "trial_name": "b.1-of-1.2026-05-01", "is_resolved": false, "instruction": "x"}`, "a=? b=fail:trial.json c=?", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ReadResults([]string{write(c.name, c.file)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rs := runs()
			warnings := 0
			if err := r.apply(rs, func(string) { warnings++ }, nil); err != nil {
				t.Fatal(err)
			}
			if got := verdicts(rs); got != c.want || warnings != c.warnings {
				t.Errorf("%s (%d warnings), want %s (%d warnings)", got, warnings, c.want, c.warnings)
			}
		})
	}
	write("logs/a/report.json", `{"a": {"resolved": true}}`)
	write("logs/b/report.json", `{"b": {"resolved": false}}`)
	r, err := ReadResults([]string{filepath.Join(dir, "logs")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := runs()
	if err := r.apply(rs, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := verdicts(rs); got != "a=pass:report.json b=fail:report.json c=?" {
		t.Errorf("folder: %s", got)
	}
	// A results file that names none of the suite's tasks judges nothing.
	r, err = ReadResults([]string{write("other.json", `{"resolved": ["x", "y"]}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.apply(runs(), nil, nil); err == nil || !strings.Contains(err.Error(), "names none of the suite's 3 tasks (it names 2 tasks, as x, y; the suite's are as a, b)") {
		t.Errorf("no task matched: %v", err)
	}
	for bad, msg := range map[string]string{
		`[1]`:                              "must be a JSON object, not an array",
		`{"resolved": "a"}`:                ".resolved: must be an array of task ids, not a string",
		`{"resolved": [1]}`:                ".resolved[0]: must be a task id (a string), not a number",
		`{"instances": [{"resolved": 1}]}`: ".instances[0].instance_id: must be a string, not null",
		`{"instances": [{"instance_id": "a", "resolved": "yes"}]}`: ".instances[0].resolved: must be true or false, not a string",
		`{"results": [{"task_id": 3}]}`:                            ".results[0].task_id: must be a string, not number",
		`{"results": [{"task_id": "a", "is_resolved": "yes"}]}`:    ".results[0].is_resolved: must be true, false or null, not string",
		`{"results": [{"task_id": ""}]}`:                           ".results[0]: an empty task id",
		`{"x": 1}`:                                                 "not a results file",
		`{"resolved": [`:                                           "invalid JSON",
	} {
		_, err := ReadResults([]string{write("bad.json", bad)}, nil)
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v, want %q", bad, err, msg)
		}
	}
}

// TestResultsLeaveOthers holds what the runs a results file does not
// name get: their own verdicts (or none), unless the file lists the
// resolved tasks alone; either way a warning says how many of the
// suite's tasks and runs it judged, and a note counts the runs whose own
// verdict it reversed.
func TestResultsLeaveOthers(t *testing.T) {
	dir := t.TempDir()
	own := func(passed bool) *pack.Outcome { return &pack.Outcome{Passed: &passed, Source: "grader"} }
	runs := func() []Run {
		return []Run{{Task: "a", Epoch: 1, Outcome: own(true)}, {Task: "b", Epoch: 1, Outcome: own(true)},
			{Task: "c", Epoch: 1, Outcome: own(false)}, {Task: "c", Epoch: 2, Outcome: own(true)}, {Task: "d", Epoch: 1}}
	}
	for _, c := range []struct {
		file, want, warning, note string
	}{
		{`{"resolved": ["a"], "unresolved": ["b"]}`, "a:true b:false c:false c:true d:nil",
			"--results r.json judges 2 of the suite's 4 tasks (2 of its 5 runs); the other 3 runs (tasks c, d) keep their own verdicts: 1 passed, 1 failed, 1 without a verdict",
			"--results r.json reverses the own verdict of 1 run: 1 from passed to failed"},
		{`{"resolved": ["a", "zz"]}`, "a:true b:false c:false c:false d:false",
			"--results r.json judges 1 of the suite's 4 tasks (1 of its 5 runs); the other 4 runs (tasks b, c, d) are judged failed: it lists the resolved tasks only (as SWE-bench's results.json), so what it does not name did not pass; 2 of them passed by their own verdict",
			""},
		{`{"instances": [{"instance_id": "d", "resolved": true}]}`, "a:true b:true c:false c:true d:true",
			"--results r.json judges 1 of the suite's 4 tasks (1 of its 5 runs); the other 4 runs (tasks a, b, c) keep their own verdicts: 3 passed, 1 failed",
			""},
		{`{"results": [{"task_id": "c", "trial_name": "c.2-of-2", "is_resolved": false}]}`, "a:true b:true c:false c:false d:nil",
			"--results r.json judges 1 of the suite's 4 tasks (1 of its 5 runs); the other 4 runs (tasks a, b, c, d) keep their own verdicts: 2 passed, 1 failed, 1 without a verdict",
			"--results r.json reverses the own verdict of 1 run: 1 from passed to failed"},
	} {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadResults([]string{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := runs()
		var warnings, notes []string
		if err := r.apply(rs, func(s string) { warnings = append(warnings, s) }, func(s string) { notes = append(notes, s) }); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, run := range rs {
			v := "nil"
			if p := run.Passed(); p != nil {
				v = strconv.FormatBool(*p)
			}
			got = append(got, run.Task+":"+v)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: %s, want %s", c.file, g, c.want)
		}
		if len(warnings) == 0 || strings.ReplaceAll(warnings[0], dir+"/", "") != c.warning {
			t.Errorf("%s: warnings %q, want first %q", c.file, warnings, c.warning)
		}
		if n := strings.ReplaceAll(strings.Join(notes, "\n"), dir+"/", ""); n != c.note {
			t.Errorf("%s: notes %q, want %q", c.file, n, c.note)
		}
	}
}

// TestTrialEpoch reads the epoch of Terminal-Bench's trial names.
func TestTrialEpoch(t *testing.T) {
	for _, c := range []struct {
		task, name string
		want       int
	}{
		{"hello-world", "hello-world.1-of-5", 1},
		{"hello-world", "hello-world.3-of-5.2026-05-01__12-00-00", 3},
		{"a.2-of-3", "a.2-of-3.1-of-2", 1},
		{"t", "t.trial-2", 0},
		{"t", "t.0-of-5", 0},
		{"t", "other.4-of-5", 4},
	} {
		if got := trialEpoch(c.task, c.name); got != c.want {
			t.Errorf("trialEpoch(%q, %q) = %d, want %d", c.task, c.name, got, c.want)
		}
	}
}

// TestSettleTasks gives every run a task and an epoch: its own, its
// file's stem (a file of one run), else its index in its source; repeated
// epochs of one task renumbered in source order, distinct ones kept.
func TestSettleTasks(t *testing.T) {
	file := &unit{source: "trajs", stem: "django__django-1"}
	many := &unit{source: "-", stem: ""}
	mk := func(u *unit, task string, epoch, n int) *found {
		f := &found{unit: u, nInSrc: n, run: Run{Task: task, Epoch: epoch}, hasID: task != ""}
		return f
	}
	runs := []*found{
		mk(file, "", 0, 1),  // the stem
		mk(many, "", 0, 3),  // index 1
		mk(many, "x", 0, 3), // x epoch 1
		mk(many, "x", 0, 3), // x again: renumbered
		mk(many, "y", 3, 3), // y keeps its epochs
		mk(many, "y", 1, 3),
	}
	perSource := map[string][]*found{}
	for _, f := range runs {
		perSource[f.unit.source] = append(perSource[f.unit.source], f)
		f.index = len(perSource[f.unit.source])
	}
	var notes []string
	settleTasks(runs, perSource, []string{"trajs", "-"}, func(format string, args ...any) { notes = append(notes, format) })
	var got []string
	for _, f := range runs {
		got = append(got, f.run.Task+":"+string(rune('0'+f.run.Epoch)))
	}
	if want := "django__django-1:1 1:1 x:1 x:2 y:3 y:1"; strings.Join(got, " ") != want {
		t.Errorf("tasks %v, want %s", got, want)
	}
	if len(notes) != 2 {
		t.Errorf("notes %q, want one for the index and one for x", notes)
	}
}
