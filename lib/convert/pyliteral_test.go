package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestPyLiteral(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[{'id': 'call_1', 'type': 'function', 'function': {'name': 'python_interpreter', 'arguments': 'x = 1\nprint(x)'}}]`,
			`[{"function":{"arguments":"x = 1\nprint(x)","name":"python_interpreter"},"id":"call_1","type":"function"}]`},
		{`{'code': "it's \"quoted\" \\ \t\u00e9\x41\101"}`, `{"code":"it's \"quoted\" \\ \téAA"}`},
		{`(1, -2.5, 3e-05, .5, 1_000, True, False, None)`, `[1,-2.5,3e-05,0.5,1000,true,false,null]`},
		{`{1: 'a', (2, 3): 'b'}`, `{"(2, 3)":"b","1":"a"}`},
		{`[inf, -inf, nan]`, `["inf","-inf","nan"]`},
		{`b'\x00ab'`, `"\u0000ab"`},
		{`[]`, `[]`}, {`{}`, `{}`}, {`()`, `[]`}, {`[1, 2, ]`, `[1,2]`},
	}
	for _, c := range cases {
		v, n, err := pyLiteral(c.in)
		if err != nil || n != len(c.in) {
			t.Errorf("%s: %v (took %d of %d)", c.in, err, n, len(c.in))
			continue
		}
		if got, _ := jsonText(v); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
	// A literal is read from the start of a text, and says where it ends.
	v, n, err := pyLiteral(`{'code': 'import sympy'}: InterpreterError: no`)
	if err != nil || !strings.HasPrefix(`{'code': 'import sympy'}: InterpreterError: no`[n:], ":") || v.(map[string]any)["code"] != "import sympy" {
		t.Errorf("prefix: %v %d %v", v, n, err)
	}
	for _, bad := range []string{`{'a' 1}`, `{1, 2}`, `'open`, `[1 2]`, strings.Repeat("[", 100), `<object at 0x1>`, `defaultdict(int)`, `'a` + "\n" + `b'`, `07`, `1.2.3`} {
		if _, _, err := pyLiteral(bad); err == nil {
			t.Errorf("%q read as a literal", bad)
		}
	}
}

// pyRepr writes a decoded JSON value as Python's repr() writes the same
// value (strings in single quotes unless they hold one and no double
// quote), for the round trip of FuzzPyLiteral.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return string(x)
	case string:
		q := byte('\'')
		if strings.Contains(x, "'") && !strings.Contains(x, `"`) {
			q = '"'
		}
		var b strings.Builder
		b.WriteByte(q)
		for _, r := range x {
			switch {
			case r == '\\':
				b.WriteString(`\\`)
			case r == rune(q):
				b.WriteString(`\` + string(q))
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\r':
				b.WriteString(`\r`)
			case r < 0x20 || r == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r == 0xfffd || !strconv.IsPrint(r) && r > 0x7f:
				fmt.Fprintf(&b, `\U%08x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte(q)
		return b.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func jsonDecode(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one value")
	}
	return nil
}

// normalizeJSON gives numbers one spelling (1.0 and 1 are one number), so
// values compare by what they hold.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return string(x)
		}
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeJSON(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalizeJSON(e)
		}
		return out
	}
	return v
}
