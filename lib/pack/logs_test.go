package pack

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// readLogs reads every log of in whole, with the line each begins at.
func readLogs(t testing.TB, in string) ([]string, []int) {
	var logs []string
	var lines []int
	l := NewLogs(strings.NewReader(in))
	for r := l.Next(); r != nil; r = l.Next() {
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, string(b))
		lines = append(lines, l.Line())
	}
	return logs, lines
}

func TestLogs(t *testing.T) {
	run := `{"event":"run","model":{"identifier":"m"}}` + "\n"
	step := `{"event":"step","tool":"t","output":"a \"run\" of it"}` + "\n"
	prompt := `{"event":"prompt","content":"hi"}` + "\n"
	cases := []struct {
		name  string
		in    string
		want  []string
		lines []int
	}{
		{"one log", run + step, []string{run + step}, []int{1}},
		{"its run event after other lines", prompt + run + step, []string{prompt + run + step}, []int{1}},
		{"two logs", run + step + run + prompt, []string{run + step, run + prompt}, []int{1, 3}},
		{"three, the last without a newline", run + run + step + strings.TrimSuffix(run, "\n"), []string{run, run + step, strings.TrimSuffix(run, "\n")}, []int{1, 2, 4}},
		{"a document", "{\n  \"event_x\": 1, \"model\": {}}\n" + run, []string{"{\n  \"event_x\": 1, \"model\": {}}\n" + run}, []int{1}},
		{"empty", "", []string{""}, []int{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, lines := readLogs(t, c.in)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(lines) != len(c.lines) {
				t.Fatalf("logs %q, want %q", got, c.want)
			}
			for i := range lines {
				if lines[i] != c.lines[i] {
					t.Errorf("log %d begins at line %d, want %d", i+1, lines[i], c.lines[i])
				}
			}
		})
	}
}

// TestLogsEachBuilds builds each log of a stream of two: the second run's
// steps are its own.
func TestLogsEachBuilds(t *testing.T) {
	in := `{"event":"run","model":{"identifier":"a"}}
{"event":"step","tool":"x"}
{"event":"run","model":{"identifier":"b"}}
{"event":"step","tool":"y"}
{"event":"step","tool":"z"}
`
	l := NewLogs(strings.NewReader(in))
	var got []string
	for r := l.Next(); r != nil; r = l.Next() {
		res, err := Build(r, HashSink{}, Options{Root: t.TempDir(), Warn: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Manifest
		got = append(got, m.Model.Identifier+":"+strings.Repeat("s", len(m.Steps)))
	}
	if strings.Join(got, " ") != "a:s b:ss" {
		t.Errorf("got %q", got)
	}
}

// FuzzLogs: whatever the input, the logs read back are the input, in
// order, and every log but the first begins with a run event.
func FuzzLogs(f *testing.F) {
	f.Add([]byte(`{"event":"run","model":{"identifier":"a"}}` + "\n" + `{"event":"step","tool":"x"}` + "\n" + `{"event":"run"}`))
	f.Add([]byte("{\"event\":\"prompt\"}\n{\"event\":\"run\"}\n\n{\"event\":\"run\",\"x\":\"run\"}"))
	f.Add([]byte(`{"model":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		logs, _ := readLogs(t, string(data))
		if strings.Join(logs, "") != string(data) {
			t.Fatalf("the logs %q are not the input %q", logs, data)
		}
		for i, lg := range logs[1:] {
			first, _, _ := strings.Cut(lg, "\n")
			if !runLine([]byte(first), false) {
				t.Fatalf("log %d begins with %q", i+2, first)
			}
		}
		if len(logs) > 1 && !bytes.Contains(data, []byte(`"run"`)) {
			t.Fatal("split without a run event")
		}
	})
}

// TestLogsLongLines: lines longer than the reader's buffer pass whole and
// in order, and a long run line still begins the next log.
func TestLogsLongLines(t *testing.T) {
	big := strings.Repeat("x", 700<<10)
	in := `{"event":"run","model":{"identifier":"a"}}` + "\n" +
		`{"event":"input","name":"a","content":"` + big + `"}` + "\n" +
		`{"event":"run","model":{"identifier":"b"},"metadata":{"pad":"` + big + `"}}` + "\n" +
		`{"event":"step","tool":"x","output":"` + big + `run"}` + "\n"
	logs, _ := readLogs(t, in)
	if len(logs) != 2 || strings.Join(logs, "") != in {
		t.Fatalf("%d logs; joined equal: %v", len(logs), strings.Join(logs, "") == in)
	}
	if !strings.HasPrefix(logs[1], `{"event":"run","model":{"identifier":"b"}`) {
		t.Fatalf("the second log begins with %.60q", logs[1])
	}
}
