package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// feed gives m the message a few bytes at a time, as a relay sees it
// through its buffer.
func feed(msg []byte, step int) *members {
	m := new(members)
	for i := 0; i < len(msg); i += step {
		_, _ = m.Write(msg[i:min(i+step, len(msg))])
	}
	m.end()
	return m
}

func TestMembers(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, c := range []struct {
		name, msg, id, answer string
		rpcError              bool
	}{
		{"SDK order", `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, "7", `{"content":[]}`, false},
		{"id last, as the TypeScript SDK writes it", `{"result":{"a":"}\"{"},"jsonrpc":"2.0","id":"x-1"}`, `"x-1"`, `{"a":"}\"{"}`, false},
		{"an error", `{ "jsonrpc" : "2.0" , "id" : 3 , "error" : {"code":-1,"message":"m"} }`, "3", `{"code":-1,"message":"m"}`, true},
		{"nested too deep to decode", `{"jsonrpc":"2.0","id":2,"result":{"structuredContent":` + deep + `}}`, "2", `{"structuredContent":` + deep + `}`, false},
		{"members named like the keys, inside", `{"params":{"id":9,"result":1},"id":4,"result":[{"id":5}]}`, "4", `[{"id":5}]`, false},
		{"a string result", `{"id":1,"result":"a\"b"}`, "1", `"a\"b"`, false},
		{"a number result at the end", `{"id":1,"result":12.5}`, "1", `12.5`, false},
		{"a float id, as the SDK takes it", `{"id":2.0,"result":null}`, "2", `null`, false},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, "", `{}`, false},
		{"not an object", `[{"id":1}]`, "", `[{"id":1}]`, false},
	} {
		for _, step := range []int{1, 3, 1 << 20} {
			m := feed([]byte(c.msg), step)
			sp, rpcError := m.answer(int64(len(c.msg)))
			if got := m.ID(); got != c.id {
				t.Errorf("%s (%d at a time): id %q, want %q", c.name, step, got, c.id)
			}
			if got := c.msg[sp.start:sp.end]; got != c.answer || rpcError != c.rpcError {
				t.Errorf("%s (%d at a time): answer %.60q (error %v), want %.60q (%v)", c.name, step, got, rpcError, c.answer, c.rpcError)
			}
		}
	}
}

func TestStringWriter(t *testing.T) {
	for _, in := range []string{
		"plain", `quote " and \ backslash`, "tab\tnew\nline\r\x01\x1f", "héllo wörld ✓ 😀", "bad \xff\xfe utf-8", "cut \xe2\x9c",
	} {
		want, _ := json.Marshal(in)
		for _, step := range []int{1, 2, 5, 100} {
			var b bytes.Buffer
			b.WriteByte('"')
			sw := &stringWriter{w: &b}
			for i := 0; i < len(in); i += step {
				if _, err := sw.Write([]byte(in[i:min(i+step, len(in))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := sw.Close(); err != nil {
				t.Fatal(err)
			}
			b.WriteByte('"')
			var got, exp string
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatalf("%q (%d at a time): not a JSON string: %s (%v)", in, step, b.Bytes(), err)
			}
			_ = json.Unmarshal(want, &exp)
			if got != exp {
				t.Errorf("%q (%d at a time): %q, want %q", in, step, got, exp)
			}
		}
	}
}
