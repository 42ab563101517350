package pack

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// buildBoth builds log with the document reader and with the Decoder's
// (the reference) and returns what each gave: the canonical manifest, or
// the error, with the warnings. The readers must say the same of a syntax
// error; where, the reference does not always pin right (an element after
// the first, a control character, the byte after a literal), so the
// document reader's position is checked against the log itself: the line
// and column of its byte offset, and the character the message names.
func buildBoth(t testing.TB, log string) (fast, slow string) {
	for _, s := range []bool{false, true} {
		var warns []string
		res, err := Build(strings.NewReader(log), HashSink{}, Options{Root: ".", Warn: func(w string) { warns = append(warns, w) }, tune: tuned(func(t *tuning) { t.slowDocument = s })})
		out := fmt.Sprintf("%v %q", err, warns)
		var se *SyntaxError
		if errors.As(err, &se) {
			out = fmt.Sprintf("syntax error: %s %q", se.Msg, warns)
			if !s && strings.HasPrefix(strings.TrimLeft(log, " \t\r\n"), "{") {
				checkPosition(t, log, se) // other documents are the reference's
			}
		}
		if err == nil {
			canon, _, err := Encode(res.Manifest)
			out = fmt.Sprintf("%s %v %q", canon, err, warns)
		}
		if s {
			slow = out
		} else {
			fast = out
		}
	}
	return fast, slow
}

// checkPosition holds a syntax error's line, column and offset to the
// log: the column counts from the line's start, and an "invalid character"
// is the byte at the offset.
func checkPosition(t testing.TB, log string, se *SyntaxError) {
	off := int(se.Offset)
	if off < 0 || off > len(log) {
		t.Fatalf("%q: offset %d outside the log", log, off)
	}
	line := strings.Count(log[:off], "\n") + 1
	col := off - strings.LastIndexByte(log[:off], '\n')
	if se.Line != line || se.Column != col {
		t.Fatalf("%q: %v, but byte %d is at line %d, column %d", log, se, off, line, col)
	}
	if q, ok := strings.CutPrefix(se.Msg, "invalid character "); ok && off < len(log) {
		if want := quoteChar(log[off]); !strings.HasPrefix(q, want) {
			t.Fatalf("%q: %v, but byte %d is %s", log, se, off, want)
		}
	}
}

var documentSeeds = []string{
	`{"model":{"identifier":"m"},"prompts":[{"role":"user","content":"hi"}],"steps":[{"tool":"t","parameters":{"a":[1,2,{"b":"]"}]},"output":"o\n\"x\""}],"outputs":[],"inputs":[{"name":"a","content_base64":"aGk="}]}`,
	"{\n  \"model\": {\"identifier\": \"m\"},\n  \"prompts\": [],\n  \"steps\": [\n    {\"tool\": \"t\"},\n    {\"tool\": \"u\" \"x\"}\n  ]\n}",
	`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t"},]}`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t"}] x`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t"}]} x`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":{"a":1},"steps":null,"x":1}`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":[1,"s",null,[],{"tool":"\ud800"}]}`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","parameters":{"n":1e400}}]}`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t"`,
	`{"model":{"identifier":"m"} "prompts":[]}`,
	`{"model" {"identifier":"m"}}`,
	`{1:2}`, `[1,2]`, `"x"`, `{`, `{}`, ` {"steps":[]}  `, `{"a":tru}`, `{"a":1.}`, "{\"a\":\"\x01\"}",
	"{\"model\":{\"identifier\":\"m\"},\"prompts\":[],\"steps\":[{\"tool\":\"t\",\"output\":\"a\xffb\"}]}",
	`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","tool":"u"}]}`,
	`{"model":{"identifier":"m"},"prompts":[],"steps":[],"outputs":[{"name":"x"}]}` + "\n\n",
}

// TestDocumentReader holds the document reader to the Decoder's on logs
// good and bad: the same manifest, or the same error at the same line and
// column, and the same warnings.
func TestDocumentReader(t *testing.T) {
	for _, log := range documentSeeds {
		if fast, slow := buildBoth(t, log); fast != slow {
			t.Errorf("%q:\n got %.400s\nwant %.400s", log, fast, slow)
		}
	}
}

// FuzzDocumentReader is TestDocumentReader on any input: whatever the
// bytes, the two readers agree.
func FuzzDocumentReader(f *testing.F) {
	for _, s := range documentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		log := string(data)
		if stream, _ := sniffString(log); stream {
			return // NDJSON: not this reader's
		}
		if fast, slow := buildBoth(t, log); fast != slow {
			t.Fatalf("%q:\n got %.400s\nwant %.400s", log, fast, slow)
		}
	})
}

func sniffString(s string) (bool, bool) {
	ev, decided := sniffEvent([]byte(s))
	return ev && decided, decided
}
