package agenttool

import (
	"errors"
	"reflect"
	"testing"
)

func TestInsert(t *testing.T) {
	for _, tt := range []struct {
		file, text string
		line       int
		want       string
		lines      int // -1: no error
	}{
		{"a\nb\n", "X", 1, "a\nX\nb\n", -1},
		{"a\nb\n", "X\n", 1, "a\nX\n\nb\n", -1}, // each line of the text gets a newline
		{"a", "X", 1, "aX\n", -1},               // the last line keeps its missing newline
		{"a", "X", 0, "X\na", -1},
		{"a\nb", "top", 0, "top\na\nb", -1},
		{"a\nb\n", "end", 2, "a\nb\nend\n", -1},
		{"", "X", 0, "X\n", -1},
		{"", "", 0, "\n", -1},
		{"a\nb\n", "two\nlines", 1, "a\ntwo\nlines\nb\n", -1},
		{"a\nb\n", "X", 3, "", 2},
		{"a\nb", "X", 3, "", 2},
		{"", "X", 1, "", 0},
		{"a\n", "X", -1, "", 1},
	} {
		got, err := Insert(tt.file, tt.line, tt.text)
		var ie *InsertError
		switch {
		case tt.lines < 0 && (err != nil || got != tt.want):
			t.Errorf("Insert(%q, %d, %q) = %q, %v; want %q", tt.file, tt.line, tt.text, got, err, tt.want)
		case tt.lines >= 0 && (!errors.As(err, &ie) || ie.Lines != tt.lines || ie.Line != tt.line):
			t.Errorf("Insert(%q, %d, %q) = %q, %v; want the error of a file of %d lines", tt.file, tt.line, tt.text, got, err, tt.lines)
		}
	}
}

func TestReplace(t *testing.T) {
	r := func(old, new string, all bool) Replacement { return Replacement{Old: old, New: new, All: all} }
	for _, tt := range []struct {
		name   string
		edits  []Replacement
		want   string
		failed int
		err    *EditError
	}{
		{"once", []Replacement{r("b", "B", true)}, "aBcB", -1, nil},
		{"unique", []Replacement{r("c", "C", false)}, "abCb", -1, nil},
		{"not unique", []Replacement{r("b", "B", false)}, "", 0, &EditError{Count: 2}},
		{"absent", []Replacement{r("z", "Z", false)}, "", 0, &EditError{Count: 0}},
		{"absent with all", []Replacement{r("z", "Z", true)}, "", 0, &EditError{Count: 0}},
		{"empty", []Replacement{r("", "Z", true)}, "", 0, &EditError{Empty: true}},
		{"in order", []Replacement{r("a", "A", false), r("Ab", "x", false)}, "xcb", -1, nil},
		{"all or nothing", []Replacement{r("a", "A", false), r("a", "A", false)}, "", 1, &EditError{Count: 0}},
	} {
		got, failed, err := Replace("abcb", tt.edits)
		var ee *EditError
		switch {
		case tt.err == nil && (err != nil || got != tt.want):
			t.Errorf("%s: %q, %v", tt.name, got, err)
		case tt.err != nil && (!errors.As(err, &ee) || *ee != *tt.err || failed != tt.failed || got != ""):
			t.Errorf("%s: %q, edit %d, %v; want edit %d refused: %v", tt.name, got, failed, err, tt.failed, tt.err)
		}
	}
	if got := Written("a\n", "b\n", true); got != "a\nb\n" {
		t.Errorf("an append leaves %q", got)
	}
	if got := Written("a\n", "b\n", false); got != "b\n" {
		t.Errorf("a write leaves %q", got)
	}
}

func TestShellWords(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
		err  bool
	}{
		{`open tests/a.py 12`, []string{"open", "tests/a.py", "12"}, false},
		{`a  b`, []string{"a", "b"}, false},
		{`edit 'def f(a: int) -> int' 'def f(a: int) -> int:' False`, []string{"edit", "def f(a: int) -> int", "def f(a: int) -> int:", "False"}, false},
		{`find_file "missing colon.py"`, []string{"find_file", "missing colon.py"}, false},
		{`search_dir "a\"b" src\ dir`, []string{"search_dir", `a"b`, "src dir"}, false},
		{`'a b' "c\"d" e\ f`, []string{"a b", `c"d`, "e f"}, false},
		{`"a\nb"`, []string{`a\nb`}, false},
		{`x''y`, []string{"xy"}, false},
		{"insert 'two\nlines'", []string{"insert", "two\nlines"}, false},
		{"a \\\nb", []string{"a", "b"}, false},
		{`''`, []string{""}, false},
		{`a\`, []string{`a\`}, false}, // as sh -c reads it
		{`a#b`, []string{"a#b"}, false},
		{`"*.py" '~/x'`, []string{"*.py", "~/x"}, false},
		{`open foo.py;ls`, nil, true},
		{`open a.py; rm -rf /`, nil, true},
		{`open $HOME/a.py`, nil, true},
		{`open "$(id)"`, nil, true},
		{"open `id`", nil, true},
		{`open 'unterminated`, nil, true},
		{`open "unterminated`, nil, true},
		{`goto 3 > out`, nil, true},
		{`a && b`, nil, true},
		{`open a.py # a comment`, nil, true},
		{`find_file *.py`, nil, true},
		{`open ~/a.py`, nil, true},
		{"open a.py\nrm -rf /", nil, true},
	} {
		got, err := ShellWords(tt.line)
		if (err != nil) != tt.err || !tt.err && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ShellWords(%q) = %q, %v; want %q (error: %v)", tt.line, got, err, tt.want, tt.err)
		}
	}
}

