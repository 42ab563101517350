package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// SWE-agent's commands, run as SWE-agent's tool bundles run them
// (tools/windowed, tools/windowed_edit_replace, tools/windowed_edit_linting,
// tools/search at SWE-agent 1.x), so that a replayed command prints what
// the tool printed. They share the state SWE-agent keeps in its registry
// between calls: the open file and the first line of the window shown.
//
// Where SWE-agent printed a path it had resolved (the open file after
// the first open, the results of find_file and the search commands), it
// printed the absolute path of the task's checkout; ctx keeps no machine's
// paths, so these are written as converters write such paths inside text:
// "." for the working directory, "./a/b.py" below it.

// sweCommands are the SWE-agent commands replay runs: all of
// agenttool.SWESignatures but those it knows it cannot run (sweMissing).
func sweCommands() map[string]bool {
	run := map[string]bool{}
	missing := sweMissing()
	for name := range agenttool.SWESignatures() {
		if missing[name] == "" {
			run[name] = true
		}
	}
	return run
}

// sweMissing are SWE-agent commands replay knows it cannot run, with why.
func sweMissing() map[string]string {
	return map[string]string{
		"submit": "SWE-agent's submit writes the git diff of the task's repository against its base commit, which a pack does not hold",
	}
}

// sweState is SWE-agent's registry for one replay: CURRENT_FILE and
// FIRST_LINE.
type sweState struct {
	file  string // the open file, relative to the workspace; "" for none
	first int    // the first line of the window, from 0
}

// sweExec runs one SWE-agent command.
type sweExec struct {
	cmd string
	st  *sweState
	ver string
}

func (e sweExec) version(context.Context) (string, bool) { return e.ver, e.ver != "" }

// sweInvocation is a command's arguments and, for a line-range edit, its
// text up to end_of_edit.
type sweInvocation struct {
	args    []string
	text    string
	hasText bool
}

func (e sweExec) run(c *call) error {
	inv, err := sweParse(e.cmd, c.p)
	if err != nil {
		return err
	}
	out, err := e.do(c, inv)
	if err != nil {
		return err
	}
	_, err = io.WriteString(c.out, out)
	return err
}

// sweParse reads a step's parameters: a command line (text actions:
// {"command": "open a.py 12"}, with or without the command's name; a
// line-range edit with its text on the following lines up to
// end_of_edit), read as agenttool.ReadSWELine reads it, or the named
// arguments of a function call.
func sweParse(cmd string, p params) (sweInvocation, error) {
	var inv sweInvocation
	for _, k := range []string{"command", "cmd", "args", "arguments"} {
		raw, ok := p[k]
		var line string
		if !ok || json.Unmarshal(raw, &line) != nil {
			continue
		}
		l, ok := agenttool.ReadSWELine(line, cmd)
		if !ok || l.Name != cmd {
			_, err := agenttool.ShellWords(line)
			if err == nil {
				err = errors.New("not one command with its words")
			}
			return inv, fmt.Errorf("parameter %s: %v; only a shell step runs that", k, err)
		}
		inv.args, inv.text, inv.hasText = l.Args, l.Text, l.HasText
		return inv, nil
	}
	names := agenttool.SWEArgNames(cmd)
	if cmd == "edit" {
		start, end, replacement := agenttool.SWELineEditArgs()
		switch {
		case p["search"] != nil:
		case p[start] != nil:
			a, err := pyArgs(p, []string{start, end})
			if err != nil || len(a) != 2 {
				return inv, fmt.Errorf("parameters: a line-range edit needs %s and %s", start, end)
			}
			text, _ := pyArgs(p, []string{replacement})
			inv.args, inv.hasText = []string{a[0] + ":" + a[1]}, true
			if len(text) == 1 {
				inv.text = agenttool.SWEEditText(text[0])
			}
			return inv, nil
		default:
			return inv, errors.New("parameters: neither a search/replace edit (search, replace) nor a line-range edit (start_line, end_line)")
		}
	}
	args, err := pyArgs(p, names)
	inv.args = args
	return inv, err
}

// sweCommandName is the SWE-agent command a command line runs, when it is
// one command with its arguments (or a line-range edit with its text).
func sweCommandName(line string) string {
	if l, ok := agenttool.ReadSWELine(line, ""); ok {
		return l.Name
	}
	return ""
}

