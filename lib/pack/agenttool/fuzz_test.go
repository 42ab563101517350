package agenttool

import (
	"strings"
	"testing"
)

// quote is a word as sh reads it back: in single quotes.
func quote(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }

// FuzzShellWords feeds the reading of a command line, which comes from
// the model: the words it gives, quoted again, read back the same.
func FuzzShellWords(f *testing.F) {
	for _, s := range []string{`open "src/a.py" 12`, `edit 'a b' "c\"d" True`, "open foo.py;ls", `a\`, "x \\\ny", `"$(id)"`, "find_file *.py"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := ShellWords(s)
		if err != nil {
			return
		}
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = quote(w)
		}
		again, err := ShellWords(strings.Join(q, " "))
		if err != nil || strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
			t.Fatalf("%q: words %q read back as %q, %v", s, words, again, err)
		}
	})
}

// FuzzReadSWELine feeds the reading of SWE-agent's text actions: a
// line-range edit's text is its own argument (SWEEditText), so the step a
// converter makes of it replays as the action ran.
func FuzzReadSWELine(f *testing.F) {
	for _, s := range []string{"edit 4:4\nx\nend_of_edit\n", "edit 1:1\nend_of_edit", "4:4\na\n\nend_of_edit", "open a.py 3", "insert 'a\nb'"} {
		f.Add(s, "")
		f.Add(s, "edit")
	}
	f.Fuzz(func(t *testing.T, line, name string) {
		l, ok := ReadSWELine(line, name)
		if !ok {
			return
		}
		if name != "" && l.Name != name {
			t.Fatalf("%q for %q: command %q", line, name, l.Name)
		}
		if l.HasText && SWEEditText(l.Text) != l.Text {
			t.Fatalf("%q: the text %q as an argument gives %q", line, l.Text, SWEEditText(l.Text))
		}
	})
}

// FuzzInsert holds Insert to what it says: the lines before, the text's
// lines each with a newline, the rest, and nothing lost.
func FuzzInsert(f *testing.F) {
	f.Add("a\nb\n", 1, "X")
	f.Add("a", 1, "X\n")
	f.Add("", 0, "")
	f.Fuzz(func(t *testing.T, s string, line int, text string) {
		got, err := Insert(s, line, text)
		if err != nil {
			if line >= 0 && line <= lineCount(s) {
				t.Fatalf("Insert(%q, %d, %q): %v", s, line, text, err)
			}
			return
		}
		if len(got) != len(s)+len(text)+1 {
			t.Fatalf("Insert(%q, %d, %q) = %q: %d bytes", s, line, text, got, len(got))
		}
		if !strings.Contains(got, text+"\n") {
			t.Fatalf("Insert(%q, %d, %q) = %q lacks the text", s, line, text, got)
		}
	})
}
