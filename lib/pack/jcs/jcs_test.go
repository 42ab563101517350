package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

type validCase struct {
	name string
	in   string
	want string
}

// rfcExample is the input of RFC 8785 section 3.2.2.
const rfcExample = `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`

// rfcSorting is the input of RFC 8785 section 3.2.3.
const rfcSorting = `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`

var validCases = []validCase{
	{"rfc 3.2.2 example", rfcExample,
		`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
	{"rfc 3.2.3 sorting", rfcSorting,
		"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\"," +
			"\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},

	// Structure and whitespace.
	{"true", "true", "true"},
	{"false", " false ", "false"},
	{"null", "\t\r\n null \n", "null"},
	{"empty array", "[ ]", "[]"},
	{"empty object", "{ \n}", "{}"},
	{"nested", ` { "b" : [ 1 , { "d" : 4 , "c" : 3 } ] , "a" : { } } `, `{"a":{},"b":[1,{"c":3,"d":4}]}`},
	{"array order kept", `[3,1,2]`, `[3,1,2]`},
	{"nested unsorted objects", `{"z":{"y":1,"x":{"w":2,"v":[{"u":3,"t":4}]}},"a":0}`,
		`{"a":0,"z":{"x":{"v":[{"t":4,"u":3}],"w":2},"y":1}}`},
	{"many members reversed", `{"j":9,"i":8,"h":7,"g":6,"f":5,"e":4,"d":3,"c":2,"b":1,"a":0}`,
		`{"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"i":8,"j":9}`},
	{"prefix key sorts first", `{"ab":1,"a":2,"":3}`, `{"":3,"a":2,"ab":1}`},

	// Sorting by UTF-16 code units, not UTF-8 bytes: U+FF61 sorts after
	// U+1F600 because the latter's first code unit is the surrogate 0xD83D.
	{"utf16 order bmp high vs astral", `{"｡":1,"😀":2}`, `{"😀":2,"｡":1}`},
	{"utf16 order e000 vs astral", "{\"\ue000\":1,\"\U00010000\":2}", "{\"\U00010000\":2,\"\ue000\":1}"},
	{"utf16 order below d800 vs astral", "{\"\U00010000\":2,\"\ud7ff\":1}", "{\"\ud7ff\":1,\"\U00010000\":2}"},
	{"utf16 order two astral", "{\"\U0001F601\":1,\"\U0001F600\":2}", "{\"\U0001F600\":2,\"\U0001F601\":1}"},
	{"sort uses decoded keys", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
	{"sort quote vs backslash decoded", `{"\\":1,"\"":2}`, `{"\"":2,"\\":1}`},

	// Strings.
	{"solidus unescaped", `"\/a/b"`, `"/a/b"`},
	{"del and separators literal", `"\u007f\u2028\u2029"`, "\"\x7f\u2028\u2029\""},
	{"short control escapes", `"\u0008\u0009\u000a\u000c\u000d"`, `"\b\t\n\f\r"`},
	{"short escapes kept", `"\b\t\n\f\r"`, `"\b\t\n\f\r"`},
	{"other controls lower hex", `"\u0000\u0001\u001F\u000B"`, `"\u0000\u0001\u001f\u000b"`},
	{"quote and backslash", `"\u0022\u005C\"\\"`, `"\"\\\"\\"`},
	{"non-ascii unescaped", `"\u00e9\u4E2D\uD83D\uDE00"`, `"é中😀"`},
	{"raw utf8 kept", `"é中😀"`, `"é中😀"`},
	{"raw u+fffd kept", "\"\uFFFD\"", "\"\uFFFD\""},
	{"empty string", `""`, `""`},
	{"escaped key", `{"a\nb":1}`, `{"a\nb":1}`},

	// Numbers.
	{"zero", "0", "0"},
	{"minus zero", "-0", "0"},
	{"minus zero float", "-0.0", "0"},
	{"zero exp", "0e10", "0"},
	{"small int", "-42", "-42"},
	{"int exp", "1E2", "100"},
	{"int with fraction zero", "1.0", "1"},
	{"trailing zeros", "4.50", "4.5"},
	{"upper exp sign", "1.5E+3", "1500"},
	{"15 digits", "999999999999999", "999999999999999"},
	{"2^53", "9007199254740992", "9007199254740992"},
	{"-2^53", "-9007199254740992", "-9007199254740992"},
	{"16 digits exact", "1234567890123456", "1234567890123456"},
	{"2^64 exact", "18446744073709551616", "18446744073709552000"},
	{"2^68 exact", "295147905179352825856", "295147905179352830000"},
	{"canonical large int accepted", "295147905179352830000", "295147905179352830000"},
	{"canonical large negative int accepted", "-12345678901234567000", "-12345678901234567000"},
	{"1e21 exact as integer", "1000000000000000000000", "1e+21"},
	{"10^22", "10000000000000000000000", "1e+22"},
	{"decimal rounded", "333333333.33333329", "333333333.3333333"},
	{"long fraction rounded", "0.1000000000000000055511151231257827021181583404541015625", "0.1"},
	{"long inexact decimal with exponent", "12345678901234567890e0", "12345678901234567000"},
	{"underflow to zero", "1e-400", "0"},
	{"huge negative exponent", "1e-99999999999999999999", "0"},
	{"zero huge exponent", "0e99999999999999999999", "0"},
	{"1e-6", "1e-6", "0.000001"},
	{"1e-7", "1e-7", "1e-7"},
	{"1.5e-7", "1.5e-7", "1.5e-7"},
	{"1e-10", "0.0000000001", "1e-10"},
	{"123e-20", "123e-20", "1.23e-18"},
	{"1e20", "1e20", "100000000000000000000"},
	{"pi", "3.141592653589793", "3.141592653589793"},
	{"0.1+0.2", "0.30000000000000004", "0.30000000000000004"},
	{"negative fraction", "-0.5", "-0.5"},
	{"number then ws", "[1 ,2\n]", "[1,2]"},
}

// appendixB is RFC 8785 Appendix B. Each IEEE 754 value is given as a
// decimal input that parses to exactly those bits (checked by the test).
// Integer-valued entries that a plain integer literal could only spell
// inexactly are written with an exponent or in full so they are not
// refused by the exact-integer rule; NaN and Infinity have no JSON
// spelling and are covered by the overflow error cases instead.
var appendixB = []struct {
	bits uint64
	in   string
	want string
}{
	{0x0000000000000000, "0", "0"},
	{0x8000000000000000, "-0", "0"},
	{0x0000000000000001, "5e-324", "5e-324"},
	{0x8000000000000001, "-5e-324", "-5e-324"},
	{0x7fefffffffffffff, "1.7976931348623157e308", "1.7976931348623157e+308"},
	{0xffefffffffffffff, "-1.7976931348623157e308", "-1.7976931348623157e+308"},
	{0x4340000000000000, "9007199254740992", "9007199254740992"},
	{0xc340000000000000, "-9007199254740992", "-9007199254740992"},
	{0x4430000000000000, "295147905179352830000", "295147905179352830000"},
	{0x44b52d02c7e14af5, "9.999999999999997e22", "9.999999999999997e+22"},
	{0x44b52d02c7e14af6, "1e23", "1e+23"},
	{0x44b52d02c7e14af7, "1.0000000000000001e23", "1.0000000000000001e+23"},
	{0x444b1ae4d6e2ef4e, "999999999999999700000", "999999999999999700000"},
	{0x444b1ae4d6e2ef4f, "999999999999999900000", "999999999999999900000"},
	{0x444b1ae4d6e2ef50, "1e21", "1e+21"},
	{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7", "9.999999999999997e-7"},
	{0x3eb0c6f7a0b5ed8d, "0.000001", "0.000001"},
	{0x41b3de4355555553, "333333333.3333332", "333333333.3333332"},
	{0x41b3de4355555554, "333333333.33333325", "333333333.33333325"},
	{0x41b3de4355555555, "333333333.3333333", "333333333.3333333"},
	{0x41b3de4355555556, "333333333.3333334", "333333333.3333334"},
	{0x41b3de4355555557, "333333333.33333343", "333333333.33333343"},
	{0xbecbf647612f3696, "-0.0000033333333333333333", "-0.0000033333333333333333"},
	{0x43143ff3c1cb0959, "1424953923781206.2", "1424953923781206.2"},
	// The same values spelled differently must land on the same output.
	{0x4430000000000000, "295147905179352825856", "295147905179352830000"},
	{0x4430000000000000, "2.9514790517935283e20", "295147905179352830000"},
	{0x444b1ae4d6e2ef50, "1000000000000000000000", "1e+21"},
	{0x3eb0c6f7a0b5ed8d, "1e-6", "0.000001"},
}

type errorCase struct {
	name string
	in   string
	path string
	off  int64
	msg  string // substring of Error.Msg
}

var errorCases = []errorCase{
	{"empty", "", "", 0, "empty input"},
	{"only whitespace", " \n\t", "", 3, "empty input"},
	{"trailing value", "1 2", "", 2, "after top-level value"},
	{"trailing garbage after object", "{} x", "", 3, "after top-level value"},
	{"trailing nul byte", "1\x00", "", 1, "byte 0x00 after top-level value"},
	{"two documents", "[][]", "", 2, "after top-level value"},

	{"unclosed array", "[", ".[0]", 1, "unexpected end of input"},
	{"unclosed array after value", "[1", "", 2, "unexpected end of input in array"},
	{"trailing comma array", "[1,]", ".[1]", 3, "expected a value"},
	{"missing comma array", "[1 2]", "", 3, "expected ',' or ']'"},
	{"leading comma array", "[,1]", ".[0]", 1, "expected a value"},
	{"unclosed object", "{", "", 1, "unexpected end of input in object"},
	{"missing colon", `{"a"}`, "", 4, "expected ':'"},
	{"missing value", `{"a":}`, ".a", 5, "expected a value"},
	{"trailing comma object", `{"a":1,}`, "", 7, "expected a string key"},
	{"non-string key", `{1:2}`, "", 1, "expected a string key"},
	{"single-quoted key", `{'a':2}`, "", 1, "expected a string key"},
	{"missing comma object", `{"a":1 "b":2}`, "", 7, "expected ',' or '}'"},
	{"object eof after value", `{"a":1`, "", 6, "unexpected end of input in object"},
	{"object eof after key", `{"a"`, "", 4, "unexpected end of input in object"},
	{"mismatched close", `[1}`, "", 2, "expected ',' or ']'"},

	{"duplicate key", `{"a":1,"a":2}`, ".a", 7, `duplicate key "a"`},
	{"duplicate key after sort", `{"b":1,"a":2,"b":3}`, ".b", 13, `duplicate key "b"`},
	{"duplicate key via escape", `{"a":1,"\u0061":2}`, ".a", 7, `duplicate key "a"`},
	{"duplicate odd key nested", `{"x":{"k k":1,"k k":2}}`, `.x.["k k"]`, 14, `duplicate key "k k"`},
	{"duplicate control key", `{"\n":1,"\u000a":2}`, `.["\n"]`, 8, `duplicate key "\n"`},

	{"bad literal deep", `{"a":{"b":[0,1,{"c":tru}]}}`, ".a.b[2].c", 20, "expected true"},
	{"path key with space", `{"key with space":nul}`, `.["key with space"]`, 18, "expected null"},
	{"path key with quote", `{"a\"b":x}`, `.["a\"b"]`, 8, "unexpected character 'x'"},
	{"path identifier key", `{"_a1":x}`, "._a1", 7, "unexpected character 'x'"},
	{"path digit-first key", `{"1a":x}`, `.["1a"]`, 6, "unexpected character 'x'"},
	{"path empty key", `{"":x}`, `.[""]`, 4, "unexpected character 'x'"},
	{"path escaped key", `{"\u00e9t\u00e9":[x]}`, `.["été"][0]`, 18, "unexpected character 'x'"},
	{"literal prefix", "tru", "", 0, "expected true"},
	{"literal suffix", "truex", "", 0, "expected true"},
	{"literal case", "True", "", 0, "unexpected character 'T'"},
	{"literal null short", "nul", "", 0, "expected null"},
	{"literal false typo", "fals", "", 0, "expected false"},

	{"leading zero", "[01]", ".[0]", 1, "leading zero"},
	{"negative leading zero", "-012", "", 0, "leading zero"},
	{"plus sign", "+1", "", 0, "unexpected character '+'"},
	{"leading dot", ".5", "", 0, "unexpected character '.'"},
	{"trailing dot", "1.", "", 0, "digit after decimal point"},
	{"dot exponent", "1.e5", "", 0, "digit after decimal point"},
	{"empty exponent", "1e", "", 0, "digit in exponent"},
	{"signed empty exponent", "1e+", "", 0, "digit in exponent"},
	{"hex", "0x10", "", 0, "invalid number"},
	{"two dots", "1.2.3", "", 0, "invalid number"},
	{"two exponents", "1e5e5", "", 0, "invalid number"},
	{"NaN", "NaN", "", 0, "unexpected character 'N'"},
	{"Infinity", "Infinity", "", 0, "unexpected character 'I'"},
	{"negative Infinity", "-Infinity", "", 0, "expected digit after '-'"},
	{"lone minus", "-", "", 0, "no digits after '-'"},
	{"double minus", "--1", "", 0, "expected digit after '-'"},
	{"overflow", "1e400", "", 0, "overflows a double"},
	{"negative overflow", "[-1e400]", ".[0]", 1, "overflows a double"},
	{"overflow just above max", "1.7976931348623159e308", "", 0, "overflows a double"},
	{"overflow huge exponent", "1e99999999999999999999", "", 0, "overflows a double"},
	{"overflow long integer", strings.Repeat("9", 400), "", 0, "overflows a double"},
	{"inexact integer", "12345678901234567890", "", 0, "write it as a string"},
	{"inexact 2^53+1", "9007199254740993", "", 0, "cannot be represented exactly as a double"},
	{"inexact negative in object", `{"id":-12345678901234567891}`, ".id", 6, "write it as a string"},
	{"inexact 17 digits", "[0,12345678901234567]", ".[1]", 3, "write it as a string"},
	{"inexact 22 digits", "1234567890123456789012", "", 0, "write it as a string"},

	{"lone high surrogate", `"\ud800"`, "", 1, `lone surrogate \ud800`},
	{"lone low surrogate", `"\uDC00"`, "", 1, `lone surrogate \udc00`},
	{"high then non-low", `"\ud800\u0041"`, "", 1, "lone surrogate"},
	{"high then text", `"ab\ud800xyzxyzxyz"`, "", 3, "lone surrogate"},
	{"high then high", `"\ud800\ud800"`, "", 1, "lone surrogate"},
	{"high at end", `"\ud800`, "", 1, "lone surrogate"},
	{"surrogate in value", `{"a":"\ud800"}`, ".a", 6, "lone surrogate"},
	{"invalid utf8", "[\"a\xffb\"]", ".[0]", 3, "invalid UTF-8"},
	{"utf8 encoded surrogate", "\"\xed\xa0\x80\"", "", 1, "invalid UTF-8"},
	{"overlong utf8", "\"\xc0\xaf\"", "", 1, "invalid UTF-8"},
	{"truncated utf8", "\"\xe2\x82\"", "", 1, "invalid UTF-8"},
	{"utf8 above max", "\"\xf4\x90\x80\x80\"", "", 1, "invalid UTF-8"},
	{"invalid utf8 in key", "{\"\xff\":1}", "", 2, "invalid UTF-8"},
	{"raw tab", "\"a\tb\"", "", 2, "control character U+0009"},
	{"raw newline in key", "{\"a\nb\":1}", "", 3, "control character U+000a"},
	{"raw nul", "\"\x00\"", "", 1, "control character U+0000"},
	{"bad escape", `"\x41"`, "", 1, `invalid escape "\\x"`},
	{"single quote escape", `"\'"`, "", 1, "invalid escape"},
	{"short unicode escape", `"\u12"`, "", 1, `invalid \u escape`},
	{"bad hex", `"\u12G4"`, "", 1, `invalid \u escape`},
	{"unterminated string", `"abc`, "", 4, "unexpected end of input in string"},
	{"unterminated after backslash", `"abc\`, "", 5, "unexpected end of input in string"},
	{"unterminated key", `{"abc`, "", 5, "unexpected end of input in string"},
	{"bom", "\xef\xbb\xbf1", "", 0, "byte 0xef"},
}

func TestCanonicalize(t *testing.T) {
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tc.in))
			if err != nil {
				t.Fatalf("Canonicalize(%q): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Errorf("Canonicalize(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestAppendixBNumbers(t *testing.T) {
	for _, tc := range appendixB {
		t.Run(tc.in, func(t *testing.T) {
			f, err := strconv.ParseFloat(tc.in, 64)
			if err != nil || math.Float64bits(f) != tc.bits {
				t.Fatalf("test input %s parses to %016x (%v), want %016x", tc.in, math.Float64bits(f), err, tc.bits)
			}
			got, err := Canonicalize([]byte(tc.in))
			if err != nil {
				t.Fatalf("Canonicalize(%s): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Errorf("Canonicalize(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if got := string(appendNumber(nil, math.Float64frombits(tc.bits))); got != tc.want {
				t.Errorf("appendNumber(%016x) = %s, want %s", tc.bits, got, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Canonicalize([]byte(tc.in))
			if err == nil {
				t.Fatalf("Canonicalize(%q) = %s, want error", tc.in, out)
			}
			if out != nil {
				t.Errorf("Canonicalize(%q) returned output %q with error", tc.in, out)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if e.Path != tc.path || e.Offset != tc.off || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("Canonicalize(%q) error = {Offset:%d Path:%q Msg:%q}, want {Offset:%d Path:%q Msg:~%q}",
					tc.in, e.Offset, e.Path, e.Msg, tc.off, tc.path, tc.msg)
			}
			if e.Msg == "" || e.Msg != strings.ToLower(e.Msg[:1])+e.Msg[1:] || strings.HasSuffix(e.Msg, ".") {
				t.Errorf("message %q should start lower case and have no trailing period", e.Msg)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "byte 0: empty input"},
		{`[1,x]`, ".[1]: unexpected character 'x', expected a value"},
		{`{"a":{"b c":[0,1e999]}}`, `.a.["b c"][1]: number 1e999 overflows a double`},
		{`12345678901234567890`, "byte 0: integer 12345678901234567890 cannot be represented exactly as a double; write it as a string"},
		{`{"a":1,"a":2}`, `.a: duplicate key "a"`},
	} {
		_, err := Canonicalize([]byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Canonicalize(%q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDepth(t *testing.T) {
	for _, open := range []string{"[", `{"k":`} {
		closer := map[string]string{"[": "]", `{"k":`: "}"}[open]
		ok := strings.Repeat(open, maxDepth) + "0" + strings.Repeat(closer, maxDepth)
		got, err := Canonicalize([]byte(ok))
		if err != nil {
			t.Fatalf("depth %d %q: %v", maxDepth, open, err)
		}
		if string(got) != strings.ReplaceAll(ok, " ", "") {
			t.Errorf("depth %d %q: output differs", maxDepth, open)
		}
		deep := strings.Repeat(open, maxDepth+1) + "0" + strings.Repeat(closer, maxDepth+1)
		_, err = Canonicalize([]byte(deep))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, "nesting deeper than 1000") {
			t.Fatalf("depth %d %q: err = %v", maxDepth+1, open, err)
		}
		seg := map[string]string{"[": "[0]", `{"k":`: ".k"}[open]
		wantPath := strings.Repeat(seg, maxDepth)
		if open == "[" {
			wantPath = "." + wantPath
		}
		if e.Path != wantPath || e.Offset != int64(maxDepth*len(open)) {
			t.Errorf("depth error at offset %d path %.20q..., want offset %d path %.20q...", e.Offset, e.Path, maxDepth*len(open), wantPath)
		}
	}
	// Far deeper input must fail quickly rather than overflow anything.
	_, err := Canonicalize(bytes.Repeat([]byte("["), 10_000_000))
	if err == nil {
		t.Fatal("10M open brackets accepted")
	}
}

func TestIdempotent(t *testing.T) {
	var inputs []string
	for _, tc := range validCases {
		inputs = append(inputs, tc.in)
	}
	for _, tc := range appendixB {
		inputs = append(inputs, tc.in)
	}
	inputs = append(inputs, string(manifest(20)))
	for _, in := range inputs {
		once, err := Canonicalize([]byte(in))
		if err != nil {
			t.Fatalf("Canonicalize(%q): %v", in, err)
		}
		twice, err := Canonicalize(once)
		if err != nil {
			t.Fatalf("Canonicalize(Canonicalize(%q)) = error %v on %s", in, err, once)
		}
		if !bytes.Equal(once, twice) {
			t.Errorf("not idempotent for %q:\n once %s\ntwice %s", in, once, twice)
		}
	}
}

func TestAppend(t *testing.T) {
	dst := make([]byte, 3, 64)
	copy(dst, "abc")
	out, err := Append(dst, []byte(` {"b":2, "a":1} `))
	if err != nil || string(out) != `abc{"a":1,"b":2}` {
		t.Fatalf("Append = %q, %v", out, err)
	}
	out, err = Append(dst, []byte(`{"a":1,"a":2}`))
	if err == nil || len(out) != 3 || &out[0] != &dst[0] {
		t.Fatalf("Append on error = %q, %v; want dst unchanged", out, err)
	}
	out, err = Append(nil, []byte(`[]`))
	if err != nil || string(out) != "[]" {
		t.Fatalf("Append(nil) = %q, %v", out, err)
	}
}

// TestAgainstReference compares every valid case with an independent
// canonicalizer built on encoding/json and unicode/utf16.
func TestAgainstReference(t *testing.T) {
	ins := []string{string(manifest(50))}
	for _, tc := range validCases {
		ins = append(ins, tc.in)
	}
	for _, in := range ins {
		want, err := refCanonical([]byte(in))
		if err != nil {
			t.Fatalf("reference rejected %q: %v", in, err)
		}
		got, err := Canonicalize([]byte(in))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Canonicalize(%.60q) = %.200s, %v; reference %.200s", in, got, err, want)
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pool := []rune{0, 'a', 'b', 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfb33, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	gen := func() string {
		rs := make([]rune, r.IntN(4))
		for i := range rs {
			rs[i] = pool[r.IntN(len(pool))]
		}
		return string(rs)
	}
	for range 20000 {
		a, b := gen(), gen()
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		got := compareUTF16([]byte(a), []byte(b))
		if sign(got) != want {
			t.Fatalf("compareUTF16(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	}
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// TestNumberLayout checks the ES6 layout against encoding/json's
// independent float formatting over random bit patterns, which reach
// subnormals and every exponent range boundary.
func TestNumberLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	check := func(f float64) {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return
		}
		got := string(appendNumber(nil, f))
		if want := refNumber(f); got != want {
			t.Fatalf("appendNumber(%016x) = %s, want %s", math.Float64bits(f), got, want)
		}
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != f {
			t.Fatalf("appendNumber(%016x) = %s does not round-trip", math.Float64bits(f), got)
		}
	}
	for range 100000 {
		check(math.Float64frombits(r.Uint64()))
	}
	for e := -330; e <= 310; e++ {
		for _, m := range []float64{1, 1.5, 9.999999999999999, 2, 123456789} {
			check(m * math.Pow(10, float64(e)))
			check(-m * math.Pow(10, float64(e)))
		}
	}
}

// TestDecimalFastPath checks that plain decimals copied through unchanged
// are exactly what parsing and ES6 formatting would have produced.
func TestDecimalFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	digits := func(n int, lead bool) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		if lead && n > 0 && b[0] == '0' {
			b[0] = '1' + byte(r.IntN(9))
		}
		return string(b)
	}
	for range 200000 {
		in := "0"
		if r.IntN(3) > 0 {
			in = digits(1+r.IntN(16), true)
		}
		in += "." + strings.Repeat("0", r.IntN(8)) + digits(1+r.IntN(17), false)
		if r.IntN(2) == 0 {
			in = "-" + in
		}
		f, _ := strconv.ParseFloat(in, 64)
		want := string(appendNumber(nil, f))
		got, err := Canonicalize([]byte(in))
		if err != nil || string(got) != want {
			t.Fatalf("Canonicalize(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

// TestRandomDocuments compares random documents, spelled with random
// whitespace, escapes and number syntax, against the reference.
func TestRandomDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	chars := []rune{'a', 'b', 'Z', '0', ' ', '"', '\\', '/', '\n', 0x01, 0x1f, 0x7f, 0xe9, 0x2028, 0xd7ff, 0xe000, 0xfb33, 0xffff, 0x10000, 0x1f600}
	var str func(b *strings.Builder)
	str = func(b *strings.Builder) {
		b.WriteByte('"')
		for range r.IntN(4) {
			c := chars[r.IntN(len(chars))]
			switch {
			case r.IntN(2) == 0:
				for _, u := range utf16.Encode([]rune{c}) {
					fmt.Fprintf(b, `\u%04X`, u)
				}
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteRune(c)
			case c < 0x20:
				fmt.Fprintf(b, `\u%04x`, c)
			default:
				b.WriteRune(c)
			}
		}
		b.WriteByte('"')
	}
	ws := func(b *strings.Builder) {
		b.WriteString([]string{"", "", " ", "\n\t", "\r\n  "}[r.IntN(5)])
	}
	var val func(b *strings.Builder, depth int)
	val = func(b *strings.Builder, depth int) {
		ws(b)
		switch n := r.IntN(10); {
		case depth < 6 && n < 3:
			b.WriteByte('{')
			seen := map[string]bool{}
			for range r.IntN(6) {
				var kb strings.Builder
				str(&kb)
				var k string
				if err := json.Unmarshal([]byte(kb.String()), &k); err != nil {
					t.Fatal(err)
				}
				if seen[k] {
					continue
				}
				seen[k] = true
				if len(seen) > 1 {
					b.WriteByte(',')
				}
				ws(b)
				b.WriteString(kb.String())
				ws(b)
				b.WriteByte(':')
				val(b, depth+1)
			}
			ws(b)
			b.WriteByte('}')
		case depth < 6 && n < 5:
			b.WriteByte('[')
			for i := range r.IntN(5) {
				if i > 0 {
					b.WriteByte(',')
				}
				val(b, depth+1)
			}
			ws(b)
			b.WriteByte(']')
		case n < 7:
			str(b)
		case n < 9:
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) || r.IntN(2) == 0 {
				f = float64(r.IntN(2000)-1000) / []float64{1, 8, 1000, 1e9}[r.IntN(4)]
			}
			format := []byte{'e', 'E', 'g'}[r.IntN(3)]
			b.WriteString(strconv.FormatFloat(f, format, -1, 64))
		default:
			b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
		}
		ws(b)
	}
	for range 20000 {
		var b strings.Builder
		val(&b, 0)
		in := []byte(b.String())
		want, err := refCanonical(in)
		if err != nil {
			t.Fatalf("generator produced invalid JSON %q: %v", in, err)
		}
		got, err := Canonicalize(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Canonicalize(%q)\n got %q, %v\nwant %q", in, got, err, want)
		}
	}
}

// TestHostileShapes covers inputs built to multiply work: a large member
// that every enclosing object must move, and many unsorted siblings each
// holding unsorted children. Reordering happens once at the end, so both
// are linear; the test checks the result against the reference.
func TestHostileShapes(t *testing.T) {
	big := strings.Repeat("x", 1<<16)
	deep := strings.Repeat(`{"b":`, maxDepth) + `"` + big + `"` + strings.Repeat(`,"a":1}`, maxDepth)
	var wide strings.Builder
	wide.WriteByte('{')
	for i := 2000; i > 0; i-- {
		if i < 2000 {
			wide.WriteByte(',')
		}
		fmt.Fprintf(&wide, `"k%05d":{"z":[{"y":1,"x":2}],"a":%d}`, i, i)
	}
	wide.WriteByte('}')
	for _, in := range []string{deep, wide.String()} {
		want, err := refCanonical([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Canonicalize([]byte(in))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Canonicalize(%.80q...) differs from reference: %v", in, err)
		}
	}
}

// refCanonical is a deliberately naive RFC 8785 implementation used as a
// test oracle: it shares no code with the package.
func refCanonical(src []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	var b bytes.Buffer
	refEncode(&b, v)
	return b.Bytes(), nil
}

func refEncode(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		b.WriteString(refNumber(f))
	case string:
		b.WriteByte('"')
		for _, r := range v {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20:
				if s, ok := map[rune]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}[r]; ok {
					b.WriteString(s)
				} else {
					fmt.Fprintf(b, `\u%04x`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			refEncode(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y string) int {
			return slices.Compare(utf16.Encode([]rune(x)), utf16.Encode([]rune(y)))
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			refEncode(b, k)
			b.WriteByte(':')
			refEncode(b, v[k])
		}
		b.WriteByte('}')
	}
}

// refNumber is encoding/json's ES6-compatible float formatting.
func refNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, 64)
	if n := len(s); format == 'e' && n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
		s = s[:n-2] + s[n-1:]
	}
	return s
}

// sameJSON reports whether a and b, decoded with UseNumber, have the same
// structure and numerically equal numbers.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !sameJSON(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		fa, errA := strconv.ParseFloat(string(a), 64)
		fb, errB := strconv.ParseFloat(string(b), 64)
		return errA == nil && errB == nil && fa == fb
	default:
		return a == b
	}
}

func decodeNumber(t *testing.T, src []byte) any {
	d := json.NewDecoder(bytes.NewReader(src))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("encoding/json rejects %q: %v", src, err)
	}
	return v
}

// policyRefusals are the messages for JSON that encoding/json accepts but
// this package refuses on purpose.
var policyRefusals = []string{
	"duplicate key", "invalid UTF-8", "lone surrogate", "overflows a double",
	"cannot be represented exactly as a double", "nesting deeper than",
}

func FuzzCanonicalize(f *testing.F) {
	for _, tc := range validCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range appendixB {
		f.Add([]byte(tc.in))
	}
	for _, tc := range errorCases {
		f.Add([]byte(tc.in))
	}
	f.Add(manifest(3))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonicalize(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if e.Offset < 0 || e.Offset > int64(len(in)) {
				t.Fatalf("offset %d outside input of %d bytes", e.Offset, len(in))
			}
			if json.Valid(in) && !slices.ContainsFunc(policyRefusals, func(s string) bool { return strings.Contains(e.Msg, s) }) {
				t.Fatalf("valid JSON %q refused: %v", in, err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("output %q is not valid JSON", out)
		}
		again, err := Canonicalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
		if !sameJSON(decodeNumber(t, in), decodeNumber(t, out)) {
			t.Fatalf("structure differs: %q -> %q", in, out)
		}
		if want, err := refCanonical(in); err != nil || !bytes.Equal(out, want) {
			t.Fatalf("differs from reference: %q -> %q, reference %q (%v)", in, out, want, err)
		}
	})
}

// manifest builds a document shaped like an agent-run manifest: struct
// field order (so most objects need sorting), escapes, non-ASCII text and
// a mix of integers and decimals.
func manifest(steps int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"version":"ctx/1","run_id":"r-01HZX3Q9V7","created_at":"2024-05-01T12:00:00Z","steps":[`)
	for i := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"step":%d,"tool":"shell.exec","status":"ok","duration_s":%d.%03d,`+
			`"parameters":{"cmd":"grep -n \"TODO\" src/p%d.go\n","cwd":"C:\\w\/s","timeout":30,`+
			`"temperature":0.%d,"retry":[true,null]},"output":"r\u00e9sum\u00e9 \u2713\tok","cost":%de-5}`,
			i, i%60, i%1000, i%97, i%10, i*3+1)
	}
	b.WriteString(`],"summary":{"total":` + strconv.Itoa(steps) + `,"ok":true,"tags":["a","b"]}}`)
	return b.Bytes()
}

func BenchmarkCanonicalize(b *testing.B) {
	doc := manifest(5000)
	out, err := Canonicalize(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(doc))/(1<<20), "MiB/doc")
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(doc); err != nil {
			b.Fatal(err)
		}
	}
	_ = out
}

// BenchmarkAppend reuses the output buffer, as a caller hashing many
// manifests would.
func BenchmarkAppend(b *testing.B) {
	doc := manifest(5000)
	out, err := Canonicalize(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if out, err = Append(out[:0], doc); err != nil {
			b.Fatal(err)
		}
	}
}