// pyArgs renders named arguments as SWE-agent puts them on the command
// line: in signature order, each as Python's str() of the value (True,
// False, numbers as written); an absent or null one ends the list.
func pyArgs(p params, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		raw, ok := p[n]
		if !ok || string(raw) == "null" {
			break
		}
		var s string
		var num json.Number
		var b bool
		switch {
		case jsonUnmarshalNumbers(raw, &s) == nil:
		case jsonUnmarshalNumbers(raw, &num) == nil:
			s = num.String()
		case json.Unmarshal(raw, &b) == nil:
			s = map[bool]string{true: "True", false: "False"}[b]
		default:
			return nil, fmt.Errorf("parameter %s: must be a string, number or boolean", n)
		}
		out = append(out, s)
	}
	return out, nil
}

// sweFile is an open file: WindowedFile of tools/windowed/lib.
type sweFile struct {
	c    *call
	st   *sweState
	rel  string // in the workspace
	show string // as the tool names it
	text string
}

// sweShown is how SWE-agent names a path it resolved (see above).
func sweShown(rel string) string {
	if rel == "." {
		return "."
	}
	return "./" + rel
}

// errNotOpen is WindowedFile() with no file open; each tool says it in its
// own words.
var errNotOpen = errors.New("no file open")

// toolSaid is what a tool printed when it stopped early: its output, not
// a failure of the step.
type toolSaid string

func (t toolSaid) Error() string { return string(t) }

// openFile is WindowedFile(path): given "" the registry's file. It
// registers the file and fits the registry's first line to it.
func (e sweExec) openFile(c *call, given string) (*sweFile, error) {
	show, p := pyPath(given), given
	if given == "" {
		if e.st.file == "" {
			return nil, errNotOpen
		}
		p, show = e.st.file, sweShown(e.st.file)
	}
	rel, err := c.ws.resolve(p)
	if err != nil {
		return nil, err
	}
	if err := c.ws.needs(rel, true); err != nil {
		return nil, err
	}
	fi, err := c.ws.root.Stat(rel)
	switch {
	case err == nil && fi.IsDir():
		return nil, toolSaid(fmt.Sprintf("Error: %s is a directory. You can only open files. Use cd or ls to navigate directories.\n", show))
	case errors.Is(err, fs.ErrNotExist) && !c.ws.escapes(rel):
		return nil, toolSaid(fmt.Sprintf("Error: File %s not found\n", show))
	case err != nil:
		return nil, c.ws.opError(rel, err)
	}
	f := &sweFile{c: c, st: e.st, rel: rel, show: show}
	if err := f.load(); err != nil {
		return nil, err
	}
	e.st.file = rel
	f.setFirst(float64(e.st.first))
	return f, nil
}

func (f *sweFile) load() error {
	b, err := readWhole(f.c.ws, f.rel)
	if err != nil {
		return err
	}
	f.text, err = pyUniversal([]byte(b))
	if err != nil {
		return fmt.Errorf("%s %v", f.rel, err)
	}
	return nil
}

// write is the text setter: the file is written as Python writes text.
func (f *sweFile) write(text string) error {
	f.text = text
	return writeFile(f.c.ws, f.rel, []byte(text), false)
}

func (f *sweFile) lines() int { return pyLineCount(f.text) }

// setFirst is the first_line setter: truncated, then held to the file.
func (f *sweFile) setFirst(v float64) {
	f.st.first = max(0, min(int(v), f.lines()-agenttool.SWEWindow))
}

// goTo is goto(line, mode="top"): the line a sixth of the window down.
func (f *sweFile) goTo(line int) { f.setFirst(float64(line) - agenttool.SWEWindow*(1.0/6)) }

// lineRange is the first and last line shown, from 0.
func (f *sweFile) lineRange() (int, int) {
	return f.st.first, min(f.st.first+agenttool.SWEWindow-1, f.lines()-1)
}

// windowText is get_window_text.
func (f *sweFile) windowText(numbers, status, around bool) string {
	start, end := f.lineRange()
	all := strings.Split(f.text, "\n")
	i, j := agenttool.PySlice(len(all), start, end+1)
	var out []string
	if status {
		out = append(out, fmt.Sprintf("[File: %s (%d lines total)]", f.show, f.lines()))
	}
	if around && start > 0 {
		out = append(out, fmt.Sprintf("(%d more lines above)", start))
	}
	for k, l := range all[i:j] {
		if numbers {
			l = fmt.Sprintf("%d:%s", k+start+1, l)
		}
		out = append(out, l)
	}
	if around && end < f.lines()-1 {
		out = append(out, fmt.Sprintf("(%d more lines below)", f.lines()-end-1))
	}
	return strings.Join(out, "\n")
}

