// Package agenttool is what ctx knows about the tools agents call: the
// names common frameworks give the file and shell tools, the parameter
// names they spell a path or a content with, the sentences a write or an
// edit answers with, and SWE-agent's commands and window. Converters read
// transcripts with it and replay runs the same calls with it, so a
// converted step and its replay agree by construction.
//
// It is a leaf: it imports nothing of this module, touches no disk and
// runs nothing.
package agenttool

import (
	"fmt"
	"iter"
	"path"
	"strconv"
	"strings"
)

// Kind is what a built-in tool does; several framework names share one
// kind.
type Kind int

// The kinds of built-in tool. docs/REPLAY.md says what each does.
const (
	Read      Kind = iota + 1 // a file's bytes, or a range of its lines
	View                      // Read, or List for a directory
	List                      // a directory's entries
	Glob                      // the files matching a pattern
	Write                     // create or overwrite (or append to) a file
	Edit                      // replace a unique string in a file
	MultiEdit                 // several Edit, all or nothing
	Editor                    // a text-editor tool: the command parameter picks the operation
	Shell                     // /bin/sh -c COMMAND
)

// All yields the tool names common agent frameworks use, each with the
// kind of built-in that runs it: the one table of them. docs/REPLAY.md has
// the same table. (An array on the stack rather than a map: converters
// look up a name per step, and building a map each time costs more than
// reading it.)
func All() iter.Seq2[string, Kind] {
	return func(yield func(string, Kind) bool) {
		table := [...]struct {
			name string
			kind Kind
		}{
			{"read_file", Read}, {"Read", Read}, {"read", Read}, {"view_file", Read}, {"cat", Read},
			{"view", View},
			{"list_directory", List}, {"list_dir", List}, {"list_files", List}, {"ls", List}, {"LS", List},
			{"glob", Glob}, {"Glob", Glob}, {"glob_file_search", Glob},
			{"write_file", Write}, {"Write", Write}, {"write", Write}, {"create_file", Write}, {"write_to_file", Write},
			{"edit_file", Edit}, {"Edit", Edit}, {"edit", Edit}, {"str_replace", Edit},
			{"MultiEdit", MultiEdit}, {"multi_edit", MultiEdit},
			{"str_replace_editor", Editor}, {"str_replace_based_edit_tool", Editor}, {"text_editor", Editor},
			{"bash", Shell}, {"Bash", Shell}, {"shell", Shell}, {"sh", Shell},
			{"execute_command", Shell}, {"execute_bash", Shell}, {"run_command", Shell},
			{"run_shell_command", Shell}, {"run_terminal_cmd", Shell}, {"terminal", Shell},
			{"local_shell", Shell},
		}
		for _, e := range table {
			if !yield(e.name, e.kind) {
				return
			}
		}
	}
}

// Lookup is the kind of built-in that runs the tool named name.
func Lookup(name string) (Kind, bool) {
	for n, k := range All() {
		if n == name {
			return k, true
		}
	}
	return 0, false
}

// Builtins is the table of All as a map, for a caller that looks up many
// names with one.
func Builtins() map[string]Kind {
	m := map[string]Kind{}
	for n, k := range All() {
		m[n] = k
	}
	return m
}

// otherWriter is the kind of a name, in lower case, that transcripts give
// a whole-file writer or a text editor and replay has no built-in of: a
// converter still knows which file such a call wrote.
func otherWriter(lower string) Kind {
	switch lower {
	case "writefile", "file_write", "createfile":
		return Write
	case "file_editor":
		return Editor
	}
	return 0
}

// WorkspaceOnly reports whether a tool is one of the built-ins whose
// result depends on the workspace only (every one but the shell): the
// calls a trace may call deterministic. Any other tool (a clock, a web
// search, a shell) may answer otherwise when run again.
func WorkspaceOnly(tool string) bool {
	k, ok := Lookup(tool)
	return ok && k != Shell
}

// The parameter names the built-ins accept, in the spellings of the
// common frameworks. A call gives at most one of each list.

// FilePathKeys name the file a file tool works on.
func FilePathKeys() []string {
	return []string{"path", "file_path", "filePath", "filepath", "filename", "file", "target_file", "absolute_path"}
}

// DirPathKeys name the directory a list or glob tool works in.
func DirPathKeys() []string {
	return []string{"path", "dir_path", "directory", "dir", "relative_workspace_path", "target_directory"}
}

