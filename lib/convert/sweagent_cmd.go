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
// SWE-agent's commands (agenttool.ReadSWELine), or does not fit its
// signature, is a shell command: the tool bash with {"command": the
// line}, as function-calling configurations call it.
func sweCommand(action string) (tool string, params map[string]any) {
	line := strings.TrimRight(action, " \t\r\n")
	bash := map[string]any{"command": line}
	l, ok := agenttool.ReadSWELine(line, "")
	if !ok {
		return "bash", bash
	}
	if l.HasText {
		start, end, ok := agenttool.SWERange(l.Args[0])
		if !ok {
			return "bash", bash
		}
		startKey, endKey, textKey := agenttool.SWELineEditArgs()
		return "edit", map[string]any{startKey: start, endKey: end, textKey: l.Text}
	}
	sig, known := agenttool.SWESignatures()[l.Name]
	if !known || len(l.Args) > len(sig) {
		return "bash", bash
	}
	params = map[string]any{}
	for i, a := range sig {
		if i >= len(l.Args) {
			if !a.Optional {
				return "bash", bash
			}
			continue
		}
		v := any(l.Args[i])
		switch {
		case a.Integer:
			n, ok := agenttool.PyInt(l.Args[i])
			if !ok {
				return "bash", bash
			}
			v = n
		case a.Boolean:
			b, err := strconv.ParseBool(l.Args[i])
			if err != nil {
				return "bash", bash
			}
			v = b
		}
		params[a.Name] = v
	}
	return l.Name, params
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