func TestReadSWELine(t *testing.T) {
	for _, tt := range []struct {
		line, name string
		want       SWELine
		ok         bool
	}{
		{"open tests/a.py\n", "", SWELine{Name: "open", Args: []string{"tests/a.py"}}, true},
		{"edit 4:4\ndef f(a):\nend_of_edit\n", "", SWELine{Name: "edit", Args: []string{"4:4"}, Text: "def f(a):", HasText: true}, true},
		{"edit 4:4\nx\n\nend_of_edit", "", SWELine{Name: "edit", Args: []string{"4:4"}, Text: "x\n", HasText: true}, true},
		{"edit 1:1\nend_of_edit", "", SWELine{Name: "edit", Args: []string{"1:1"}, HasText: true}, true},
		{"4:4\nx\nend_of_edit", "edit", SWELine{Name: "edit", Args: []string{"4:4"}, Text: "x", HasText: true}, true},
		{"tests/a.py 3", "open", SWELine{Name: "open", Args: []string{"tests/a.py", "3"}}, true},
		{"insert 'two\nlines'", "", SWELine{Name: "insert", Args: []string{"two\nlines"}}, true},
		{"edit 4:4\nx\nend_of_edit\nls", "", SWELine{}, false}, // a second command
		{"edit 4:4\nno end", "", SWELine{}, false},
		{"open foo.py;ls", "", SWELine{}, false},
		{"cat <<EOF\nx\nEOF", "", SWELine{}, false},
		{"", "", SWELine{}, false},
	} {
		got, ok := ReadSWELine(tt.line, tt.name)
		if ok != tt.ok || ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ReadSWELine(%q, %q) = %+v, %v; want %+v, %v", tt.line, tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestSWELineEdit holds the two ways a line-range edit comes, a text
// action and a function call's arguments, to one text, and the edit to
// WindowedFile.set_window_text.
func TestSWELineEdit(t *testing.T) {
	for _, tt := range []struct {
		arg, text string
		action    bool // the action the call makes is one command
	}{
		{"x", "x", true}, {"x\n", "x\n", true}, {"", "", true}, {"a\n\nb", "a\n\nb", true},
		{"x\nend_of_edit", "x", false}, {"x\nend_of_edit\ny", "x", false}, {"end_of_edit", "", false},
	} {
		if got := SWEEditText(tt.arg); got != tt.text {
			t.Errorf("SWEEditText(%q) = %q; want %q", tt.arg, got, tt.text)
		}
		// SWE-agent runs the call as the text action it makes.
		l, ok := ReadSWELine("edit 1:2\n"+tt.arg+"\nend_of_edit", "")
		if ok != tt.action || ok && l.Text != tt.text {
			t.Errorf("the action of %q has the text %q (one command: %v)", tt.arg, l.Text, ok)
		}
	}
	for _, tt := range []struct {
		file     string
		from, to int
		text     string
		want     string
	}{
		{"a\nb\nc\n", 1, 1, "B", "a\nB\nc\n"},
		{"a\nb\nc\n", 1, 1, "", "a\nc\n"},
		{"a\nb\nc\n", 1, 1, "B\n", "a\nB\n\nc\n"},
		{"a\nb\nc", 0, 99, "x", "x"},
		{"a\nb\nc", -1, -1, "x", "a\nb\nx\nc"}, // a[-1:0], as Python slices
	} {
		if got := SWESetLines(tt.file, tt.from, tt.to, tt.text); got != tt.want {
			t.Errorf("SWESetLines(%q, %d, %d, %q) = %q; want %q", tt.file, tt.from, tt.to, tt.text, got, tt.want)
		}
	}
	for _, tt := range []struct {
		word       string
		start, end int
		ok         bool
	}{{"4:4", 4, 4, true}, {" 1_0 : +3", 10, 3, true}, {"4", 0, 0, false}, {"1:2:3", 0, 0, false}, {"x:y", 0, 0, false}} {
		if s, e, ok := SWERange(tt.word); s != tt.start || e != tt.end || ok != tt.ok {
			t.Errorf("SWERange(%q) = %d, %d, %v", tt.word, s, e, ok)
		}
	}
}

func TestPython(t *testing.T) {
	for _, tt := range []struct{ n, i, j, wi, wj int }{
		{10, 3, 4, 3, 4}, {10, -1, 0, 9, 9}, {10, 0, 100, 0, 10}, {10, 12, 13, 10, 10}, {10, 5, 2, 5, 5}, {10, -20, 3, 0, 3},
	} {
		if i, j := PySlice(tt.n, tt.i, tt.j); i != tt.wi || j != tt.wj {
			t.Errorf("PySlice(%d, %d, %d) = %d, %d; want %d, %d", tt.n, tt.i, tt.j, i, j, tt.wi, tt.wj)
		}
	}
	for _, tt := range []struct {
		s  string
		n  int
		ok bool
	}{{"12", 12, true}, {" -3 ", -3, true}, {"+4", 4, true}, {"1_000", 1000, true}, {"1__0", 0, false}, {"_1", 0, false}, {"1.0", 0, false}, {"", 0, false}, {"--1", 0, false}} {
		if n, ok := PyInt(tt.s); n != tt.n || ok != tt.ok {
			t.Errorf("PyInt(%q) = %d, %v; want %d, %v", tt.s, n, ok, tt.n, tt.ok)
		}
	}
}
