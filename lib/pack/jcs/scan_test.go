package jcs

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzScan holds the scanner to encoding/json on every value Canonicalize
// takes: ValueEnd, and Scanner fed in two pieces, find its end; a string's
// Unescape and UnescapeString give what json.Unmarshal gives; FindKey
// finds a top-level key that json.Unmarshal finds.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`"a"`, `"x\ny\u00e9\ud83d\ude00\/\b\f\r\t\"\\"`, `{"a":[1,{"b":"}"}],"event":"run"}`, `[1,"]",{}]`,
		`-1.5e3 `, `{"k\"ey":1,"key":2}`, `"\u0000\u001f\uFFFF"`, "\"\xe2\x82\xac\"",
	} {
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, raw []byte, cut int) {
		if _, err := Canonicalize(raw); err != nil {
			return
		}
		i := 0
		for IsSpace(raw[i]) {
			i++
		}
		end := ValueEnd(raw, i)
		var v json.RawMessage
		if end < 0 || json.Unmarshal(raw[:end], &v) != nil {
			t.Fatalf("ValueEnd(%q) = %d, not the end of a value", raw, end)
		}
		for _, c := range raw[end:] {
			if !IsSpace(c) {
				t.Fatalf("ValueEnd(%q) = %d, before the end", raw, end)
			}
		}
		if c := raw[i]; c == '"' || c == '{' || c == '[' {
			cut = i + min(max(cut, 0), end-i)
			var s Scanner
			n1, done := s.Scan(raw[i:cut])
			n := n1
			if !done {
				n2, done2 := s.Scan(raw[cut:])
				n, done = n1+n2, done2
			}
			if !done || i+n != end {
				t.Fatalf("Scanner in two pieces at %d: %d %v, ValueEnd %d", cut, i+n, done, end)
			}
		}
		if raw[i] == '"' {
			var want string
			if err := json.Unmarshal(raw[i:end], &want); err != nil {
				t.Fatal(err)
			}
			body := raw[i+1 : end-1]
			if got, ok := Unescape(nil, body); !ok || string(got) != want {
				t.Fatalf("Unescape(%q) = %q %v, want %q", body, got, ok, want)
			}
			if got, ok := UnescapeString(body); !ok || got != want {
				t.Fatalf("UnescapeString(%q) = %q %v, want %q", body, got, ok, want)
			}
		}
		if raw[i] == '{' {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw, &obj); err != nil {
				t.Fatal(err)
			}
			for k := range obj {
				at, decided := FindKey(raw, k)
				if !decided {
					t.Fatalf("FindKey(%q, %q) undecided on the whole object", raw, k)
				}
				if at >= 0 && string(raw[at-len(k)-2:at]) != `"`+k+`"` {
					t.Fatalf("FindKey(%q, %q) = %d, not past the key", raw, k, at)
				}
				if at < 0 && isPlainKey(k) && bytes.IndexByte(raw, '\\') < 0 {
					t.Fatalf("FindKey(%q, %q) did not find it", raw, k)
				}
			}
		}
	})
}

// isPlainKey reports whether k is written in JSON as itself: FindKey
// compares a key as written.
func isPlainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}