// ContentKeys name the text a writer writes.
func ContentKeys() []string { return []string{"content", "text", "file_text", "contents"} }

// EditorCreateKeys name the text an editor's create command writes.
func EditorCreateKeys() []string { return []string{"file_text", "content"} }

// OldKeys name the string an edit replaces.
func OldKeys() []string { return []string{"old_string", "old_str", "old_text", "oldText"} }

// NewKeys name its replacement.
func NewKeys() []string { return []string{"new_string", "new_str", "new_text", "newText"} }

// InsertKeys name the text an editor's insert command inserts.
func InsertKeys() []string { return []string{"new_str", "insert_text", "text"} }

// PatternKeys name a glob tool's pattern.
func PatternKeys() []string { return []string{"pattern", "glob_pattern", "glob"} }

// CommandKeys name a shell tool's command line.
func CommandKeys() []string { return []string{"command", "cmd", "script"} }

// Param is the string value of the one parameter of keys a call gives.
// None, two at once (replay refuses the call as ambiguous) or a value
// that is not a string is not ok.
func Param(params map[string]any, keys []string) (key, value string, ok bool) {
	for _, k := range keys {
		v, has := params[k]
		if !has || v == nil {
			continue
		}
		s, isString := v.(string)
		if key != "" || !isString {
			return "", "", false
		}
		key, value = k, s
	}
	return key, value, key != ""
}

// Wrote is what the built-in writer says of a file given as given (the
// path as the call names it) when it wrote n bytes; appended when the
// call added them to the end.
func Wrote(given string, n int, appended bool) string {
	verb := "written"
	if appended {
		verb = "appended"
	}
	return fmt.Sprintf("File %s: %s (%d bytes)", verb, given, n)
}

// Edited is what the built-in editors say of a file given as given.
func Edited(given string) string { return "File edited: " + given }

// Said is what the built-in of tool says when a call with params
// succeeds, for a file the call names as a path of the workspace: the
// sentence of Wrote or Edited, with the path as given. Calls whose result
// is not one of these sentences (a read, an editor's view, a shell), or
// whose parameters replay would refuse, have none.
func Said(tool string, params map[string]any) (string, bool) {
	k, _ := Lookup(tool)
	contentKeys := ContentKeys()
	if k == Editor {
		switch cmd, _ := params["command"].(string); cmd {
		case "create":
			k, contentKeys = Write, EditorCreateKeys()
		case "str_replace", "insert":
			k = Edit
		default:
			return "", false
		}
	}
	if k != Write && k != Edit && k != MultiEdit {
		return "", false
	}
	_, given, ok := Param(params, FilePathKeys())
	if !ok || given == "" {
		return "", false
	}
	if k != Write {
		return Edited(given), true
	}
	_, body, ok := Param(params, contentKeys)
	if !ok {
		return "", false
	}
	appended, ok := appendParam(params)
	if !ok {
		return "", false
	}
	return Wrote(given, len(body), appended), true
}

// appendParam reads a writer's append parameter: a boolean, or a string
// strconv.ParseBool reads, as replay takes it; absent is false.
func appendParam(params map[string]any) (appended, ok bool) {
	switch a := params["append"].(type) {
	case nil:
		return false, true
	case bool:
		return a, true
	case string:
		b, err := strconv.ParseBool(a)
		return b, err == nil
	}
	return false, false
}

// WrittenFile recognises a call that writes a whole file and says which
// and with what: the writers, and the create command of the editors (and
// of edit tools given one), by any of their names in any case. appended
// says the text was added to the end of the file (Written says what the
// file then holds).
func WrittenFile(tool string, params map[string]any) (p, text string, appended, ok bool) {
	k, known := Lookup(tool)
	if !known {
		lower := strings.ToLower(tool)
		if k, known = Lookup(lower); !known {
			k = otherWriter(lower)
		}
	}
	contentKeys := ContentKeys()
	switch k {
	case Write:
		if appended, ok = appendParam(params); !ok {
			return "", "", false, false
		}
	case Editor, Edit:
		if c, _ := params["command"].(string); c != "create" {
			return "", "", false, false
		}
		contentKeys = EditorCreateKeys()
	default:
		return "", "", false, false
	}
	_, p, ok = Param(params, FilePathKeys())
	if !ok || p == "" || strings.HasSuffix(p, "/") || path.Base(p) == "." {
		return "", "", false, false
	}
	if _, text, ok = Param(params, contentKeys); !ok {
		return "", "", false, false
	}
	return p, text, appended, true
}
