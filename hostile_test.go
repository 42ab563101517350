package ctx_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os/exec"
	"strings"
	"testing"
)

// TestNDJSONLineOf100MB packs an NDJSON stream one of whose lines is an
// input of 100 MB of text full of JSON escapes, from standard input: the
// content is stored faithfully (ctx cat gives back the same bytes) and
// the store is intact. A line is the unit NDJSON is read by, so memory
// grows with the longest line, not with the stream: a few times the line
// (about 600 MiB here), held under 1 GiB.
func TestNDJSONLineOf100MB(t *testing.T) {
	unit := "a line with \"quotes\", a \\ backslash, a\ttab, é and 日本\n"
	content := strings.Repeat(unit, (100<<20)/len(unit)+1)
	esc, err := json.Marshal(content)
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer
	stream.WriteString(`{"event": "run", "created": "2026-01-01T00:00:00Z", "model": {"identifier": "m"}}` + "\n")
	stream.WriteString(`{"event": "input", "name": "big.txt", "content": `)
	stream.Write(esc)
	stream.WriteString("}\n")
	stream.WriteString(`{"event": "step", "tool": "read_file", "parameters": {"path": "big.txt"}, "output": "ok"}` + "\n")
	if stream.Len() < 100<<20 {
		t.Fatalf("the line is only %d bytes", stream.Len())
	}

	st := ctxtest.NewStoreDir(t)
	// Through maxrss, so the figure is ctx pack's and not this test's.
	cmd := exec.Command("maxrss", "1024", "ctx-pack", "--store", st, "-")
	cmd.Stdin = &stream
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctx pack: %v\n%s", err, stderr.String())
	}
	t.Logf("a line of %d bytes: %s", len(esc), strings.TrimSpace(stderr.String()))
	pack := strings.TrimSpace(stdout.String())

	cat := exec.Command("ctx-cat", "--store", st, pack+":inputs/big.txt")
	h := sha256.New()
	cat.Stdout = h
	if err := cat.Run(); err != nil {
		t.Fatalf("ctx cat: %v", err)
	}
	want := sha256.Sum256([]byte(content))
	if got := hex.EncodeToString(h.Sum(nil)); got != hex.EncodeToString(want[:]) {
		t.Errorf("ctx cat gave content hashing to %s, want %x", got, want)
	}
	if ps := ctxtest.Fsck(t, st, "--tmp-age", "0s"); len(ps) > 0 {
		t.Errorf("fsck: %v", ps)
	}
}
