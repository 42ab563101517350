package store

import (
	"bytes"
	"math"
	"testing"
)

// FuzzIndexLog reads arbitrary bytes as an index log. The reader must not
// fail or panic; every line it takes as a record is the one appendRecord
// writes for what it read; and a record appended after any bytes at all
// (a torn write, damage) is read whole, as each append starts with a
// newline.
func FuzzIndexLog(f *testing.F) {
	h := Sum([]byte("a pack"))
	good := appendRecord(nil, IndexRecord{Hash: h, Entry: []byte(`{"hash":"sha256:x"}`)}, 1)
	f.Add(good)
	f.Add(append(good, appendRecord(nil, IndexRecord{Hash: h}, 2)...))
	f.Add(good[:len(good)/2])
	f.Add([]byte("\n\n00000000 + zz 1 {}\n"))
	f.Add(bytes.Replace(good, []byte("+"), []byte("-"), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		var l indexLog
		l.reset()
		n := l.parse(0, data, 0)
		if n > len(data) || bytes.IndexByte(data[n:], '\n') >= 0 {
			t.Fatalf("consumed %d of %d bytes, leaving a complete line", n, len(data))
		}
		for _, line := range bytes.Split(data[:n], []byte("\n")) {
			rh, at, from, to, ok := parseRecord(line)
			if !ok {
				continue
			}
			r := IndexRecord{Hash: rh}
			if to >= 0 {
				r.Entry = append([]byte{}, line[from:to]...)
			}
			if again := appendRecord(nil, r, at); !bytes.Equal(again, append(append([]byte{}, line...), '\n')) {
				t.Fatalf("read %q, written back %q", line, again)
			}
		}
		// Whatever came before, a record appended is read.
		tail := appendRecord([]byte{'\n'}, IndexRecord{Hash: h, Entry: []byte("after")}, math.MaxInt64)
		l.reset()
		all := append(append([]byte{}, data...), tail...)
		l.parse(0, all, 0)
		r, ok := l.lookup(h)
		if !ok || r.len < 0 || string(all[r.off:r.off+int64(r.len)]) != "after" {
			t.Fatalf("a record appended after %q is not read: %+v, %v", data, r, ok)
		}
	})
}
