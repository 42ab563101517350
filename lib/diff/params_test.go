package diff

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCompareParams(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []Param // nil: no drift
	}{
		{"same bytes", `{"path":"a.go"}`, `{"path":"a.go"}`, nil},
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, nil},
		{"white space", `{ "a" : [1, 2] }`, `{"a":[1,2]}`, nil},
		{"number spelling", `{"n":1.0,"m":1e2}`, `{"n":1,"m":100}`, nil},
		{"json string argument, other layout", `{"arguments":"{\"path\": \"x.go\", \"n\": 1}"}`, `{"arguments":"{\"n\":1,\"path\":\"x.go\"}"}`, nil},
		{"json string argument, leading white space", `{"arguments":"\n  [1, 2]"}`, `{"arguments":"[1,2]"}`, nil},
		{"changed value", `{"path":"x.go"}`, `{"path":"y.go"}`,
			[]Param{{"/path", Modified, raw(`"x.go"`), raw(`"y.go"`)}}},
		{"added and removed", `{"a":1}`, `{"b":2}`,
			[]Param{{"/a", Removed, raw(`1`), raw(`null`)}, {"/b", Added, raw(`null`), raw(`2`)}}},
		{"nested", `{"opts":{"depth":1,"keep":true}}`, `{"opts":{"depth":2,"keep":true}}`,
			[]Param{{"/opts/depth", Modified, raw(`1`), raw(`2`)}}},
		{"array element and length", `{"l":[1,2]}`, `{"l":[1,3,4]}`,
			[]Param{{"/l/1", Modified, raw(`2`), raw(`3`)}, {"/l/2", Added, raw(`null`), raw(`4`)}}},
		{"pointer escapes", `{"a/b":1,"c~d":1}`, `{"a/b":2,"c~d":2}`,
			[]Param{{"/a~1b", Modified, raw(`1`), raw(`2`)}, {"/c~0d", Modified, raw(`1`), raw(`2`)}}},
		{"into a json string argument", `{"arguments":"{\"path\":\"x.go\"}"}`, `{"arguments":"{\"path\": \"y.go\"}"}`,
			[]Param{{"/arguments/path", Modified, raw(`"x.go"`), raw(`"y.go"`)}}},
		{"json string against plain string", `{"q":"{\"a\":1}"}`, `{"q":"{a:1}"}`,
			[]Param{{"/q", Modified, raw(`"{\"a\":1}"`), raw(`"{a:1}"`)}}},
		{"type change", `{"n":"1"}`, `{"n":1}`,
			[]Param{{"/n", Modified, raw(`"1"`), raw(`1`)}}},
		{"null against absent", `{"n":null}`, `{}`,
			[]Param{{"/n", Removed, raw(`null`), raw(`null`)}}},
		{"not an object", `[1]`, `{"a":1}`,
			[]Param{{"", Modified, raw(`[1]`), raw(`{"a":1}`)}}},
		{"html kept as is", `{"s":"<a>"}`, `{"s":"<b>"}`,
			[]Param{{"/s", Modified, raw(`"<a>"`), raw(`"<b>"`)}}},
		{"duplicate keys compare byte for byte", `{"a":1,"a":2}`, `{"a":2}`,
			[]Param{{"", Modified, raw(`{"a":1,"a":2}`), raw(`{"a":2}`)}}},
		{"invalid json", `{"a":`, `{"a":1}`,
			[]Param{{"", Modified, raw(`"{\"a\":"`), raw(`{"a":1}`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compareParams(raw(tt.a), raw(tt.b))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("compareParams(%s, %s)\n got %s\nwant %s", tt.a, tt.b, js(got), js(tt.want))
			}
			sameKey := paramKey(raw(tt.a)) == paramKey(raw(tt.b))
			if sameKey != (len(got) == 0) {
				t.Errorf("paramKey equal = %v but compareParams found %d changes", sameKey, len(got))
			}
		})
	}
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