// window is print_window().
func (f *sweFile) window() string { return f.windowText(true, true, true) + "\n" }

// shown is what a window command (open, goto, scroll_up, scroll_down,
// create) gives after what it printed before the window (before): the
// window as SWE-agent prints it, or, where the step is compared with a
// normalised output (c.plain), the plain result converters record for
// these commands: the lines shown, each with its newline, and nothing
// else (docs/CONVERT.md).
func (f *sweFile) shown(c *call, before string) string {
	if !c.plain {
		return before + f.window()
	}
	if w := f.windowText(false, false, false); w != "" || f.lines() > 0 {
		return w + "\n"
	}
	return ""
}

// setWindowText replaces the lines from..to (from 0, inclusive) with text
// (agenttool.SWESetLines).
func (f *sweFile) setWindowText(text string, from, to int) error {
	return f.write(agenttool.SWESetLines(f.text, from, to, text))
}

// do runs the command and returns what it printed.
func (e sweExec) do(c *call, inv sweInvocation) (string, error) {
	var out string
	var err error
	switch e.cmd {
	case "open":
		out, err = e.open(c, inv.args)
	case "goto":
		out, err = e.goTo(c, inv.args)
	case "scroll_down", "scroll_up":
		out, err = e.scroll(c)
	case "create":
		out, err = e.create(c, inv.args)
	case "edit":
		out, err = e.edit(c, inv)
	case "insert":
		out, err = e.insert(c, inv.args)
	case "find_file":
		out, err = e.findFile(c, inv.args)
	case "search_dir":
		out, err = e.searchDir(c, inv.args)
	case "search_file":
		out, err = e.searchFile(c, inv.args)
	default:
		return "", fmt.Errorf("%s is not a SWE-agent command replay runs", e.cmd)
	}
	var said toolSaid
	if errors.As(err, &said) {
		return out + string(said), nil
	}
	return out, err
}

func (e sweExec) open(c *call, args []string) (string, error) {
	if len(args) == 0 {
		f, err := e.openFile(c, "")
		if errors.Is(err, errNotOpen) {
			return "Usage: open \"<file>\"\n", nil
		} else if err != nil {
			return "", err
		}
		return f.shown(c, ""), nil
	}
	f, err := e.openFile(c, args[0])
	if err != nil {
		return "", err
	}
	var out string
	line := f.st.first
	if len(args) > 1 {
		n, ok := agenttool.PyInt(args[1])
		switch {
		case !ok:
			return "Usage: open \"<file>\" [<line_number>]\nError: <line_number> must be a number\n", nil
		case n > f.lines():
			out = fmt.Sprintf("Warning: <line_number> (%d) is greater than the number of lines in the file (%d)\nWarning: Setting <line_number> to %d\n", n, f.lines(), f.lines())
			n = f.lines()
		case n < 1:
			out = fmt.Sprintf("Warning: <line_number> (%d) is less than 1\nWarning: Setting <line_number> to 1\n", n)
			n = 1
		}
		line = n
	}
	f.goTo(line - 1)
	return f.shown(c, out), nil
}

const sweNoFile = "No file open. Use the open command first.\n"

func (e sweExec) goTo(c *call, args []string) (string, error) {
	switch {
	case len(args) > 1:
		return "goto allows only one line number at a time.\n", nil
	case len(args) == 0:
		return "Usage: goto <line>\n", nil
	}
	n, ok := agenttool.PyInt(args[0])
	if !ok {
		return "Usage: goto <line>\nError: <line> must be a number\n", nil
	}
	f, err := e.openFile(c, "")
	if errors.Is(err, errNotOpen) {
		return sweNoFile, nil
	} else if err != nil {
		return "", err
	}
	if n > f.lines() {
		return fmt.Sprintf("Error: <line> must be less than or equal to %d\n", f.lines()), nil
	}
	f.goTo(n - 1)
	return f.shown(c, ""), nil
}

func (e sweExec) scroll(c *call) (string, error) {
	f, err := e.openFile(c, "")
	if errors.Is(err, errNotOpen) {
		return sweNoFile, nil
	} else if err != nil {
		return "", err
	}
	if e.cmd == "scroll_down" {
		f.setFirst(float64(f.st.first + agenttool.SWEWindow - agenttool.SWEOverlap))
	} else {
		f.setFirst(float64(f.st.first - agenttool.SWEWindow + agenttool.SWEOverlap))
	}
	return f.shown(c, ""), nil
}

