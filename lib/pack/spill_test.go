package pack

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpillSameBytes builds logs with their steps in a scratch file and in
// memory and holds the two to the same canonical bytes: steps whose output
// is read from a file (held in memory until the end), steps the fast
// writer hands to the reference path (a string that is not valid UTF-8),
// and several passes over one scratch file.
func TestSpillSameBytes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.txt"), []byte("from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var many strings.Builder
	many.WriteString(`{"event":"run","model":{"identifier":"m"}}` + "\n")
	for i := 0; i < 3000; i++ {
		switch i % 4 {
		case 0:
			many.WriteString(`{"event":"step","tool":"read","parameters":{"path":"a","n":` + strings.Repeat("9", i%15+1) + `},"output":"x` + strings.Repeat("y", i%50) + `"}` + "\n")
		case 1:
			many.WriteString(`{"event":"step","tool":"cat","output_path":"out.txt","timestamp":"2026-01-02T03:04:05Z"}` + "\n")
		case 2:
			many.WriteString(`{"event":"step","tool":"esc\u00e9\u2028","parameters":{"k":"\ud83d\ude00","z":1E2},"output":"z","normalized_output":"n"}` + "\n")
		case 3:
			many.WriteString(`{"event":"step","type":"model_call","tool":"m","outcome":"rejected","metadata":{"b":2,"a":[1.50,1e3]}}` + "\n")
		}
	}
	logs := map[string]string{
		"document": `{"model":{"identifier":"m"},"prompts":[{"role":"user","content":"hi"}],"steps":[
			{"tool":"a","output_path":"out.txt"},{"tool":"b","output":"2"},{"tool":"a","output":"3","normalized_output_path":"out.txt"}],
			"outputs":[{"name":"out.txt","path":"out.txt"}],"inputs":[{"name":"i","content":"c"}]}`,
		"no steps": `{"model":{"identifier":"m"},"prompts":[],"steps":[]}`,
		"many":     many.String(),
	}
	for _, after := range []int{0, 1, 1024} {
		for name, log := range logs {
			sameSpilled(t, fmt.Sprintf("%s, spilled after %d", name, after), dir, log, after)
		}
	}
}

func sameSpilled(t *testing.T, name, dir, log string, spillAfter int) {
	t.Run(name, func(t *testing.T) {
		mem, err := Build(strings.NewReader(log), HashSink{}, Options{Root: dir})
		if err != nil {
			t.Fatal(err)
		}
		want, wantHash, err := Encode(mem.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Build(strings.NewReader(log), HashSink{}, Options{Root: dir, Scratch: func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "spill") }, tune: tuned(func(t *tuning) { t.spillAfter = spillAfter })})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Manifest
		defer m.Release()
		if spilled := m.spill != nil && len(m.Steps) == 0; spilled != (mem.Manifest.NumSteps() > spillAfter) {
			t.Fatalf("%d steps, spilled %v", mem.Manifest.NumSteps(), spilled)
		}
		if m.NumSteps() != mem.Manifest.NumSteps() {
			t.Fatalf("NumSteps %d, in memory %d", m.NumSteps(), mem.Manifest.NumSteps())
		}
		if got, want := strings.Join(m.Tools(), ","), strings.Join(mem.Manifest.Tools(), ","); got != want {
			t.Fatalf("Tools %q, in memory %q", got, want)
		}
		for pass := 0; pass < 2; pass++ {
			var buf bytes.Buffer
			if err := EncodeTo(&buf, m); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("pass %d: streamed bytes differ from the in-memory encoding\n got %.300s\nwant %.300s", pass, buf.Bytes(), want)
			}
		}
		got, gotHash, err := Encode(m)
		if err != nil || gotHash != wantHash || !bytes.Equal(got, want) {
			t.Fatalf("Encode of the spilled manifest: %v, %s, want %s", err, gotHash, wantHash)
		}
		m.Release()
		if err := EncodeTo(&bytes.Buffer{}, m); m.spill != nil && err == nil {
			t.Fatal("a released manifest was encoded")
		}
	})
}

// TestEncodeStepFallback holds a step the fast writer leaves to the
// reference path (a string that is not valid UTF-8, an integer a double
// cannot hold: never from a log, which is refused, but a manifest from
// elsewhere may have them) to the step as encodeSlow writes it within a
// whole manifest.
func TestEncodeStepFallback(t *testing.T) {
	big := int64(1) << 60
	steps := []Step{
		{Index: 0, Type: "tool_call", Tool: "bad\xff", Parameters: []byte(`{}`)},
		{Index: 1, Type: "tool_call", Tool: "t", Parameters: []byte(`{"a":1}`), OutputSize: &big},
	}
	for _, s := range steps {
		got, err := encodeStep(&s)
		if err != nil {
			t.Fatal(err)
		}
		whole, _, err := encodeSlow(&Manifest{Steps: []Step{s}})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(whole, append(append([]byte(`"steps":[`), got...), ']')) {
			t.Errorf("step %d: %s is not the step of %s", s.Index, got, whole)
		}
	}
}
