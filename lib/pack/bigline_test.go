package pack

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// TestLongLineAsWhole reads the same logs with every line taken as long
// (streamed: bigEvent) and as a whole line, and holds the two to the same
// manifest: content with escapes, surrogate pairs and multi-byte UTF-8 cut
// anywhere, base64 padded, unpadded and with line breaks, and the
// problems of a bad base64.
func TestLongLineAsWhole(t *testing.T) {
	raw := make([]byte, 3000)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	b64 := base64.StdEncoding.EncodeToString(raw)
	logs := []string{
		`{"event":"run","model":{"identifier":"m"}}
{"event":"prompt","role":"user","content":"h\u00e9llo \"q\" \\ \/ \b\f\n\r\t \ud83d\ude00 ✓ é"}
{"event":"input","name":"a.bin","content_base64":"` + b64 + `"}
{"event":"input","name":"b.bin","content_base64":"` + strings.TrimRight(base64.StdEncoding.EncodeToString(raw[:100]), "=") + `"}
{"event":"input","name":"c.bin","content_base64":"` + b64[:76] + `\n` + b64[76:152] + `\r\n"}
   {"event" : "step" , "tool":"t","parameters":{"a":[1,{"b":"}"}]},"output":"` + strings.Repeat("ü€😀", 5000) + `","metadata":{"k":null}}   
{"event":"step","tool":"t","normalized_output":"n","output":"o"}
{"event":"output","name":"r.txt","content":"","confidence":"high"}`,
		`{"event":"run","model":{"identifier":"m"}}
{"event":"input","name":"bad","content_base64":"!!!!"}`,
	}
	for i, log := range logs {
		var want, got string
		for pass, long := range []bool{false, true} {
			res, err := Build(strings.NewReader(log), HashSink{}, Options{Root: t.TempDir(), tune: tuned(func(t *tuning) { t.allLong = long })})
			out := fmt.Sprint(err)
			if err == nil {
				canon, _, err := Encode(res.Manifest)
				if err != nil {
					t.Fatal(err)
				}
				out = string(canon)
			}
			if pass == 0 {
				want = out
			} else {
				got = out
			}
		}
		if got != want {
			t.Errorf("log %d: streamed lines give\n%.600s\nwhole lines\n%.600s", i, got, want)
		}
	}
}

// TestLongLineErrors: a long line that is not one JSON object ends the
// build with a syntax error at its line and column; a long line whose
// event is unknown is a problem as for any line.
func TestLongLineErrors(t *testing.T) {
	allLong := tuned(func(t *tuning) { t.allLong = true })
	for log, want := range map[string]string{
		`{"event":"run","model":{"identifier":"m"}} x`:                                                      "line 1, column 44 (byte 44): invalid character 'x' after the event",
		"{\"event\":\"run\",\"model\":{\"identifier\":\"m\"}}\n{\"event\":\"input\",\"content\":\"a\x01\"}": "line 2, column 30 (byte 30): control character U+0001 in string must be escaped",
		"{\"event\":\"run\",\"model\":{\"identifier\":\"m\"}}\n{\"event\":\"input\",\"content\":\"abc":      "line 2, column 31 (byte 31): unexpected end of input: the line is truncated",
		"{\"event\":\"run\",\"model\":{\"identifier\":\"m\"}}\n{\"event\":\"nope\"}":                        `event: unknown event "nope"`,
	} {
		_, err := Build(strings.NewReader(log), HashSink{}, Options{Root: t.TempDir(), tune: allLong})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", log, err, want)
		}
	}
}

// tuned is ctx pack's tuning with the changes of f.
func tuned(f func(*tuning)) *tuning {
	t := defaultTuning()
	f(&t)
	return &t
}

// TestLongLineThenMore reads a log whose long line (longer than the
// reader's buffer) is followed by more events: they are read, none lost
// to the buffer the long line was streamed through.
func TestLongLineThenMore(t *testing.T) {
	log := `{"event":"run","model":{"identifier":"m"}}
{"event":"input","name":"a","content":"` + strings.Repeat("x", 600<<10) + `"}
{"event":"step","tool":"t","output":"o"}
{"event":"step","tool":"t","output":"\ud83d\ude00"}
`
	res, err := Build(strings.NewReader(log), HashSink{}, Options{Root: t.TempDir(), tune: tuned(func(t *tuning) { t.bigLine = 64 })})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Manifest.NumSteps(); n != 2 {
		t.Fatalf("%d steps after the long line, want 2", n)
	}
}
