package replaystream

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

func TestFidelity(t *testing.T) {
	for _, tt := range []struct {
		c    Counts
		want Fidelity
	}{
		{Counts{}, Unverified}, // no steps: nothing reproduced
		{Counts{Matched: 3, Recorded: 2, DivergedExpected: 5}, Exact},
		{Counts{Matched: 1, SkippedRejected: 4}, Exact},
		{Counts{Matched: 3, Diverged: 1, DivergedExpected: 1}, Degraded},
		{Counts{Diverged: 1, Failed: 1}, FailedReplay},
		{Counts{Failed: 1}, FailedReplay},
		{Counts{Failed: 1, Recorded: 3}, FailedReplay},
		// Nothing re-ran and matched: never exact.
		{Counts{Recorded: 5}, Unverified},
		{Counts{Recorded: 2, SkippedRejected: 1}, Unverified},
		{Counts{DivergedExpected: 2, Recorded: 1}, Unverified},
		{Counts{SkippedRejected: 1}, Unverified},
		// A step not allowed to run is no failure, and leaves the run
		// unverified even when others matched; a failure or a divergence
		// found says more.
		{Counts{NotAllowed: 2}, Unverified},
		{Counts{Matched: 3, NotAllowed: 1}, Unverified},
		{Counts{Matched: 3, Diverged: 1, NotAllowed: 1}, Degraded},
		{Counts{Failed: 1, NotAllowed: 1}, FailedReplay},
	} {
		if got := tt.c.Fidelity(); got != tt.want {
			t.Errorf("fidelity(%+v) = %s; want %s", tt.c, got, tt.want)
		}
	}
}

func TestUnreproduced(t *testing.T) {
	for _, tt := range []struct {
		c    Counts
		want string
	}{
		{Counts{}, "the pack has no steps"},
		{Counts{Steps: 3, Recorded: 1, NotAllowed: 2},
			"no step's output was reproduced: of 3, 2 not allowed to run (each step's reason names the flag that runs it), 1 served from the recording"},
		{Counts{Steps: 4, Matched: 3, NotAllowed: 1}, "1 of 4 steps were not allowed to run (each step's reason names the flag that runs it)"},
	} {
		if got := tt.c.Unreproduced(); got != tt.want {
			t.Errorf("Unreproduced(%+v) = %q; want %q", tt.c, got, tt.want)
		}
	}
}

