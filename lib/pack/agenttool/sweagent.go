package agenttool

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