func (e sweExec) create(c *call, args []string) (string, error) {
	if len(args) == 0 {
		return "Usage: create <filename>\n", nil
	}
	rel, err := c.ws.resolve(args[0])
	if err != nil {
		return "", err
	}
	if _, err := c.ws.root.Stat(rel); err == nil {
		return fmt.Sprintf("Warning: File '%s' already exists.\n", pyPath(args[0])), nil
	}
	if err := writeFile(c.ws, rel, nil, false); err != nil {
		return "", err
	}
	f, err := e.openFile(c, args[0])
	if err != nil {
		return "", err
	}
	f.setFirst(0)
	return f.shown(c, ""), nil
}

// The messages of the edit tools (windowed_edit_replace,
// windowed_edit_linting). SWE-agent removes the retry token a failed
// replace prints after them, leaving its newline.
const (
	sweNotFound = "Your edit was not applied (file not modified): Text %s not found in displayed lines (or anywhere in the file).\n" +
		"Please modify your search string. Did you forget to properly handle whitespace/indentation?\n" +
		"You can also call `open` again to re-display the file with the correct context.\n"
	sweNotFoundInWindow = "Your edit was not applied (file not modified): Text %s not found in displayed lines.\n\n" +
		"However, we found the following occurrences of your search string in the file:\n\n%s\n\n" +
		"You can use the `goto` command to navigate to these locations before running the edit command again.\n"
	sweMultiple = "Your edit was not applied (file not modified): Found more than one occurrence of %s in the currently displayed lines.\n" +
		"Please make your search string more specific (for example, by including more lines of context).\n"
	sweSame    = "Your search and replace strings are the same. No changes were made. Please modify your search or replace strings."
	sweChecks  = "Please review the changes and make sure they are correct:\n\n1. The edited file is correctly indented\n2. The edited file does not contain duplicate lines\n3. The edit does not break existing functionality\n\nEdit the file again if necessary."
	sweUpdated = "File updated. Please review the changes and make sure they are correct\n(correct indentation, no duplicate lines, etc). Edit the file again if necessary."
	sweRange   = "Usage: edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit\n"
)

// edit is the search/replace edit, or with a line range and its text the
// line-range edit. Neither runs flake8 as SWE-agent does: an edit it
// refused for a syntax error is applied here, and diverges.
func (e sweExec) edit(c *call, inv sweInvocation) (string, error) {
	if inv.hasText || len(inv.args) == 1 && regexp.MustCompile(`^\s*[-+]?\d+\s*:`).MatchString(inv.args[0]) {
		return e.editRange(c, inv)
	}
	if len(inv.args) < 2 {
		return "", errors.New("edit: needs a search and a replace string (or start:end and the text of a line-range edit)")
	}
	search, replace := inv.args[0], inv.args[1]
	all := len(inv.args) > 2 && inv.args[2] != "" // argparse's bool(): "False" is true
	f, err := e.openFile(c, "")
	if errors.Is(err, errNotOpen) {
		return "No file opened. Either `open` or `create` a file first.\n", nil
	} else if err != nil {
		return "", err
	}
	if search == replace {
		return sweSame + "\n\n", nil
	}
	var first, n int
	if !all {
		win := f.windowText(false, false, false)
		if strings.Count(win, search) > 1 {
			return fmt.Sprintf(sweMultiple, pyRepr(search)) + "\n\n", nil
		}
		at := strings.Index(win, search)
		if at < 0 {
			return f.notFound(search), nil
		}
		start, end := f.lineRange()
		first, n = start+strings.Count(win[:at], "\n"), 1
		if err := f.setWindowText(strings.ReplaceAll(win, search, replace), start, end); err != nil {
			return "", err
		}
	} else {
		n = strings.Count(f.text, search)
		if n == 0 || search == "" {
			return f.notFound(search), nil
		}
		first = strings.Count(f.text[:strings.Index(f.text, search)], "\n") + 1
		if err := f.write(strings.ReplaceAll(f.text, search, replace)); err != nil {
			return "", err
		}
	}
	f.goTo(first)
	if !all {
		return "Text replaced. " + sweChecks + "\n" + f.window(), nil
	}
	return fmt.Sprintf("Replaced %d occurrences. ", n) + sweChecks + "\n" + f.window(), nil
}