// TestReplayed checks the replayed run a stream makes of its pack: the
// steps' outputs as replayed, the environment as the replay ran, parent
// the original, and nothing else changed.
func TestReplayed(t *testing.T) {
	out := func(s string) *store.Hash { h := store.Sum([]byte(s)); return &h }
	size := func(n int64) *int64 { return &n }
	orig := &pack.Manifest{
		Version: pack.Version, Hash: store.Sum([]byte("orig")).String(), Created: ptr("2026-01-01T00:00:00Z"),
		Model: pack.Model{Identifier: "m"}, Prompts: []pack.Prompt{},
		Inputs:  []pack.File{{Name: "a.go", ContentRef: *out("a"), Size: 1}},
		Outputs: []pack.Output{{Name: "r.md", ContentRef: *out("r"), Size: 1}},
		Steps: []pack.Step{
			{Index: 0, Tool: "read_file", OutputRef: out("a"), OutputSize: size(1)},
			{Index: 1, Tool: "lint", OutputRef: out("ok"), OutputSize: size(2)},
			{Index: 2, Tool: "think", OutputRef: out("hm"), OutputSize: size(2)},
			{Index: 3, Tool: "fmt", OutputRef: out("x"), OutputSize: size(1)},
			{Index: 4, Tool: "bash", OutputRef: out("PASS"), OutputSize: size(4)},
			{Index: 5, Tool: "sh", OutputRef: out("done"), OutputSize: size(4)},
		},
		Environment: json.RawMessage(`{"os":"linux","tool_versions":{"bash":"5.1","fmt":"1.0","lint":"2"}}`),
	}
	pk, _ := store.ParseRef(orig.Hash)
	cur := func(s string) *string { return &s }
	s := &Stream{
		Steps: []Step{
			{Index: 0, Tool: "read_file", Status: Matched, Actual: out("a")},
			{Index: 1, Tool: "lint", Status: Failed},
			{Index: 2, Tool: "think", Status: Recorded, Actual: out("hm"), ActualSize: size(2)},
			{Index: 3, Tool: "fmt", Status: Diverged, Actual: out("y!"), ActualSize: size(2)},
			{Index: 5, Tool: "sh", Status: NotAllowed, Reason: "needs --allow-exec"},
		},
		Report: Report{Pack: pk, Drift: []Drift{
			{Kind: DriftEnvironment, Field: "os", Recorded: "linux", Current: cur("darwin")},
			{Kind: DriftToolVersion, Tool: "fmt", Recorded: "1.0", Current: cur("1.1")},
			{Kind: DriftToolVersion, Tool: "lint", Recorded: "2"},
			{Kind: DriftChangedInput, Name: "a.go", Expected: *out("a"), Actual: out("b")},
			{Kind: DriftMissingTool, Tool: "lint", Steps: []int{1}},
		}},
	}
	m, warnings, err := Replayed(orig, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "no line for 1 of 6 steps") {
		t.Errorf("warnings %q", warnings)
	}
	for i, want := range []struct {
		ref  *store.Hash
		size *int64
	}{{out("a"), size(1)}, {nil, nil}, {out("hm"), size(2)}, {out("y!"), size(2)}, {out("PASS"), size(4)}, {out("done"), size(4)}} {
		got := m.Steps[i]
		if !sameHash(got.OutputRef, want.ref) || (got.OutputSize == nil) != (want.size == nil) || got.OutputSize != nil && *got.OutputSize != *want.size {
			t.Errorf("step %d: output %v (%v), want %v (%v)", i, got.OutputRef, got.OutputSize, want.ref, want.size)
		}
	}
	// A tool whose version is unknown now loses its recorded version; the
	// input drift stays the replay's, not the run's.
	if got, want := string(m.Environment), `{"os":"darwin","tool_versions":{"bash":"5.1","fmt":"1.1"}}`; got != want {
		t.Errorf("environment %s, want %s", got, want)
	}
	if m.Parent == nil || *m.Parent != pk || m.Hash != "" || m.Created != orig.Created {
		t.Errorf("parent %v, hash %q, created %s", m.Parent, m.Hash, m.CreatedText())
	}
	if !reflect.DeepEqual(m.Inputs, orig.Inputs) || !reflect.DeepEqual(m.Outputs, orig.Outputs) {
		t.Errorf("inputs %+v, outputs %+v: want the recorded ones", m.Inputs, m.Outputs)
	}
	if *orig.Steps[3].OutputRef != *out("x") || string(orig.Environment) != `{"os":"linux","tool_versions":{"bash":"5.1","fmt":"1.0","lint":"2"}}` {
		t.Errorf("Replayed changed the original")
	}
}

func sameHash(a, b *store.Hash) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// TestDriftRoundTrip checks that every kind reads back as written, a null
// current staying unknown.
func TestDriftRoundTrip(t *testing.T) {
	h := store.Sum([]byte("x"))
	v := "2.0"
	for _, d := range []Drift{
		{Kind: DriftToolVersion, Tool: "t", Recorded: "1.0", Current: &v},
		{Kind: DriftToolVersion, Tool: "t", Recorded: "1.0"},
		{Kind: DriftMissingTool, Tool: "t", Steps: []int{1, 4}},
		{Kind: DriftEnvironment, Field: "os", Recorded: "darwin", Current: &v},
		{Kind: DriftMissingInput, Name: "a", Expected: h, Reason: "not in the working tree"},
		{Kind: DriftCorruptInput, Name: "a", Expected: h, Actual: &h},
		{Kind: DriftChangedInput, Name: "a", Expected: h, Actual: &h},
		{Kind: DriftMissingObject, Where: "outputs[0]", Expected: h},
		{Kind: DriftCorruptObject, Where: "prompts[1]", Expected: h},
	} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var got Drift
		if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("%s read back as %+v (%v)", b, got, err)
		}
	}
	var odd Drift
	if err := json.Unmarshal([]byte(`{"kind":"future","tool":7,"current":false,"steps":"x"}`), &odd); err != nil || odd.Kind != "future" || odd.Tool != "" || odd.Current != nil {
		t.Errorf("a drift of another version: %+v, %v", odd, err)
	}
}

func ptr(s string) *string { return &s }
