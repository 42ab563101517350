package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzMembers holds the scan of a message's top-level members, fed a
// piece at a time, to encoding/json: for any object it decodes whose keys
// need no escape, the id and the result or error are the ones it finds.
func FuzzMembers(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`), uint8(3))
	f.Add([]byte(`{"result":{"a":"}\"{"},"jsonrpc":"2.0","id":"x"}`), uint8(1))
	f.Add([]byte(`{ "id" : 3 , "error" : {"code":-1} }`), uint8(2))
	f.Add([]byte(`{"id":1,"id":"two","result":true,"result":[1]}`), uint8(5))
	f.Fuzz(func(t *testing.T, msg []byte, step uint8) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(msg, &obj) != nil || bytes.IndexByte(msg, '\\') >= 0 && keysEscaped(msg) {
			return
		}
		m := feed(msg, int(step)+1)
		wantID := ""
		if raw, ok := obj["id"]; ok {
			wantID = scanMembers(append(append([]byte(`{"id":`), raw...), '}')).ID()
			var v any
			_ = json.Unmarshal(raw, &v)
			switch v.(type) {
			case string, float64:
			default:
				wantID = ""
			}
		}
		if got := m.ID(); got != wantID {
			t.Fatalf("%s: id %q, want %q", msg, got, wantID)
		}
		sp, rpcError := m.answer(int64(len(msg)))
		want, wantErr := obj["result"], false
		if want == nil {
			want, wantErr = obj["error"], obj["error"] != nil
		}
		if want == nil {
			want = bytes.TrimSpace(msg)
		}
		if got := bytes.TrimSpace(msg[sp.start:sp.end]); !bytes.Equal(got, want) || rpcError != wantErr {
			t.Fatalf("%s: answer %s (error %v), want %s (%v)", msg, got, rpcError, want, wantErr)
		}
	})
}

// keysEscaped reports whether a top-level key of the object has an
// escape: the scan compares keys as written, a decoder as they read.
func keysEscaped(msg []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if _, err := dec.Token(); err != nil {
		return false
	}
	for dec.More() {
		start := dec.InputOffset()
		if _, err := dec.Token(); err != nil {
			return false
		}
		if bytes.IndexByte(msg[start:dec.InputOffset()], '\\') >= 0 {
			return true
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return false
}

// FuzzStringWriter: what a stringWriter writes, cut anywhere, reads back
// as the JSON string encoding/json makes of the same bytes.
func FuzzStringWriter(f *testing.F) {
	f.Add([]byte("plain \"quoted\" \\ \n\t\x01 é ✓ \xff"), uint8(1))
	f.Add([]byte("\xe2\x9c"), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		var b bytes.Buffer
		b.WriteByte('"')
		sw := &stringWriter{w: &b}
		n := int(step) + 1
		for i := 0; i < len(in); i += n {
			if _, err := sw.Write(in[i:min(i+n, len(in))]); err != nil {
				t.Fatal(err)
			}
		}
		_ = sw.Close()
		b.WriteByte('"')
		var got, want string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%q: not a JSON string: %s (%v)", in, b.Bytes(), err)
		}
		enc, _ := json.Marshal(string(in))
		_ = json.Unmarshal(enc, &want)
		if got != want {
			t.Fatalf("%q: %q, want %q", in, got, want)
		}
	})
}
