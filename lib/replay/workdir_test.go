package replay

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWorkdirMapParams(t *testing.T) {
	m := newWorkdirMap("/Users/someone/dev/proj/", "/tmp/ws")
	for _, tc := range []struct{ in, want string }{
		{`{"path":"/Users/someone/dev/proj/app.py"}`, `{"path":"app.py"}`},
		{`{"path":"/Users/someone/dev/proj"}`, `{"path":"."}`},
		{`{"command":"cd /Users/someone/dev/proj && cat app.py"}`, `{"command":"cd /tmp/ws && cat app.py"}`},
		{`{"command":["bash","-lc","ls /Users/someone/dev/proj/src"]}`, `{"command":["bash","-lc","ls /tmp/ws/src"]}`},
		{`{"command":"cat /Users/someone/dev/project/a /x/Users/someone/dev/proj"}`, `{"command":"cat /Users/someone/dev/project/a /x/Users/someone/dev/proj"}`},
		{`{"n":12345678901234567890,"path":"/Users/someone/dev/proj/a b"}`, `{"n":12345678901234567890,"path":"/tmp/ws/a b"}`},
		{`{"other":"/elsewhere"}`, `{"other":"/elsewhere"}`},
	} {
		if got := string(m.params([]byte(tc.in))); got != tc.want {
			t.Errorf("params(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, rec := range []string{"", "/", "relative/dir", "/tmp/ws"} {
		if m := newWorkdirMap(rec, "/tmp/ws"); m.rec != "" {
			t.Errorf("newWorkdirMap(%q) maps %q; want nothing", rec, m.rec)
		}
	}
}

// FuzzOutputMap holds the streaming replacement equal to bytes.ReplaceAll
// however the output is cut into writes.
func FuzzOutputMap(f *testing.F) {
	f.Add([]byte("/tmp/ws\n/tmp/ws/a /tmp/w /tmp/ws"), uint8(3))
	f.Add([]byte("/tmp/w/tmp/ws"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		m := workdirMap{rec: "/Users/x/proj", ws: "/tmp/ws"}
		var out bytes.Buffer
		om := m.output(&out)
		n := int(step%17) + 1
		for i := 0; i < len(data); i += n {
			om.Write(data[i:min(i+n, len(data))])
		}
		if err := om.flush(); err != nil {
			t.Fatal(err)
		}
		want := bytes.ReplaceAll(data, []byte("/tmp/ws"), []byte("/Users/x/proj"))
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%q in writes of %d: got %q, want %q", data, n, out.Bytes(), want)
		}
	})
}

// FuzzWorkdirParams: parameters from a pack never crash the mapping, and
// valid JSON stays valid JSON without the recorded directory standing
// alone as a value.
func FuzzWorkdirParams(f *testing.F) {
	f.Add([]byte(`{"path":"/u/p/a","command":"cd /u/p && ls /u/pp"}`))
	f.Add([]byte(`["/u/p"]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := newWorkdirMap("/u/p", "/tmp/ws")
		out := m.params(raw)
		if json.Valid(raw) && !json.Valid(out) {
			t.Fatalf("%q became invalid: %q", raw, out)
		}
		var v any
		if json.Unmarshal(out, &v) == nil && v == "/u/p" {
			t.Fatalf("%q kept the directory", raw)
		}
	})
}
