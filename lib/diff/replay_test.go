package diff

import (
	"errors"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

func TestReadReplayErrors(t *testing.T) {
	pk := base().manifest().Hash
	h := store.Sum([]byte("x")).String()
	report := `{"event":"report","pack":"` + pk + `","status":"exact","counts":{},"diverged":[],"failed":[],"drift":[]}`
	tests := []struct {
		name, stream, want string
	}{
		{"no report", `{"event":"step","index":0,"tool":"t","status":"matched","expected":"` + h + `","actual":"` + h + `"}`, ErrNoReport.Error()},
		{"empty", "", ErrNoReport.Error()},
		{"not json", "{\"event\":\n", "replay stream line 1: not valid JSON"},
		{"no event", `{"index":0}`, `replay stream line 1: no "event" key`},
		{"bad status", `{"event":"step","index":0,"tool":"t","status":"odd"}`, `replay stream line 1: step 0: unknown status "odd"`},
		{"matched without actual", `{"event":"step","index":0,"tool":"t","status":"matched","actual":null}`, "replay stream line 1: step 0: status matched needs an actual hash"},
		{"bad hash", `{"event":"step","index":0,"tool":"t","status":"matched","actual":"md5:x"}`, `replay stream line 1: step 0: actual: "md5:x" is not a sha256:<hex> reference`},
		{"no index", `{"event":"step","tool":"t","status":"failed"}`, "replay stream line 1: step: index: missing or negative"},
		{"index type", `{"event":"step","index":"0","tool":"t","status":"failed"}`, "replay stream line 1: step: index: must be int, not string"},
		{"bad pack", `{"event":"report","pack":"latest"}`, `replay stream line 1: report: pack: "latest" is not a sha256:<hex> reference`},
		{"after report", report + "\n" + report, "replay stream line 2: data after the report line"},
		{"duplicate key", `{"event":"step","event":"report"}`, "replay stream line 1: not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReplay(strings.NewReader(tt.stream))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("ReadReplay: got %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ReadReplay(strings.NewReader("")); !errors.Is(err, ErrNoReport) {
		t.Errorf("an empty stream gives %v, want ErrNoReport", err)
	}
}

func TestReplayApply(t *testing.T) {
	orig := base().manifest()
	out1 := store.Sum([]byte("package a"))
	other := store.Sum([]byte("FAIL"))
	stream := strings.Join([]string{
		`{"event":"step","index":0,"tool":"read_file","deterministic":true,"status":"matched","expected":"` + out1.String() + `","actual":"` + out1.String() + `","actual_size":9}`,
		`{"event":"progress","note":"ignored"}`,
		`{"event":"step","index":1,"tool":"edit_file","deterministic":true,"status":"failed","expected":"` + store.Sum([]byte("ok")).String() + `","actual":null,"reason":"no such file"}`,
		`{"event":"step","index":2,"tool":"bash","deterministic":true,"status":"diverged","expected":"` + store.Sum([]byte("PASS")).String() + `","actual":"` + other.String() + `","actual_size":4}`,
		`{"event":"report","pack":"` + orig.Hash + `","status":"failed","counts":{"matched":1,"diverged":1,"diverged_expected":0,"failed":1,"recorded":0},"diverged":[2],"failed":[1],` +
			`"drift":[{"kind":"tool_version","tool":"bash","recorded":"5.1","current":"5.2"},{"kind":"missing_input","name":"a.go","expected":"sha256:00"},{"kind":"environment","field":"os","recorded":"linux","current":"darwin"}]}`,
	}, "\n") + "\n"
	rp, err := ReadReplay(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	m, warnings, err := rp.Apply(orig)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if m.Steps[1].OutputRef != nil || m.Steps[1].OutputSize != nil {
		t.Errorf("a failed step keeps an output")
	}
	if *m.Steps[2].OutputRef != other || *m.Steps[2].OutputSize != 4 {
		t.Errorf("a diverged step's output is not the actual one")
	}
	if orig.Steps[2].OutputRef == m.Steps[2].OutputRef || *orig.Steps[2].OutputRef == other {
		t.Errorf("Apply changed the original")
	}
	if got := string(m.Environment); got != `{"os":"darwin","tool_versions":{"bash":"5.2"}}` {
		t.Errorf("environment %s", got)
	}
	if m.Parent == nil || m.Parent.String() != orig.Hash {
		t.Errorf("parent %v, want %s", m.Parent, orig.Hash)
	}
	m.Hash = "sha256:replayed"
	r, err := Compare(orig, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range r.Drift {
		types = append(types, e.Type+"@"+e.Detail)
	}
	want := []string{
		"reasoning_drift@step 1 edit_file: output changed from " + sh("ok") + " (2 B) to none",
		"reasoning_drift@step 2 bash: output changed from " + sh("PASS") + " (4 B) to " + other.Short() + " (4 B)",
		"environment_drift@environment os changed from linux to darwin",
		"environment_drift@tool version of bash changed from 5.1 to 5.2",
	}
	if strings.Join(types, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift:\n%s\nwant:\n%s", strings.Join(types, "\n"), strings.Join(want, "\n"))
	}

	// A stream of another pack is refused, naming the step.
	bad := strings.Replace(stream, `"tool":"bash"`, `"tool":"zsh"`, 1)
	rp, err = ReadReplay(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rp.Apply(orig); err == nil || !strings.Contains(err.Error(), `step 2 is "zsh"`) {
		t.Errorf("a stream of another pack: %v", err)
	}
}
