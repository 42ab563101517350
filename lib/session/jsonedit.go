package session

import (
	"bytes"
	"encoding/json"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// An exact restore changes a session's lines in place: one string value
// replaced, every other byte of the line as the agent wrote it (its key
// order, its spacing, its escapes), so the lines stay the agent's own.

// valueAt returns where the value at the path of object keys begins and
// ends in the JSON line b; ok is false when a key is missing or b is not
// an object there.
func valueAt(b []byte, path ...string) (start, end int, ok bool) {
	start, end = 0, len(b)
	for _, key := range path {
		at, _ := jcs.FindKey(b[start:end], key)
		if at < 0 {
			return 0, 0, false
		}
		i := jcs.SkipSpace(b, start+at)
		if i >= end || b[i] != ':' {
			return 0, 0, false
		}
		i = jcs.SkipSpace(b, i+1)
		e := jcs.ValueEnd(b[:end], i)
		if e < 0 {
			return 0, 0, false
		}
		start, end = i, e
	}
	return start, end, true
}

// stringAt is the string value at path in b.
func stringAt(b []byte, path ...string) (string, bool) {
	s, e, ok := valueAt(b, path...)
	if !ok || b[s] != '"' {
		return "", false
	}
	v, ok := jcs.UnescapeString(b[s+1 : e-1])
	return v, ok
}

// setString replaces the string value at path in b with value; a value
// that is not a string, or a missing key, leaves b as it is (false).
func setString(b []byte, value string, path ...string) ([]byte, bool) {
	s, e, ok := valueAt(b, path...)
	if !ok || b[s] != '"' {
		return b, false
	}
	return splice(b, s, e, quote(value)), true
}

// replaceStrings replaces each string equal to old in the array at path
// with value.
func replaceStrings(b []byte, old, value string, path ...string) []byte {
	s, e, ok := valueAt(b, path...)
	if !ok || b[s] != '[' {
		return b
	}
	var list []json.RawMessage
	if json.Unmarshal(b[s:e], &list) != nil {
		return b
	}
	changed := false
	for i, raw := range list {
		var v string
		if json.Unmarshal(raw, &v) == nil && v == old {
			list[i], changed = quote(value), true
		}
	}
	if !changed {
		return b
	}
	out, _ := json.Marshal(list)
	return splice(b, s, e, out)
}

// splice is b with b[s:e] replaced by v.
func splice(b []byte, s, e int, v []byte) []byte {
	out := make([]byte, 0, len(b)-(e-s)+len(v))
	out = append(out, b[:s]...)
	out = append(out, v...)
	return append(out, b[e:]...)
}

// quote is s as a JSON string (only the quote, backslash and controls
// escaped, as the agents' own writers do for paths).
func quote(s string) []byte { return jcs.AppendString(nil, s) }

// escaped is s as it appears inside a JSON string.
func escaped(s string) []byte {
	q := quote(s)
	return q[1 : len(q)-1]
}

// replaceInStrings replaces old by value wherever old appears between
// the markers open and close inside the line's strings: the <cwd> of the
// context Codex writes for the model.
func replaceInStrings(b []byte, open, old, close, value string) []byte {
	from := append(append([]byte(open), escaped(old)...), close...)
	if !bytes.Contains(b, from) {
		return b
	}
	to := append(append([]byte(open), escaped(value)...), close...)
	return bytes.ReplaceAll(b, from, to)
}
