package pack

import (
	"bytes"
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
		want := builtAs(t, log, nil)
		if got := builtAs(t, log, tuned(func(t *tuning) { t.allLong = true })); got != want {
			t.Errorf("log %d: streamed lines give\n%.600s\nwhole lines\n%.600s", i, got, want)
		}
	}
}

// builtAs is the canonical manifest Build makes of log with tune, or its
// error.
func builtAs(t *testing.T, log string, tune *tuning) string {
	t.Helper()
	res, err := Build(strings.NewReader(log), HashSink{}, Options{Root: t.TempDir(), tune: tune})
	if err != nil {
		return fmt.Sprint(err)
	}
	canon, _, err := Encode(res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return string(canon)
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

// TestLongElementAsWhole reads the same documents with every element of
// their arrays taken as long (streamed: bigElement) and whole, and holds
// the two to the same manifest or the same problems.
func TestLongElementAsWhole(t *testing.T) {
	raw := make([]byte, 3000)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	b64 := base64.StdEncoding.EncodeToString(raw)
	docs := []string{
		`{"model":{"identifier":"m"},
 "prompts":[{"role":"user","content":"h\u00e9llo \"q\" \\ \/ \b\f\n\r\t \ud83d\ude00 ✓ é"}],
 "inputs":[ {"name":"a.bin","content_base64":"` + b64 + `"},
   {"name":"b.bin","content_base64":"` + strings.TrimRight(base64.StdEncoding.EncodeToString(raw[:100]), "=") + `"} ,
   {"name":"c.bin",
    "content_base64":"` + b64[:76] + `\n` + b64[76:152] + `\r\n"}],
 "steps":[
   { "tool" : "t" , "parameters":{"a":[1,{"b":"}"}]},
     "output":"` + strings.Repeat("ü€😀", 5000) + `","metadata":{"k":null}}   ,
   {"tool":"t","normalized_output":"n","output":"o"}],
 "outputs":[{"name":"r.txt","content":"","confidence":"high"}]}`,
		`{"model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[{"name":"bad","content_base64":"!!!!"}]}`,
		`{"model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[{"name":"n","content":"x","extra":1e400}]}`,
		`{"model":{"identifier":"m"},"prompts":["a long string, not an object",[1,2]],"steps":[]}`,
	}
	for i, doc := range docs {
		want := builtAs(t, doc, nil)
		if got := builtAs(t, doc, tuned(func(t *tuning) { t.bigLine = 1 })); got != want {
			t.Errorf("doc %d: streamed elements give\n%s\nwhole\n%s", i, got, want)
		}
	}
}

// TestLongElementErrors: a syntax error in a streamed element of a
// document is at its line and column of the document.
func TestLongElementErrors(t *testing.T) {
	long := tuned(func(t *tuning) { t.bigLine = 1 })
	for doc, want := range map[string]string{
		"{\"model\":{\"identifier\":\"m\"},\n\"inputs\":[{\"name\":\"a\",\n \"content\":\"a\x01\"}]}": "line 3, column 14 (byte 65): control character U+0001 in string must be escaped",
		"{\"model\":{\"identifier\":\"m\"},\n\"inputs\":[{\"name\":\"a\",\n \"content\":\"abc":        "unexpected end of input: the log is truncated",
		"{\"model\":{\"identifier\":\"m\"},\n\"inputs\":[{\"name\":\"a\" x}]}":                        "line 2, column 23 (byte 51): invalid character 'x' after a member, expected ',' or '}'",
	} {
		_, err := Build(strings.NewReader(doc), HashSink{}, Options{Root: t.TempDir(), tune: long})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
}

// FuzzLongElements holds the streamed reading of a document's elements
// (bigElement) to the whole one: a log packed whole packs to the same
// manifest with every element streamed, and one refused whole is refused
// streamed (the words may differ: the streamed reader says them itself).
func FuzzLongElements(f *testing.F) {
	for _, s := range []string{
		`{"model":{"identifier":"m"},"prompts":[{"role":"user","content":"h\u00e9\"\\\n\ud83d\ude00"}],"steps":[{"tool":"t","parameters":{"a":[1,{"b":"}"}]},"output":"o","normalized_output_base64":"AAE="}],"inputs":[{"name":"a","content_base64":"AA\nE="}],"outputs":[{"name":"o","content":"y","confidence":"high"}]}`,
		`{"model":{"identifier":"m"},"prompts":[{"content":"x","content":"y"}],"steps":[]}`,
		`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","output":"\ud800"}]}`,
		"{\"model\":{\"identifier\":\"m\"},\"prompts\":[{\"content\":\"a\x01\"}],\"steps\":[]}",
		`{"model":{"identifier":"m"},"prompts":["s",[1],2,null],"steps":[{}]}`,
	} {
		f.Add([]byte(s))
	}
	root := fuzzRoot(f)
	long := tuned(func(t *tuning) { t.bigLine = 1 })
	f.Fuzz(func(t *testing.T, data []byte) {
		sameStreamed(t, root, data, long)
	})
}

// sameStreamed builds log whole and with tune (streamed): both refused,
// or both the same manifest.
func sameStreamed(t *testing.T, root string, log []byte, tune *tuning) {
	whole, werr := Build(bytes.NewReader(log), HashSink{}, Options{Root: root})
	streamed, serr := Build(bytes.NewReader(log), HashSink{}, Options{Root: root, tune: tune})
	if (werr == nil) != (serr == nil) {
		t.Fatalf("%q: whole %v, streamed %v", log, werr, serr)
	}
	if werr != nil {
		return
	}
	w, _, err1 := Encode(whole.Manifest)
	s, _, err2 := Encode(streamed.Manifest)
	if err1 != nil || err2 != nil || !bytes.Equal(w, s) {
		t.Fatalf("%q: whole\n%s\nstreamed\n%s", log, w, s)
	}
}

// FuzzLongLines holds the streamed reading of NDJSON lines (bigEvent) to
// the whole one, as FuzzLongElements does for a document's elements; the
// fuzzer's bytes follow a run line.
func FuzzLongLines(f *testing.F) {
	for _, s := range []string{
		`{"event":"step","tool":"t","parameters":{"a":[1,{"b":"}\n"}]},"output":"o\u00e9","metadata":{"k":null}}`,
		`{"event":"input","name":"a","content_base64":"AA\nE="}` + "\n" + `{"event":"prompt","content":"\ud800"}`,
		`{"event":"output","name":"o","content":"y","confidence":"high","x":1e400}`,
		`{"event":"step","tool":"t","parameters":}`,
	} {
		f.Add([]byte(s))
	}
	root := fuzzRoot(f)
	long := tuned(func(t *tuning) { t.allLong = true })
	f.Fuzz(func(t *testing.T, data []byte) {
		sameStreamed(t, root, append([]byte(`{"event":"run","model":{"identifier":"m"}}`+"\n"), data...), long)
	})
}
