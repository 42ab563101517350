package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// InputError is malformed input, said with where it is: a line of a
// line-based transcript, a JSON path into a document, or both.
type InputError struct {
	Line   int    // 1-based line, 0 when not known
	Column int    // 1-based column on Line, 0 when not known
	Path   string // jq-style path, "" at the root
	Msg    string
}

// Error formats the error as "line L, column C: PATH: MSG", leaving out what
// is not known.
func (e *InputError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ", column %d", e.Column)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// node is a decoded JSON value with the path that reached it, so a format
// can say exactly where its input is wrong.
type node struct {
	v    any
	path string
	line int // the line of a line-based transcript, 0 in a document
}

func root(v any, line int) node { return node{v: v, line: line} }

func (n node) key(k string) node {
	var v any
	if m, ok := n.v.(map[string]any); ok {
		v = m[k]
	}
	return node{v: v, path: jcs.PathKey(n.path, k), line: n.line}
}

func (n node) idx(i int) node {
	var v any
	if a, ok := n.v.([]any); ok && i < len(a) {
		v = a[i]
	}
	return node{v: v, path: fmt.Sprintf("%s[%d]", n.path, i), line: n.line}
}

func (n node) errorf(format string, args ...any) error {
	p := n.path
	if p == "" && n.line == 0 {
		p = "."
	}
	return &InputError{Line: n.line, Path: p, Msg: fmt.Sprintf(format, args...)}
}

func (n node) null() bool { return n.v == nil }

func (n node) obj() (map[string]any, bool) {
	m, ok := n.v.(map[string]any)
	return m, ok
}

func (n node) arr() ([]any, bool) {
	a, ok := n.v.([]any)
	return a, ok
}

func (n node) str() (string, bool) {
	s, ok := n.v.(string)
	return s, ok
}

// string returns the value as a string; absent or null is "".
func (n node) string() string {
	s, _ := n.v.(string)
	return s
}

// needObj returns the object at n, or an error naming the path.
func (n node) needObj() (map[string]any, error) {
	m, ok := n.obj()
	if !ok {
		return nil, n.errorf("must be an object, not %s", kindOf(n.v))
	}
	return m, nil
}

// needArr returns the array at n, or an error naming the path.
func (n node) needArr() ([]any, error) {
	a, ok := n.arr()
	if !ok {
		return nil, n.errorf("must be an array, not %s", kindOf(n.v))
	}
	return a, nil
}

// optStr returns the string at n, "" when absent or null, and an error when
// it is something else.
func (n node) optStr() (string, error) {
	if n.v == nil {
		return "", nil
	}
	s, ok := n.v.(string)
	if !ok {
		return "", n.errorf("must be a string, not %s", kindOf(n.v))
	}
	return s, nil
}

// needStr is optStr for a string that must be there and not be empty.
func (n node) needStr() (string, error) {
	s, err := n.optStr()
	if err == nil && s == "" {
		return "", n.errorf("missing")
	}
	return s, err
}

func (n node) bool() bool {
	b, _ := n.v.(bool)
	return b
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// jsonError turns a decoding error at a byte offset of data into an
// InputError with the line and column of the offending byte.
func jsonError(data []byte, err error, baseLine int) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	pos := int64(-1) // index of the byte where the error is
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the bad one included.
		pos = max(se.Offset-1, 0)
		msg = "invalid JSON: " + se.Error()
	case errors.As(err, &te):
		pos = max(te.Offset-1, 0)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		pos = int64(len(data))
		msg = "unexpected end of input: the transcript is truncated"
	}
	if pos < 0 {
		return &InputError{Line: baseLine, Msg: msg}
	}
	pos = min(pos, int64(len(data)))
	line := max(baseLine, 1) + bytes.Count(data[:pos], []byte("\n"))
	col := int(pos) + 1
	if i := bytes.LastIndexByte(data[:pos], '\n'); i >= 0 {
		col = int(pos) - i
	}
	return &InputError{Line: line, Column: col, Msg: msg}
}

// safeJSON makes a decoded value fit for a pack: numbers that a double
// cannot hold exactly (which the canonical JSON of packs refuses) become
// strings holding the number as written, and strings pass through rewrite.
// Maps and slices are rewritten in place.
func safeJSON(v any, rewrite func(string) string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = safeJSON(e, rewrite)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = safeJSON(e, rewrite)
		}
		return x
	case string:
		if rewrite != nil {
			return rewrite(x)
		}
		return x
	case json.Number:
		return safeNumber(x)
	case float64:
		return x
	case int:
		return x
	case int64:
		if x > 1<<53 || x < -(1<<53) {
			return strconv.FormatInt(x, 10)
		}
		return x
	}
	return v
}

