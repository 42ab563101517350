package pack

import (
	"encoding/json"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// splitObject splits a JSON object that jcs has found valid into its
// members, as json.Unmarshal into a map[string]json.RawMessage would: one
// copy of raw, which every value then shares, instead of a decode and a
// copy per member. ok is false when raw is not an object.
func splitObject(raw []byte) (obj map[string]json.RawMessage, ok bool) {
	i := jcs.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	raw = append([]byte(nil), raw...)
	obj = map[string]json.RawMessage{}
	i = jcs.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return obj, true
	}
	for i < len(raw) {
		end := jcs.StringEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		k, ok := plainString(raw[i:end])
		if !ok {
			if json.Unmarshal(raw[i:end], &k) != nil {
				return nil, false
			}
		}
		i = jcs.SkipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = jcs.SkipSpace(raw, i+1)
		vEnd := jcs.ValueEnd(raw, i)
		if vEnd < 0 {
			return nil, false
		}
		obj[k] = raw[i:vEnd:vEnd]
		i = jcs.SkipSpace(raw, vEnd)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			return obj, true
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = jcs.SkipSpace(raw, i+1)
	}
	return nil, false
}

// plainString decodes a JSON string the quick way, as json.Unmarshal
// would: the bytes between the quotes with the escapes of RFC 8259
// replaced, when they are valid UTF-8 with no control character and every
// \u escape of a surrogate is one of a pair. Anything else (ok false) is
// left to encoding/json.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	return jcs.UnescapeString(raw[1 : len(raw)-1])
}
