package diff

import (
	"encoding/json"
	"testing"
)

// FuzzParams checks the one rule of parameter comparison: paramKey gives
// equal keys exactly when compareParams finds no change, a value never
// differs from itself, and every change is valid JSON.
func FuzzParams(f *testing.F) {
	for _, s := range [][2]string{
		{`{"path":"a.go"}`, `{"path":"b.go"}`},
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1.0}`},
		{`{"arguments":"{\"x\": 1}"}`, `{"arguments":"{\"x\":1}"}`},
		{`{"arguments":"[\"{\\\"y\\\": 2}\"]"}`, `{"arguments":"[\"{\\\"y\\\":2}\"]"}`},
		{`{"a/b":{"c~d":null}}`, `{"a/b":{}}`},
		{`{"s":"\u00e9"}`, `{"s":"é"}`},
		{`{"n":1e400}`, `{"n":1}`},
		{`{"a":1,"a":1}`, `{"a":1}`},
		{`[`, `{}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		changes := compareParams(raw(a), raw(b))
		same := paramKey(raw(a)) == paramKey(raw(b))
		if same != (len(changes) == 0) {
			t.Fatalf("paramKey equal = %v, compareParams found %s", same, js(changes))
		}
		if self := compareParams(raw(a), raw(a)); len(self) != 0 {
			t.Fatalf("a value differs from itself: %s", js(self))
		}
		for _, p := range changes {
			if !json.Valid(p.A) || !json.Valid(p.B) {
				t.Fatalf("change %s holds invalid JSON", js(p))
			}
		}
	})
}
