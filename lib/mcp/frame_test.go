package mcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLineReader(t *testing.T) {
	tests := []struct {
		name, in string
		max      int64
		want     []string // "!N" is a message of N bytes over the bound
		over     string   // what a relay passes on of the long messages
	}{
		{"lines", "a\nb\n", 10, []string{"a", "b"}, ""},
		{"last line without a newline", "a\nb", 10, []string{"a", "b"}, ""},
		{"crlf", "a\r\nb\r\n", 10, []string{"a", "b"}, ""},
		{"blank lines skipped", "\n\n  \na\n\n", 10, []string{"a"}, ""},
		{"at the bound", "12345\n", 5, []string{"12345"}, ""},
		{"over the bound, then on", "1234567890\nok\n", 5, []string{"!11", "ok"}, "1234567890\n"},
		{"over the bound at the end", "ok\n1234567890", 5, []string{"ok", "!10"}, "1234567890"},
		{"long line across buffers", strings.Repeat("x", 200000) + "\nok\n", 100, []string{"!200001", "ok"}, strings.Repeat("x", 200000) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lr := newLineReader(strings.NewReader(tt.in), tt.max)
			var over bytes.Buffer
			var got []string
			for {
				line, err := lr.next(&over)
				var big *TooLargeError
				if errors.As(err, &big) {
					got = append(got, "!"+itoa(big.Size))
					continue
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if over.String() != tt.over {
				t.Errorf("passed on %d bytes, want %d", over.Len(), len(tt.over))
			}
		})
	}
}

func itoa(n int64) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func TestDecodeLine(t *testing.T) {
	tests := []struct {
		in      string
		n, bad  int // messages, and elements of a batch that are none
		isBatch bool
		code    int64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 1, 0, false, 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 1, 0, false, 0},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, 2, 0, true, 0},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"hello":"world"}]`, 1, 1, true, 0},
		{`not json`, 0, 0, false, -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, 0, 0, false, -32700},
		{`{"hello":"world"}`, 0, 0, false, -32600},
		{`[]`, 0, 0, true, -32600},
		{`[1]`, 0, 1, true, 0},
		{`42`, 0, 0, false, -32600},
	}
	for _, tt := range tests {
		elems, isBatch, code, _ := decodeLine([]byte(tt.in))
		n, bad := 0, 0
		for _, e := range elems {
			if e.err != "" {
				bad++
			} else {
				n++
			}
		}
		if n != tt.n || bad != tt.bad || isBatch != tt.isBatch || code != tt.code {
			t.Errorf("decodeLine(%s) = %d messages, %d not, batch %v, code %d; want %d, %d, %v, %d", tt.in, n, bad, isBatch, code, tt.n, tt.bad, tt.isBatch, tt.code)
		}
	}
}

func TestCallKey(t *testing.T) {
	same := [][2]string{
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1.0}`},
		{``, `{}`},
		{`null`, `{}`},
		{`{"n":1e2}`, `{"n":100}`},
	}
	for _, p := range same {
		a, err1 := callKey("t", []byte(p[0]))
		b, err2 := callKey("t", []byte(p[1]))
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%s and %s are not the same call (%v %v)", p[0], p[1], err1, err2)
		}
	}
	a, _ := callKey("t", []byte(`{"a":1}`))
	b, _ := callKey("u", []byte(`{"a":1}`))
	c, _ := callKey("t", []byte(`{"a":2}`))
	if a == b || a == c {
		t.Error("another tool or other arguments made the same key")
	}
}

// FuzzLineReader holds the reader to a plain split of its input: every
// message it returns is a non-blank line of the input, in order, and a
// relay passes on exactly the bytes of the long ones.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n{\"x\":1}\n"), uint8(4))
	f.Add([]byte(strings.Repeat("y", 300)+"\nz"), uint8(10))
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		lr := newLineReader(bytes.NewReader(in), int64(max)+1)
		var over bytes.Buffer
		var got [][]byte
		for {
			line, err := lr.next(&over)
			var big *TooLargeError
			if errors.As(err, &big) {
				continue
			}
			if err != nil {
				break
			}
			if int64(len(line)) > int64(max)+1+2 {
				t.Fatalf("a message of %d bytes over the bound %d", len(line), int64(max)+1)
			}
			got = append(got, append([]byte(nil), line...))
		}
		var want [][]byte
		var long bytes.Buffer
		for _, l := range bytes.SplitAfter(in, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			if int64(len(l)) > int64(max)+1+2 {
				long.Write(l)
				continue
			}
			body := bytes.TrimRight(l, "\r\n")
			if len(bytes.TrimSpace(body)) == 0 {
				continue
			}
			if !bytes.HasSuffix(l, []byte("\n")) {
				body = bytes.TrimSpace(l)
			}
			want = append(want, body)
		}
		if len(got) != len(want) {
			t.Fatalf("got %d messages, want %d: %q vs %q", len(got), len(want), got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("message %d: %q, want %q", i, got[i], want[i])
			}
		}
		if !bytes.Equal(over.Bytes(), long.Bytes()) {
			t.Fatalf("passed on %q, want %q", over.Bytes(), long.Bytes())
		}
	})
}

// FuzzDecodeLine: any line is a message, a batch, or an error code, and
// never a panic.
func FuzzDecodeLine(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"a","result":{}}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		elems, isBatch, code, reason := decodeLine(line)
		if (code == 0) == (len(elems) == 0) || (code != 0 && reason == "") || (!isBatch && len(elems) > 1) {
			t.Fatalf("decodeLine(%q) = %d elements, batch %v, code %d, %q", line, len(elems), isBatch, code, reason)
		}
		for _, e := range elems {
			if (e.msg == nil) == (e.err == "") {
				t.Fatalf("decodeLine(%q): an element with message %v and error %q", line, e.msg, e.err)
			}
		}
	})
}
