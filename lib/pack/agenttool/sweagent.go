package agenttool

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SWE-agent's tools are commands (tools/windowed, tools/search,
// tools/windowed_edit_*, tools/submit at SWE-agent 1.x, and the bash
// commands of config/commands before them). With function calling the
// model names one and gives its arguments; with text actions it writes
// the command line. Converters read a text action into the arguments a
// function call gives; replay puts named arguments back on a command
// line, in signature order.

// SWEArg is one argument of a command's signature.
type SWEArg struct {
	Name     string
	Integer  bool
	Boolean  bool
	Optional bool
}

// SWESignatures are SWE-agent's commands by name, each with its
// arguments in order. edit is the search/replace form
// (windowed_edit_replace); the line-range form of windowed_edit_linting
// takes SWELineEditArgs.
func SWESignatures() map[string][]SWEArg {
	return map[string][]SWEArg{
		"open":        {{Name: "path"}, {Name: "line_number", Integer: true, Optional: true}},
		"goto":        {{Name: "line_number", Integer: true}},
		"create":      {{Name: "filename"}},
		"scroll_up":   nil,
		"scroll_down": nil,
		"submit":      nil,
		"find_file":   {{Name: "file_name"}, {Name: "dir", Optional: true}},
		"search_dir":  {{Name: "search_term"}, {Name: "dir", Optional: true}},
		"search_file": {{Name: "search_term"}, {Name: "file", Optional: true}},
		"edit":        {{Name: "search"}, {Name: "replace"}, {Name: "replace-all", Boolean: true, Optional: true}},
		"insert":      {{Name: "text"}, {Name: "line", Integer: true, Optional: true}},
	}
}

// SWEArgNames are the names of a command's arguments in signature order.
func SWEArgNames(cmd string) []string {
	sig := SWESignatures()[cmd]
	names := make([]string, len(sig))
	for i, a := range sig {
		names[i] = a.Name
	}
	return names
}

// SWELineEditArgs are the arguments of the line-range edit, "edit
// START:END" followed by the replacement text up to end_of_edit: the
// first line, the last, and the text.
func SWELineEditArgs() (start, end, text string) {
	return "start_line", "end_line", "replacement_text"
}

// SWEWindowCommands are the commands whose output is the file viewer's
// window.
func SWEWindowCommands() map[string]bool {
	return map[string]bool{"open": true, "goto": true, "scroll_up": true, "scroll_down": true, "create": true}
}

// The file viewer's window in SWE-agent's shipped configurations: the
// lines it shows, and the lines a scroll keeps of the window before.
const (
	SWEWindow  = 100
	SWEOverlap = 2
)

// ShellWords splits a command line into words as a POSIX shell does,
// with quotes and backslashes but no expansion: blanks separate words,
// single quotes keep everything, double quotes keep everything but \",
// \\, \$, \` and a backslash-newline, and a backslash outside quotes keeps
// the next character (a last one is itself). A line that needs more of
// the shell than words is refused, since only a shell can run it: ;, &, |,
// redirections, $, backquotes, parentheses and braces, a comment, a
// newline outside quotes (a second command), a pattern the shell would
// expand against the files there (an unquoted *, ? or [) and an unquoted
// ~ beginning a word. So "open foo.py;ls" is two commands, never the path
// "foo.py;ls".
func ShellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			return nil, errors.New("a newline outside quotes starts another command")
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("an unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
					if s[i+1] != '\n' {
						w.WriteByte(s[i+1])
					}
					i++
				case s[i] == '$' || s[i] == '`':
					return nil, fmt.Errorf("%q expands inside double quotes", s[i])
				default:
					w.WriteByte(s[i])
				}
			}
			if i >= len(s) {
				return nil, errors.New("an unterminated double quote")
			}
			in = true
		case c == '\\':
			switch {
			case i+1 == len(s):
				w.WriteByte(c)
				in = true
			case s[i+1] != '\n':
				w.WriteByte(s[i+1])
				in = true
			}
			i++
		case strings.IndexByte(";&|<>$`(){}", c) >= 0 || (c == '#' || c == '~') && !in:
			return nil, fmt.Errorf("%q is shell syntax", c)
		case c == '*' || c == '?' || c == '[':
			return nil, fmt.Errorf("%q makes a pattern the shell expands", c)
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// SWEEnd is the line that ends a line-range edit's text.
const SWEEnd = "end_of_edit"