// notFound says the search string is not in the window, and where in the
// file it is, if anywhere.
func (f *sweFile) notFound(search string) string {
	var at []string
	for i, off := 0, 0; search != ""; {
		j := strings.Index(f.text[off:], search)
		if j < 0 {
			break
		}
		i += strings.Count(f.text[off:off+j], "\n")
		at = append(at, fmt.Sprintf("- line %d", i+1))
		off += j + len(search)
		i += strings.Count(search, "\n")
	}
	if len(at) > 0 {
		return fmt.Sprintf(sweNotFoundInWindow, pyRepr(search), strings.Join(at, "\n")) + "\n\n"
	}
	return fmt.Sprintf(sweNotFound, pyRepr(search)) + "\n\n"
}

func (e sweExec) editRange(c *call, inv sweInvocation) (string, error) {
	f, err := e.openFile(c, "")
	if errors.Is(err, errNotOpen) {
		return "No file opened. Use the `open` command first.\n", nil
	} else if err != nil {
		return "", err
	}
	if len(inv.args) == 0 {
		return sweRange, nil
	}
	from, to, ok := agenttool.SWERange(inv.args[0])
	if !ok {
		return sweRange, nil
	}
	text := inv.text
	if !inv.hasText && len(inv.args) > 1 {
		// The text as an argument of the command line: the tool drops its
		// last newline.
		text = strings.TrimSuffix(inv.args[1], "\n")
	}
	if err := f.setWindowText(text, from-1, to-1); err != nil {
		return "", err
	}
	f.goTo(from - 1)
	return sweUpdated + "\n" + f.window(), nil
}

// insert is windowed_edit_replace's insert: after line (from 1), or at the
// end of the file.
func (e sweExec) insert(c *call, args []string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("insert: needs the text to insert")
	}
	text, line, hasLine := args[0], 0, len(args) > 1
	if hasLine {
		var ok bool
		if line, ok = agenttool.PyInt(args[1]); !ok {
			return "", fmt.Errorf("insert: line %q is not a number", args[1])
		}
	}
	f, err := e.openFile(c, "")
	if errors.Is(err, errNotOpen) {
		return "No file opened. Use the `create` or `open` command first.\n\n", nil
	} else if err != nil {
		return "", err
	}
	if text == "" {
		return f.window(), nil
	}
	text = strings.TrimSuffix(text, "\n")
	var at int
	var next string
	switch {
	case !hasLine:
		at, next = f.lines(), text
		if f.text != "" {
			next = strings.TrimSuffix(f.text, "\n") + "\n" + text
		}
	case line < 0:
		next = text
		if f.text != "" {
			next = text + "\n" + strings.TrimPrefix(f.text, "\n")
		}
	default:
		all := strings.Split(f.text, "\n")
		i := min(line, len(all))
		next, at = strings.Join(append(append(append([]string(nil), all[:i]...), text), all[i:]...), "\n"), line
	}
	if err := f.write(next); err != nil {
		return "", err
	}
	f.goTo(at)
	return f.window(), nil
}

// dirArg is the directory a search command works in: "./" or args[i],
// which must be a directory (else the tool's message).
func dirArg(c *call, args []string, i int) (string, string, error) {
	if len(args) <= i {
		return ".", "", nil
	}
	rel, err := c.ws.resolve(args[i])
	if err != nil {
		return "", "", err
	}
	if fi, err := c.ws.root.Stat(rel); err != nil || !fi.IsDir() {
		return "", fmt.Sprintf("Directory %s not found\n", args[i]), nil
	}
	return rel, "", c.ws.needs(rel, true)
}

// walkFiles calls fn for each regular file under dir, depth first, each
// directory's entries in byte order (find lists them in the file system's
// order, which no two machines share), never entering a .ctx store.
func walkFiles(c *call, dir string, fn func(rel string) error) error {
	return fs.WalkDir(c.ws.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return c.ws.opError(p, err)
		}
		if strings.EqualFold(d.Name(), ".ctx") && p != dir {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			return fn(p)
		}
		return nil
	})
}

