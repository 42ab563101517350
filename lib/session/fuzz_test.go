package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// FuzzSetString holds setString to encoding/json: on a JSON object, a
// replaced top-level string decodes to the new value, every other member
// as it was.
func FuzzSetString(f *testing.F) {
	f.Add(`{"a":1,"cwd":"/old","b":"x"}`, "/new")
	f.Add(`{"message":{"cwd":"/in"},"cwd":"\u002fold"}`, "/n\"ew\\")
	f.Add(`{"cwd":"a","cwd":"b"}`, "c")
	f.Fuzz(func(t *testing.T, in, value string) {
		out, ok := setString([]byte(in), value, "cwd")
		if !ok {
			if string(out) != in {
				t.Errorf("setString changed %q without saying so", in)
			}
			return
		}
		var before, after map[string]any
		if json.Unmarshal([]byte(in), &before) != nil {
			return // not JSON: setString only promises not to panic
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("setString(%q) = %q: %v", in, out, err)
		}
		if dup := duplicateKeys(in); dup {
			return // which "cwd" a decoder keeps is its own choice
		}
		if utf8.ValidString(value) && after["cwd"] != value {
			t.Errorf("setString(%q, %q): cwd = %q", in, value, after["cwd"])
		}
		delete(before, "cwd")
		delete(after, "cwd")
		if !reflect.DeepEqual(before, after) {
			t.Errorf("setString(%q) changed other members: %q", in, out)
		}
	})
}

// duplicateKeys reports whether the object's top level names a key twice.
func duplicateKeys(doc string) bool {
	dec := json.NewDecoder(strings.NewReader(doc))
	if _, err := dec.Token(); err != nil {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		s, _ := k.(string)
		if seen[s] {
			return true
		}
		seen[s] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// FuzzFiles: whatever names and metadata a pack's inputs carry (a pack
// may come from anyone), the session files Files returns are named below
// their folder, never outside it.
func FuzzFiles(f *testing.F) {
	f.Add(".ctx-session/claude-code/s.jsonl", `{"agent_session":{"agent":"claude-code","id":"s","main":true}}`, ".ctx-session/claude-code/s/../../x", `{"agent_session":{"agent":"claude-code","id":"s"}}`)
	f.Add(".ctx-session/codex//etc/passwd", `{"agent_session":{"agent":"codex","id":"s","main":true}}`, "", `{}`)
	f.Fuzz(func(t *testing.T, name1, md1, name2, md2 string) {
		m := &pack.Manifest{Inputs: []pack.File{{Name: name1, Metadata: []byte(md1)}, {Name: name2, Metadata: []byte(md2)}}}
		_, _, files, ok := Files(m)
		if !ok {
			return
		}
		if !files[0].Main {
			t.Errorf("Files: the first file is not the session file")
		}
		for _, f := range files {
			if !safeRel(f.Rel) || strings.HasPrefix(f.Rel, "/") || strings.Contains("/"+f.Rel+"/", "/../") {
				t.Errorf("Files gave %q", f.Rel)
			}
		}
	})
}

// FuzzParseCaptureCache: a damaged cache is an empty one; what it
// answers is what its lines say, each hash in hex.
func FuzzParseCaptureCache(f *testing.F) {
	f.Add([]byte(captureCacheHeader + strings.Repeat("ab", 32) + " " + strings.Repeat("cd", 32) + "\n"))
	f.Add([]byte(captureCacheHeader + "zz zz\n"))
	f.Add([]byte("ctx capture cache 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for p, d := range parseCaptureCache(b) {
			if !strings.Contains(strings.ToLower(string(b)), p.Hex()+" "+d.Hex()) {
				t.Errorf("parseCaptureCache(%q) gave %s %s, which it does not say", b, p.Hex(), d.Hex())
			}
		}
	})
}

// FuzzParseRestored: the restore record, whatever its bytes, reads as
// records that each name a file, a session and a size, and a record read
// writes back as itself.
func FuzzParseRestored(f *testing.F) {
	f.Add([]byte(restoredCacheHeader + `{"pack":"sha256:` + strings.Repeat("ab", 32) + `","agent":"claude-code","session":"s","file":"/h/s.jsonl","cwd":"/w","size":3,"sum":"sha256:` + strings.Repeat("CD", 32) + `"}` + "\n"))
	f.Add([]byte(restoredCacheHeader + "{\n{}\n"))
	f.Add([]byte("ctx restore record 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range parseRestored(b) {
			if r.Agent == "" || r.Session == "" || r.File == "" || r.Size <= 0 {
				t.Errorf("parseRestored(%q) gave %+v", b, r)
			}
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			back := parseRestored(append([]byte(restoredCacheHeader), line...))
			if len(back) != 1 || !reflect.DeepEqual(back[0], r) {
				t.Errorf("the record %+v does not read back: %+v", r, back)
			}
		}
	})
}
