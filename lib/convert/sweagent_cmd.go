package convert

import (
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// SWE-agent's tools are commands. With function calling the model names
// one and gives its arguments; with text actions it writes the command
// line, which SWE-agent runs in the task's shell. sweCommand reads such a
// line back into the tool and the arguments a function-calling run of
// the same configuration gives, so the two kinds of run line up step by
// step. The commands and their arguments are agenttool.SWESignatures.

// sweCommand reads a text action. A command line that is not one of
// SWE-agent's commands, or does not fit its signature, is a shell command:
// the tool bash with {"command": the line}, as function-calling
// configurations call it.
func sweCommand(action string) (tool string, params map[string]any) {
	line := strings.TrimRight(action, " \t\r\n")
	bash := map[string]any{"command": line}
	first, body, multi := strings.Cut(line, "\n")
	words, ok := shellWords(first)
	if !ok || len(words) == 0 {
		return "bash", bash
	}
	name := words[0]
	if name == "edit" && len(words) == 2 && multi {
		if p, ok := sweLineEdit(words[1], body); ok {
			return "edit", p
		}
		return "bash", bash
	}
	sig, known := agenttool.SWESignatures()[name]
	if !known || multi {
		return "bash", bash
	}
	params = map[string]any{}
	args := words[1:]
	if len(args) > len(sig) {
		return "bash", bash
	}
	for i, a := range sig {
		if i >= len(args) {
			if !a.Optional {
				return "bash", bash
			}
			continue
		}
		v := any(args[i])
		switch {
		case a.Integer:
			n, err := strconv.Atoi(args[i])
			if err != nil {
				return "bash", bash
			}
			v = n
		case a.Boolean:
			b, err := strconv.ParseBool(args[i])
			if err != nil {
				return "bash", bash
			}
			v = b
		}
		params[a.Name] = v
	}
	return name, params
}

// sweLineEdit reads the line-range edit of windowed_edit_linting:
//
//	edit START:END
//	REPLACEMENT
//	end_of_edit
func sweLineEdit(rng, body string) (map[string]any, bool) {
	a, b, ok := strings.Cut(rng, ":")
	if !ok {
		return nil, false
	}
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	var text string
	switch {
	case body == "end_of_edit":
	case strings.HasSuffix(body, "\nend_of_edit"):
		text = strings.TrimSuffix(body, "\nend_of_edit")
	default:
		return nil, false
	}
	startKey, endKey, textKey := agenttool.SWELineEditArgs()
	return map[string]any{startKey: start, endKey: end, textKey: text}, true
}

// shellWords splits a command line into words as a POSIX shell does for
// plain words and quotes: blanks separate words, single quotes keep
// everything, double quotes keep everything but \", \\, \$ and \`, and a
// backslash outside quotes keeps the next character. Anything it cannot
// read so (an unclosed quote) is not ok.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, false
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// sweNormalize gives a window command's step its normalised output: the
// lines the window shows, as the file has them, with where they are in
// metadata.window.
func sweNormalize(s *stepRec) {
	if s.Output == nil || !agenttool.SWEWindowCommands()[s.Tool] {
		return
	}
	body, first, last, total, ok := sweWindow(*s.Output)
	if !ok {
		return
	}
	s.Normalized = &body
	s.Meta = setIf(s.Meta, "window", map[string]any{"first": first, "last": last, "total": total})
}
