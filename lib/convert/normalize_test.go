package convert

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// shown renders lines as Claude Code's Read shows them, from line start.
func shown(start int, body string) string {
	var b strings.Builder
	for i, l := range strings.Split(body, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\u2192%s", start+i, l)
	}
	return b.String() + "\n\n<system-reminder>\nWhenever you read a file...\n</system-reminder>\n"
}

func TestClaudeCodeReadNormalized(t *testing.T) {
	num := func(n int) json.Number { return json.Number(fmt.Sprint(n)) }
	file := func(body string, start, lines, total int) map[string]any {
		return map[string]any{"content": body, "startLine": num(start), "numLines": num(lines), "totalLines": num(total)}
	}
	long := strings.Repeat("x", 2000)
	cases := []struct {
		name   string
		params map[string]any
		text   string
		file   map[string]any
		want   string
		ok     bool
	}{
		{"whole file ending in a newline", map[string]any{}, shown(1, "a\nb\n"), file("a\nb\n", 1, 3, 3), "a\nb\n", true},
		{"whole file without a last newline", map[string]any{}, shown(1, "a\nb"), file("a\nb", 1, 2, 2), "a\nb", true},
		{"a limit short of the end: the last line's newline", map[string]any{"limit": num(2)}, shown(1, "a\nb"), file("a\nb", 1, 2, 9), "a\nb\n", true},
		{"offset and limit", map[string]any{"offset": num(3), "limit": num(2)}, shown(3, "c\nd"), file("c\nd", 3, 2, 9), "c\nd\n", true},
		{"an offset to the end", map[string]any{"offset": num(3)}, shown(3, "c\n"), file("c\n", 3, 2, 4), "c\n", true},
		{"a limit past the end", map[string]any{"limit": num(50)}, shown(1, "a\n"), file("a\n", 1, 2, 2), "a\n", true},
		{"cut at Claude Code's own limit", map[string]any{}, shown(1, "a\nb"), file("a\nb", 1, 2, 3000), "", false},
		{"another start than the offset", map[string]any{"offset": num(3)}, shown(4, "d"), file("d", 4, 1, 9), "", false},
		{"the text is not the lines", map[string]any{}, "<system-reminder>Warning: the file exists but is shorter than the provided offset (9). The file has 2 lines.</system-reminder>", file("", 9, 1, 2), "", false},
		{"the text differs from the content", map[string]any{}, shown(1, "a\nB\n"), file("a\nb\n", 1, 3, 3), "", false},
		{"a line long enough to be cut", map[string]any{}, shown(1, long+"\n"), file(long+"\n", 1, 2, 2), "", false},
		{"a negative offset", map[string]any{"offset": num(-1)}, shown(1, "a\n"), file("a\n", 1, 2, 2), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ccReadNormalized(c.params, c.text, c.file)
			if ok != c.ok || got != c.want {
				t.Errorf("got %q %v, want %q %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestClaudeCodeGlobNormalized(t *testing.T) {
	wd := newWorkdir("/u/repo")
	cases := []struct {
		text  string
		tur   map[string]any
		want  string
		ok    bool
		label string
	}{
		{"/u/repo/b.go\n/u/repo/a.txt\n/u/repo/a/z.go", map[string]any{"truncated": false}, "a/z.go\na.txt\nb.go\n", true, "walk order"},
		{"No files found", map[string]any{"truncated": false}, "", true, "nothing found"},
		{"/u/repo/a.go\n(Results are truncated. Consider using a more specific path or pattern.)", map[string]any{"truncated": true}, "", false, "truncated"},
		{"/u/other/a.go", map[string]any{}, "", false, "outside the working directory"},
		{"a.go", map[string]any{}, "", false, "not an absolute path"},
	}
	for _, c := range cases {
		got, ok := ccGlobNormalized(c.text, c.tur, wd)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: got %q %v, want %q %v", c.label, got, ok, c.want, c.ok)
		}
	}
}

func TestWalkLess(t *testing.T) {
	paths := []string{"a.txt", "b", "a/b/c", "a-b", "a/b.go", "a/c"}
	sort.Slice(paths, func(i, j int) bool { return walkLess(paths[i], paths[j]) })
	// A walk visits the directory a (then a/b inside it) before a-b and
	// a.txt, which a plain string order puts first ('-' and '.' sort
	// before '/').
	if want := "a/b/c a/b.go a/c a-b a.txt b"; strings.Join(paths, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(paths, " "), want)
	}
}

func TestSWEWindow(t *testing.T) {
	cases := []struct {
		name, text, want string
		first, last, tot int
		ok               bool
	}{
		{"whole small file, through a terminal, with the shell's state",
			"[File: /r/t.py (3 lines total)]\r\n1:a\r\n2:\r\n3:c\n(Open file: /r/t.py)\n(Current directory: /r)\nbash-$",
			"a\n\nc\n", 1, 3, 3, true},
		{"a window in the middle",
			"[File: f.py (1997 lines total)]\n(1456 more lines above)\n1457:x\n1458:y:z\n(539 more lines below)",
			"x\ny:z\n", 1457, 1458, 1997, true},
		{"a warning first, an edit's message after",
			"Warning: Setting <line_number> to 2\n[File: f (2 lines total)]\n1:a\n2:b\nFile updated.",
			"a\nb\n", 1, 2, 2, true},
		{"lines below not counted", "[File: f (9 lines total)]\n1:a\n", "", 0, 0, 0, false},
		{"a gap in the numbers", "[File: f (3 lines total)]\n1:a\n3:c", "", 0, 0, 0, false},
		{"no window", "File f not found", "", 0, 0, 0, false},
	}
	for _, c := range cases {
		body, first, last, total, ok := sweWindow(c.text)
		if ok != c.ok || (ok && (body != c.want || first != c.first || last != c.last || total != c.tot)) {
			t.Errorf("%s: got %q %d-%d/%d %v", c.name, body, first, last, total, ok)
		}
	}
}

func TestSWECommand(t *testing.T) {
	cases := []struct{ action, want string }{
		{"open tests/missing_colon.py\n", `open {"path":"tests/missing_colon.py"}`},
		{`open "src/marshmallow/fields.py" 1474`, `open {"line_number":1474,"path":"src/marshmallow/fields.py"}`},
		{`find_file "fields.py" src`, `find_file {"dir":"src","file_name":"fields.py"}`},
		{"edit 4:4\ndef division(a: float, b: float) -> float:\nend_of_edit\n", `edit {"end_line":4,"replacement_text":"def division(a: float, b: float) -> float:","start_line":4}`},
		{"edit 1:1\nend_of_edit", `edit {"end_line":1,"replacement_text":"","start_line":1}`},
		{`edit 'def f(a)' 'def f(a):' False`, `edit {"replace":"def f(a):","replace-all":false,"search":"def f(a)"}`},
		{`search_dir "x y" src`, `search_dir {"dir":"src","search_term":"x y"}`},
		{"submit\n", `submit {}`},
		{"scroll_down", `scroll_down {}`},
		{"goto 12", `goto {"line_number":12}`},
		{"goto twelve", `bash {"command":"goto twelve"}`},
		{"scroll_down 3", `bash {"command":"scroll_down 3"}`},
		{"python reproduce.py\n", `bash {"command":"python reproduce.py"}`},
		{"cat <<EOF\nx\nEOF", `bash {"command":"cat <<EOF\nx\nEOF"}`},
		{`open "unclosed`, `bash {"command":"open \"unclosed"}`},
		{"edit 4:4\nno end", `bash {"command":"edit 4:4\nno end"}`},
	}
	for _, c := range cases {
		tool, params := sweCommand(c.action)
		p, _ := jsonText(params)
		if got := tool + " " + p; got != c.want {
			t.Errorf("%q: got %s, want %s", c.action, got, c.want)
		}
	}
}