// safeNumber keeps n when a pack can hold it exactly, else returns it as a
// string.
func safeNumber(n json.Number) any {
	s := string(n)
	if len(s) <= 15 && !strings.ContainsAny(s, "eE") {
		return n
	}
	if _, err := jcs.Canonicalize([]byte(s)); err != nil {
		return s
	}
	return n
}

// textOf reads message content that is either a string or an array of
// parts. Text parts are joined with newlines; other parts are returned as
// they are, for metadata.
func textOf(n node) (text string, has bool, rest []any) {
	switch v := n.v.(type) {
	case string:
		return v, true, nil
	case []any:
		var parts []string
		for _, p := range v {
			m, ok := p.(map[string]any)
			if !ok {
				if s, ok := p.(string); ok {
					parts = append(parts, s)
					continue
				}
				rest = append(rest, p)
				continue
			}
			t, _ := m["type"].(string)
			if s, ok := m["text"].(string); ok && (t == "" || t == "text" || t == "input_text" || t == "output_text") {
				parts = append(parts, s)
				continue
			}
			rest = append(rest, p)
		}
		return strings.Join(parts, "\n"), len(parts) > 0, rest
	case nil:
		return "", false, nil
	}
	return "", false, []any{n.v}
}

// parseArguments reads tool-call arguments given as a JSON string (OpenAI's
// function.arguments) or as an object. Parameters must be an object, so
// anything else is wrapped as {"arguments": value}; text that is not JSON
// (models do write that) is kept as written, and bad reports it. Arguments
// encoded twice (a JSON string holding the JSON text of an object, as some
// tracers record them) are decoded twice.
func parseArguments(v any) (params map[string]any, bad bool) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, false
	case map[string]any:
		return x, false
	case string:
		if strings.TrimSpace(x) == "" {
			return map[string]any{}, false
		}
		parsed, err := jcs.Decode([]byte(x))
		if err != nil {
			return map[string]any{"arguments": x}, true
		}
		if m, ok := parsed.(map[string]any); ok {
			return m, false
		}
		if inner, ok := parsed.(string); ok {
			if v, err := jcs.Decode([]byte(inner)); err == nil {
				if m, ok := v.(map[string]any); ok {
					return m, false
				}
			}
		}
		return map[string]any{"arguments": parsed}, false
	}
	return map[string]any{"arguments": v}, false
}

// rest returns the fields of m not named in known, or nil when there are
// none: what a format could not map, for metadata. Null fields say nothing
// and are left out.
func rest(m map[string]any, known ...string) map[string]any {
	var out map[string]any
	for k, v := range m {
		skip := v == nil
		for _, kn := range known {
			if k == kn {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = v
	}
	return out
}

// setIf sets m[k] = v unless v is empty (nil, "", false, an empty map or
// slice), creating m when needed.
func setIf(m map[string]any, k string, v any) map[string]any {
	switch x := v.(type) {
	case nil:
		return m
	case string:
		if x == "" {
			return m
		}
	case bool:
		if !x {
			return m
		}
	case map[string]any:
		if len(x) == 0 {
			return m
		}
	case []any:
		if len(x) == 0 {
			return m
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}

// sortedKeys returns the keys of m in order, so output never depends on map
// iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonText encodes v as compact JSON text without HTML escaping, for output
// that is structured rather than text.
func jsonText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// gitEnv is environment.git: the commit, branch and repository URL of the
// checkout the run worked in, those that are non-empty strings; nil when
// none is.
func gitEnv(commit, branch, url any) map[string]any {
	var g map[string]any
	g = setIf(g, "commit", str(commit))
	g = setIf(g, "branch", str(branch))
	g = setIf(g, "repository_url", str(url))
	return g
}

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// rawJSON is v as compact JSON, for the outcome's score and value (v is
// made of decoded JSON, so it always encodes).
func rawJSON(v any) json.RawMessage {
	s, _ := jsonText(v)
	return json.RawMessage(s)
}

// listIn returns n when it is an array, else the first of keys of n that
// holds one: the list a format keeps bare or inside a record.
func listIn(n node, keys ...string) (node, bool) {
	if _, ok := n.arr(); ok {
		return n, true
	}
	for _, k := range keys {
		if _, ok := n.key(k).arr(); ok {
			return n.key(k), true
		}
	}
	return node{}, false
}
