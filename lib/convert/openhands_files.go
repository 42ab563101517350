package convert

import (
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// An OpenHands run changes files with its editor (str_replace_editor:
// create, str_replace, insert, undo_edit) and shows them with it (view).
// What an edit observation carries depends on the version: newer editors
// give the whole file before and after (extras old_content and
// new_content), older ones only the edit's strings, and the text shown is
// a snippet. An output must be the whole file, so followFiles follows each
// file through the run: its content is known from a create, a view of the
// whole file, or an observation that gives the whole file, and each later
// edit is applied to it. A file changed while its content was unknown is
// partial: it is no output (no content claims to be the file), and the run
// metadata lists it under partial_outputs. Changes made by shell commands
// are not followed.

type ohFile struct {
	path   string
	known  *string // the whole file as the run left it, when shown
	before *string // the file before the run changed it, when shown
	edited bool
	last   string // event id of the last action that changed it
	edits  []any  // the ids of the actions that changed it, as written
}

type ohFiles struct {
	order []string
	byP   map[string]*ohFile
}

func (f *ohFiles) get(p string) *ohFile {
	if x := f.byP[p]; x != nil {
		return x
	}
	x := &ohFile{path: p}
	f.byP[p] = x
	return x
}

// ohEdit is what an editor action asked for.
type ohEdit struct {
	command            string
	path               string
	fileText           *string
	oldStr, newStr     *string
	insertLine         int
	hasLine, viewRange bool
}

func strPtr(m map[string]any, k string) *string {
	if s, ok := m[k].(string); ok {
		return &s
	}
	return nil
}

// editOf reads an editor action: the arguments the model gave, else the
// action's args.
func editOf(e node, m map[string]any) (ohEdit, bool) {
	args, _ := m["args"].(map[string]any)
	callID := e.key("tool_call_metadata").key("tool_call_id").string()
	params, _ := ohParams(e, callID)
	if params == nil {
		params = args
	}
	var ed ohEdit
	ed.command, _ = params["command"].(string)
	ed.path, _ = params["path"].(string)
	if ed.command == "" || ed.path == "" {
		return ed, false
	}
	ed.fileText = strPtr(params, "file_text")
	ed.oldStr = strPtr(params, "old_str")
	ed.newStr = strPtr(params, "new_str")
	if n, ok, _ := intParam(params, "insert_line"); ok {
		ed.insertLine, ed.hasLine = int(n), true
	}
	if vr, ok := params["view_range"].([]any); ok && len(vr) > 0 {
		ed.viewRange = true
	}
	return ed, true
}

// followFiles walks the events in order, pairing each editor action with
// the observation that answers it.
func followFiles(evs node, list []any) *ohFiles {
	f := &ohFiles{byP: map[string]*ohFile{}}
	actions := map[string]node{}
	for i := range list {
		e := evs.idx(i)
		m, ok := e.obj()
		if !ok {
			continue
		}
		if _, ok := m["action"].(string); ok {
			actions[eventID(m["id"])] = e
			continue
		}
		cause := eventID(m["cause"])
		a, ok := actions[cause]
		if !ok || cause == "" {
			continue
		}
		am, _ := a.obj()
		ed, ok := editOf(a, am)
		if !ok {
			continue
		}
		obs, _ := m["observation"].(string)
		text, _ := m["content"].(string)
		extras, _ := m["extras"].(map[string]any)
		if obs == "error" || obs == "user_rejected" || strings.HasPrefix(text, "ERROR:") {
			continue // the edit was not made
		}
		f.observe(ed, cause, am["id"], text, extras)
	}
	return f
}

func (f *ohFiles) observe(ed ohEdit, id string, rawID any, text string, extras map[string]any) {
	x := f.get(ed.path)
	changed := func(content *string) {
		if !x.edited {
			f.order = append(f.order, ed.path)
		}
		x.edited, x.last = true, id
		x.edits = append(x.edits, rawID)
		x.known = content
	}
	oldC, newC := strPtr(extras, "old_content"), strPtr(extras, "new_content")
	switch ed.command {
	case "view":
		if ed.viewRange || x.known != nil {
			return
		}
		if s, ok := wholeView(text, ed.path); ok {
			x.known = &s
			if !x.edited {
				x.before = &s
			}
		}
	case "create":
		c := ed.fileText
		if c == nil {
			c = newC
		}
		changed(c)
	case "str_replace", "insert":
		if whole := wholeContents(ed, oldC, newC); whole {
			if !x.edited && x.known == nil {
				x.before = oldC
			}
			changed(newC)
			return
		}
		if x.known == nil {
			changed(nil)
			return
		}
		next, ok := applyEdit(*x.known, ed)
		if !ok {
			changed(nil)
			return
		}
		changed(&next)
	default:
		// undo_edit and anything else: what the file became is not shown
		// unless the observation gives it whole.
		if newC != nil && oldC != nil && x.known != nil && *oldC == *x.known {
			changed(newC)
			return
		}
		changed(nil)
	}
}

// wholeContents reports whether an edit observation gives the whole file
// before and after: the edit applied to old_content gives new_content,
// and old_content is more than the string the edit replaced.
func wholeContents(ed ohEdit, oldC, newC *string) bool {
	if oldC == nil || newC == nil {
		return false
	}
	if ed.command == "str_replace" && ed.oldStr != nil && *oldC == *ed.oldStr {
		return false
	}
	if ed.command == "insert" && ed.newStr != nil && *newC == *ed.newStr {
		return false
	}
	got, ok := applyEdit(*oldC, ed)
	return ok && got == *newC
}

// applyEdit does what the editor does (agenttool): str_replace replaces
// the one occurrence of old_str (none or several is a failure), insert
// puts new_str's lines after line insert_line.
func applyEdit(s string, ed ohEdit) (string, bool) {
	var out string
	var err error
	switch {
	case ed.command == "str_replace" && ed.oldStr != nil:
		nw := ""
		if ed.newStr != nil {
			nw = *ed.newStr
		}
		out, err = agenttool.Replacement{Old: *ed.oldStr, New: nw}.Apply(s)
	case ed.command == "insert" && ed.newStr != nil && ed.hasLine:
		out, err = agenttool.Insert(s, ed.insertLine, *ed.newStr)
	default:
		return "", false
	}
	return out, err == nil
}

// wholeView reads the editor's view of a whole file, "Here's the result
// of running `cat -n` on PATH:" and each line of the file numbered
// ("%6d\t%s", the file split at every newline), back into the file. A view
// the editor clipped (<response clipped>) is not the whole file.
func wholeView(text, p string) (string, bool) {
	head := "Here's the result of running `cat -n` on " + p + ":\n"
	body, ok := strings.CutPrefix(text, head)
	if !ok || strings.Contains(body, "<response clipped>") {
		return "", false
	}
	body, ok = strings.CutSuffix(body, "\n")
	if !ok {
		return "", false
	}
	lines := strings.Split(body, "\n")
	out := make([]string, len(lines))
	for i, l := range lines {
		num, line, found := strings.Cut(l, "\t")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !found || err != nil || n != i+1 {
			return "", false
		}
		out[i] = line
	}
	return strings.Join(out, "\n"), true
}

// partial lists the files the run changed without the transcript showing
// them whole, for the run's metadata.
func (f *ohFiles) partial(wd workdir) []any {
	var out []any
	for _, p := range f.order {
		x := f.byP[p]
		if x.known != nil {
			continue
		}
		name, ok := wd.name(p)
		if !ok {
			continue
		}
		out = append(out, map[string]any{
			"name":             name,
			"edited_by_events": x.edits,
			"why":              "edited where the transcript shows only the lines the edit changed, never the whole file",
		})
	}
	return out
}

// record writes what followFiles learnt: each file as it was before the
// run changed it (an input) and as the run left it (an output), when
// known whole.
func (f *ohFiles) record(w *writer, stepOf map[string]int) {
	for _, p := range f.order {
		x := f.byP[p]
		if x.before != nil && !w.known(p) {
			_ = w.input(p, *x.before, nil)
		}
	}
	for _, p := range f.order {
		x := f.byP[p]
		if x.known == nil {
			continue // partial: listed in the run's metadata
		}
		w.wrote(p, *x.known, stepOf[x.last])
	}
}