// SWELine is a command line read as the one SWE-agent command it runs.
type SWELine struct {
	Name string   // the command: the first word
	Args []string // the words after it
	// Text is a line-range edit's text, the lines between its first line
	// and end_of_edit; HasText says there is one.
	Text    string
	HasText bool
}

// ReadSWELine reads a command line as SWE-agent's shell runs it: one
// command and its words (ShellWords: a quoted word may hold newlines), or
// the line-range edit
//
//	edit START:END
//	TEXT
//	end_of_edit
//
// whose first line has one word after edit, and whose text runs to the
// first line end_of_edit, with nothing after it. Blanks around the line
// do not count. Anything else (shell syntax, a second command, an edit
// without its end) is not one command: ok is false, and only a shell runs
// it. name, when not "", is the command the line is for, which it may
// leave out ("4:4\nTEXT\nend_of_edit" for edit).
func ReadSWELine(line, name string) (SWELine, bool) {
	named := func(words []string) []string {
		if name != "" && (len(words) == 0 || words[0] != name) {
			return append([]string{name}, words...)
		}
		return words
	}
	line = strings.TrimSpace(line)
	if first, body, multi := strings.Cut(line, "\n"); multi {
		if words, err := ShellWords(first); err == nil {
			if words = named(words); len(words) == 2 && words[0] == "edit" {
				text, after, found := strings.Cut("\n"+body, "\n"+SWEEnd+"\n")
				if !found {
					text, found = strings.CutSuffix("\n"+body, "\n"+SWEEnd)
				}
				if !found || strings.TrimSpace(after) != "" {
					return SWELine{}, false
				}
				return SWELine{Name: "edit", Args: words[1:], Text: strings.TrimPrefix(text, "\n"), HasText: true}, true
			}
		}
	}
	words, err := ShellWords(line)
	if words = named(words); err != nil || len(words) == 0 {
		return SWELine{}, false
	}
	return SWELine{Name: words[0], Args: words[1:]}, true
}

// SWEEditText is the text of a line-range edit given as a function
// call's argument (replacement_text). SWE-agent runs the call as the text
// action "edit START:END\nTEXT\nend_of_edit", so the text is the
// argument up to a line end_of_edit, if it has one: a converted text
// action's text (SWELine.Text) is its own argument.
func SWEEditText(arg string) string {
	text, _, found := strings.Cut("\n"+arg, "\n"+SWEEnd+"\n")
	if !found {
		text, _ = strings.CutSuffix("\n"+arg, "\n"+SWEEnd)
	}
	return strings.TrimPrefix(text, "\n")
}

// SWERange reads a line-range edit's START:END as the tool does (Python's
// int() of each side).
func SWERange(word string) (start, end int, ok bool) {
	a, b, found := strings.Cut(word, ":")
	if !found || strings.Contains(b, ":") {
		return 0, 0, false
	}
	start, ok1 := PyInt(a)
	end, ok2 := PyInt(b)
	return start, end, ok1 && ok2
}

// SWESetLines is the line-range edit done to a file's text (WindowedFile's
// set_window_text): lines from to to (from 0, both included, as Python
// slices them) replaced by the lines of text, none for an empty text.
func SWESetLines(file string, from, to int, text string) string {
	all := strings.Split(file, "\n")
	var repl []string
	if text != "" {
		repl = strings.Split(text, "\n")
	}
	i, j := PySlice(len(all), from, to+1)
	out := append(append(append([]string(nil), all[:i]...), repl...), all[j:]...)
	return strings.Join(out, "\n")
}

// PySlice normalises the bounds of a[i:j] for a list of length n as
// Python does (SWE-agent's tools are Python): negative counts from the
// end, then both clamped, j never before i.
func PySlice(n, i, j int) (int, int) {
	norm := func(x int) int {
		if x < 0 {
			x += n
		}
		return max(0, min(x, n))
	}
	i, j = norm(i), norm(j)
	return i, max(i, j)
}

// PyInt is Python's int() of a string, as SWE-agent's tools read a
// number: surrounding white space, a sign, digits with single underscores
// between them.
func PyInt(s string) (int, bool) {
	s = strings.TrimSpace(s)
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	return n, err == nil
}