func (e sweExec) findFile(c *call, args []string) (string, error) {
	if len(args) == 0 || len(args) > 2 {
		return "Usage: find_file <file_name> [<dir>]\n", nil
	}
	dir, said, err := dirArg(c, args, 1)
	if err != nil || said != "" {
		return said, err
	}
	pattern := args[0]
	if strings.HasPrefix(pattern, "[!") {
		pattern = "[^" + pattern[2:]
	}
	pattern = strings.ReplaceAll(pattern, "[!", "[^")
	var found []string
	err = walkFiles(c, dir, func(rel string) error {
		if ok, _ := path.Match(pattern, path.Base(rel)); ok {
			found = append(found, sweShown(rel))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(found) == 0 {
		return fmt.Sprintf("No matches found for \"%s\" in %s\n", args[0], sweShown(dir)), nil
	}
	return fmt.Sprintf("Found %d matches for \"%s\" in %s:\n%s\n", len(found), args[0], sweShown(dir), strings.Join(found, "\n")), nil
}

// grepLines returns the numbers (from 1) of the lines of b that re
// matches; binary says b holds a NUL, which grep -I skips.
func grepLines(b []byte, re *regexp.Regexp) (lines []int, binary bool) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, true
	}
	n := 0
	for len(b) > 0 {
		n++
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if re.Match(line) {
			lines = append(lines, n)
		}
	}
	return lines, false
}

func (e sweExec) searchDir(c *call, args []string) (string, error) {
	if len(args) == 0 || len(args) > 2 {
		return "Usage: search_dir <search_term> [<dir>]\n", nil
	}
	dir, said, err := dirArg(c, args, 1)
	if err != nil || said != "" {
		return said, err
	}
	re, err := grepBRE(args[0])
	if err != nil {
		return "", fmt.Errorf("search term %q: %v", args[0], err)
	}
	type hit struct {
		name string
		n    int
	}
	var hits []hit
	total := 0
	err = walkFiles(c, dir, func(rel string) error {
		if strings.Contains("/"+rel, "/.") { // find's ! -path '*/.*'
			return nil
		}
		b, err := readWhole(c.ws, rel)
		if err != nil {
			return err
		}
		if lines, _ := grepLines([]byte(b), re); len(lines) > 0 {
			hits = append(hits, hit{sweShown(rel), len(lines)})
			total += len(lines)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	shown := sweShown(dir)
	switch {
	case len(hits) == 0:
		return fmt.Sprintf("No matches found for \"%s\" in %s\n", args[0], shown), nil
	case len(hits) > 100:
		return fmt.Sprintf("More than %d files matched for \"%s\" in %s. Please narrow your search.\n", len(hits), args[0], shown), nil
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].name < hits[j].name })
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matches for \"%s\" in %s:\n", total, args[0], shown)
	for _, h := range hits {
		name := h.name
		if i := strings.IndexAny(name, " \t"); i >= 0 {
			name = name[:i] // awk prints the first word of the name
		}
		fmt.Fprintf(&b, "%s (%d matches)\n", name, h.n)
	}
	fmt.Fprintf(&b, "End of matches for \"%s\" in %s\n", args[0], shown)
	return b.String(), nil
}

func (e sweExec) searchFile(c *call, args []string) (string, error) {
	const usage = "Usage: search_file <search_term> [<file>]\n"
	if len(args) == 0 || args[0] == "" {
		return usage, nil
	}
	rel := e.st.file
	if len(args) >= 2 {
		r, err := c.ws.resolve(args[1])
		if err != nil {
			return "", err
		}
		if fi, err := c.ws.root.Stat(r); err != nil || !fi.Mode().IsRegular() {
			return usage + fmt.Sprintf("Error: File name %s not found. Please provide a valid file name.\n", args[1]), nil
		}
		rel = r
	} else if rel == "" {
		return sweNoFile, nil
	}
	re, err := grepBRE(args[0])
	if err != nil {
		return "", fmt.Errorf("search term %q: %v", args[0], err)
	}
	b, err := readWhole(c.ws, rel)
	if err != nil {
		return "", err
	}
	lines, binary := grepLines([]byte(b), re)
	if binary {
		return "", fmt.Errorf("%s is a binary file, which search_file does not show", rel)
	}
	shown := sweShown(rel)
	if len(lines) == 0 {
		return fmt.Sprintf("No matches found for \"%s\" in %s\n", args[0], shown), nil
	}
	all := strings.Split(b, "\n")
	var out strings.Builder
	fmt.Fprintf(&out, "Found %d matches for \"%s\" in %s:\n", len(lines), args[0], shown)
	for _, n := range lines {
		fmt.Fprintf(&out, "Line %d:%s\n", n, all[n-1])
	}
	fmt.Fprintf(&out, "End of matches for \"%s\" in %s\n", args[0], shown)
	return out.String(), nil
}
