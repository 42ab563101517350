package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"path"
	"strings"
)

// workdirMap maps the directory a run worked in (environment.working_dir,
// as the recording machine named it) to the workspace and back: in a
// step's parameters before it runs, the recorded directory becomes the
// workspace; in its output, the workspace becomes the recorded directory
// again, so `pwd` and `cd /Users/someone/dev/proj && cat app.py` replay
// exact.
type workdirMap struct {
	rec string // the recorded directory, clean and absolute; "" maps nothing
	ws  string // the workspace
}

func newWorkdirMap(recorded, ws string) workdirMap {
	d := path.Clean(recorded)
	if recorded == "" || !strings.HasPrefix(d, "/") || d == "/" || d == ws {
		return workdirMap{}
	}
	return workdirMap{rec: d, ws: ws}
}

// params maps the recorded directory in the parameters raw. A value that
// is a path under it becomes the path relative to the workspace ("." for
// the directory itself), which the built-ins accept; inside longer text
// (a shell command) it becomes the workspace's absolute path.
func (m workdirMap) params(raw json.RawMessage) json.RawMessage {
	if m.rec == "" || !bytes.Contains(raw, []byte(m.rec)) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw // the executor says what is wrong with it
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(m.value(v)) != nil {
		return raw
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func (m workdirMap) value(v any) any {
	switch x := v.(type) {
	case string:
		return m.text(x)
	case []any:
		for i := range x {
			x[i] = m.value(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = m.value(x[k])
		}
	}
	return v
}

func (m workdirMap) text(s string) string {
	if s == m.rec {
		return "."
	}
	if rest, ok := strings.CutPrefix(s, m.rec+"/"); ok && rest != "" && !strings.ContainsAny(rest, " \t\r\n") {
		return path.Clean(rest)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, m.rec)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(m.rec)
		whole := (i == 0 || !pathByte(s[i-1])) && (end == len(s) || s[end] == '/' || !pathByte(s[end]))
		b.WriteString(s[:i])
		if whole {
			b.WriteString(m.ws)
		} else {
			b.WriteString(m.rec)
		}
		s = s[end:]
	}
}

// pathByte reports whether c can be part of a path word: a match must not
// be preceded or followed by one (/tmp/ab is not /tmp/a).
func pathByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("._-~/+%@", c) >= 0
}

// output wraps w so that the workspace's path written to it reads as the
// recorded directory; flush writes what it holds back.
func (m workdirMap) output(w io.Writer) *outputMap {
	return &outputMap{w: w, old: []byte(m.ws), new: []byte(m.rec)}
}

// outputMap replaces old with new in a stream, holding back the bytes that
// may begin a match cut by a write.
type outputMap struct {
	w        io.Writer
	old, new []byte
	held     []byte
	err      error
}

func (o *outputMap) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	data := append(o.held, p...)
	var out []byte
	for {
		i := bytes.Index(data, o.old)
		if i < 0 {
			break
		}
		out = append(append(out, data[:i]...), o.new...)
		data = data[i+len(o.old):]
	}
	// Keep the longest tail that is a prefix of old.
	keep := 0
	for k := min(len(o.old)-1, len(data)); k > 0; k-- {
		if bytes.HasPrefix(o.old, data[len(data)-k:]) {
			keep = k
			break
		}
	}
	out = append(out, data[:len(data)-keep]...)
	o.held = append([]byte(nil), data[len(data)-keep:]...)
	if _, err := o.w.Write(out); err != nil {
		o.err = err
		return 0, err
	}
	return len(p), nil
}

// flush writes what is held back.
func (o *outputMap) flush() error {
	if o.err != nil || len(o.held) == 0 {
		return o.err
	}
	_, err := o.w.Write(o.held)
	o.held = nil
	return err
}
