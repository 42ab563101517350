package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/sandbox"
	"github.com/contextsubstrate/ctx/lib/text"
)

// maxEditSize bounds the file an edit holds in memory.
const maxEditSize = 256 << 20

// call is one execution of a tool: what a built-in or program needs.
type call struct {
	ctx     context.Context
	ws      *Workspace
	p       params
	stdin   []byte // the parameters as a program reads them
	out     io.Writer
	buf     []byte
	timeout time.Duration
	env     []string         // the environment of programs
	sb      *sandbox.Sandbox // confines programs (nil: none)
	// plain asks for the plain result where an executor has two forms (a
	// SWE-agent window): the step is compared with its normalised output.
	plain bool
}

// runBuiltin runs the built-in of kind k.
func runBuiltin(k agenttool.Kind, c *call) error {
	switch k {
	case agenttool.Read:
		return readTool(c, false)
	case agenttool.View:
		return readTool(c, true)
	case agenttool.List:
		return listTool(c)
	case agenttool.Glob:
		return globTool(c)
	case agenttool.Write:
		return writeTool(c, agenttool.ContentKeys())
	case agenttool.Edit:
		if _, raw, _ := c.p.find([]string{"edits"}); raw != nil {
			return multiEditTool(c)
		}
		return editTool(c, false)
	case agenttool.MultiEdit:
		return multiEditTool(c)
	case agenttool.Editor:
		return editorTool(c)
	case agenttool.Shell:
		return shellTool(c)
	}
	return fmt.Errorf("unknown built-in %d", k)
}

// filePath is the workspace path a file tool works on.
func (c *call) filePath() (string, string, error) {
	key, p, err := c.p.need("file path", agenttool.FilePathKeys())
	if err != nil {
		return "", "", err
	}
	rel, err := c.ws.resolve(p)
	if err != nil {
		return "", "", fmt.Errorf("parameter %s: %v", key, err)
	}
	return rel, p, nil
}

// dirPath is the workspace directory a list or glob tool works in; the
// workspace itself when none is given.
func (c *call) dirPath() (string, error) {
	key, p, ok, err := c.p.str(agenttool.DirPathKeys())
	if err != nil || !ok {
		return ".", err
	}
	rel, err := c.ws.resolve(p)
	if err != nil {
		return "", fmt.Errorf("parameter %s: %v", key, err)
	}
	return rel, nil
}

// readTool writes a file's bytes, or the lines a range parameter selects
// (offset/limit, view_range, start_line/end_line; lines count from 1).
// view reads a directory as a listing.
func readTool(c *call, view bool) error {
	rel, _, err := c.filePath()
	if err != nil {
		return err
	}
	if err := c.ws.needs(rel, view); err != nil {
		return err
	}
	if view {
		if fi, err := c.ws.root.Stat(rel); err == nil && fi.IsDir() {
			return listDir(c, rel, false)
		}
	}
	from, to, err := lineRange(c.p)
	if err != nil {
		return err
	}
	f, err := c.ws.openRead(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if from <= 1 && to == 0 {
		_, err = copyBuffer(c.out, f, c.buf)
	} else {
		err = copyLines(c.out, f, from, to)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", rel, text.UnwrapPath(err))
	}
	return nil
}

// lineRange reads the range parameters: the first line (from 1) and the
// last (0 for the end of the file).
func lineRange(p params) (from, to int64, err error) {
	from = 1
	if key, off, ok, err := p.integer([]string{"offset"}); err != nil {
		return 0, 0, err
	} else if ok {
		if off < 0 {
			return 0, 0, fmt.Errorf("parameter %s: %d is negative", key, off)
		}
		from = max(off, 1)
	}
	if key, n, ok, err := p.integer([]string{"limit"}); err != nil {
		return 0, 0, err
	} else if ok {
		if n < 0 {
			return 0, 0, fmt.Errorf("parameter %s: %d is negative", key, n)
		}
		if n > 0 {
			to = from + n - 1
		}
	}
	if key, r, ok, err := p.ints([]string{"view_range"}); err != nil {
		return 0, 0, err
	} else if ok {
		if len(r) != 2 || r[0] < 1 || (r[1] != -1 && r[1] < r[0]) {
			return 0, 0, fmt.Errorf("parameter %s: must be [first, last] lines from 1, last -1 for the end", key)
		}
		from, to = r[0], max(r[1], 0)
	}
	if key, n, ok, err := p.integer([]string{"start_line"}); err != nil {
		return 0, 0, err
	} else if ok {
		if n < 1 {
			return 0, 0, fmt.Errorf("parameter %s: lines count from 1", key)
		}
		from = n
	}
	if key, n, ok, err := p.integer([]string{"end_line"}); err != nil {
		return 0, 0, err
	} else if ok {
		if n < from {
			return 0, 0, fmt.Errorf("parameter %s: %d is before the first line %d", key, n, from)
		}
		to = n
	}
	return from, to, nil
}

// copyLines writes lines from..to (to 0: to the end) of src, each with its
// line ending as in the file. Long lines stream through.
func copyLines(dst io.Writer, src io.Reader, from, to int64) error {
	br := bufio.NewReaderSize(src, 64<<10)
	line := int64(1)
	for {
		chunk, err := br.ReadSlice('\n')
		if line >= from && len(chunk) > 0 {
			if _, werr := dst.Write(chunk); werr != nil {
				return werr
			}
		}
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			line++
			if to > 0 && line > to {
				return nil
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}

// listTool writes a directory's entries, one per line, sorted by name,
// directories with a trailing slash; recursive lists every path below it,
// depth first. A .ctx store is never listed.
func listTool(c *call) error {
	rel, err := c.dirPath()
	if err != nil {
		return err
	}
	recursive, err := c.p.boolean([]string{"recursive"})
	if err != nil {
		return err
	}
	if err := c.ws.needs(rel, true); err != nil {
		return err
	}
	return listDir(c, rel, recursive)
}

func listDir(c *call, rel string, recursive bool) error {
	fsys := c.ws.root.FS()
	if !recursive {
		ents, err := fs.ReadDir(fsys, rel)
		if err != nil {
			return c.ws.opError(rel, err)
		}
		bw := bufio.NewWriter(c.out)
		for _, e := range ents {
			if strings.EqualFold(e.Name(), ".ctx") {
				continue
			}
			bw.WriteString(e.Name())
			if e.IsDir() {
				bw.WriteByte('/')
			}
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
	bw := bufio.NewWriter(c.out)
	err := fs.WalkDir(fsys, rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return c.ws.opError(p, err)
		}
		if p == rel {
			if !d.IsDir() {
				return fmt.Errorf("%s is not a directory", rel)
			}
			return nil
		}
		if strings.EqualFold(d.Name(), ".ctx") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		bw.WriteString(relTo(rel, p))
		if d.IsDir() {
			bw.WriteByte('/')
		}
		bw.WriteByte('\n')
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// relTo returns p relative to dir; both are clean fs paths, p below dir.
func relTo(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// globTool writes the workspace paths of the files (not directories)
// matching a pattern, in the order of a depth-first walk with each
// directory's entries sorted by name.
func globTool(c *call) error {
	key, pattern, err := c.p.need("pattern", agenttool.PatternKeys())
	if err != nil {
		return err
	}
	base, err := c.dirPath()
	if err != nil {
		return err
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return fmt.Errorf("parameter %s: %v", key, err)
	}
	start := base
	if pre := g.prefix(); pre != "" {
		start = path.Join(base, pre)
	}
	if err := c.ws.needs(start, true); err != nil {
		return err
	}
	fsys := c.ws.root.FS()
	if _, err := fs.Stat(fsys, base); err != nil {
		return c.ws.opError(base, err)
	}
	if _, err := fs.Stat(fsys, start); err != nil {
		return nil // the pattern's fixed directories do not exist: no match
	}
	bw := bufio.NewWriter(c.out)
	err = fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return c.ws.opError(p, err)
		}
		if strings.EqualFold(d.Name(), ".ctx") && p != "." {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !g.match(relTo(base, p)) {
			return nil
		}
		bw.WriteString(p)
		bw.WriteByte('\n')
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// writeTool creates or overwrites a file (append: adds to it) and says so
// in the words of the common frameworks: "File written: PATH (N bytes)".
func writeTool(c *call, keys []string) error {
	rel, given, err := c.filePath()
	if err != nil {
		return err
	}
	_, content, err := c.p.need("content", keys)
	if err != nil {
		return err
	}
	appendTo, err := c.p.boolean([]string{"append"})
	if err != nil {
		return err
	}
	if err := writeFile(c.ws, rel, []byte(content), appendTo); err != nil {
		return err
	}
	_, err = io.WriteString(c.out, agenttool.Wrote(given, len(content), appendTo))
	return err
}

func writeFile(ws *Workspace, rel string, data []byte, appendTo bool) error {
	f, err := ws.create(rel, appendTo)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %v", rel, text.UnwrapPath(err))
	}
	ws.wrote(rel)
	return nil
}

// readWhole reads a file an edit changes, within maxEditSize. An input
// that never made it into the workspace fails with its reason.
func readWhole(ws *Workspace, rel string) (string, error) {
	if err := ws.needs(rel, false); err != nil {
		return "", err
	}
	f, err := ws.openRead(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEditSize+1))
	if err != nil {
		return "", fmt.Errorf("%s: %v", rel, text.UnwrapPath(err))
	}
	if len(b) > maxEditSize {
		return "", fmt.Errorf("%s is larger than the %d MiB an edit may change", rel, maxEditSize>>20)
	}
	return string(b), nil
}

// edit is one replacement of an edit tool, with the parameter that gave
// the string to replace (for messages).
type edit struct {
	oldKey string
	agenttool.Replacement
}

// readEdit reads a replacement; an editor's (newOptional) may leave out
// the new string, which is then empty, as OpenHands' and Anthropic's
// editors take it.
func readEdit(p params, newOptional bool) (edit, error) {
	var e edit
	var err error
	if e.oldKey, e.Old, err = p.need("string to replace", agenttool.OldKeys()); err != nil {
		return e, err
	}
	if newOptional {
		_, e.New, _, err = p.str(agenttool.NewKeys())
	} else {
		_, e.New, err = p.need("replacement", agenttool.NewKeys())
	}
	if err != nil {
		return e, err
	}
	e.All, err = p.boolean([]string{"replace_all"})
	return e, err
}

// editTool replaces a string in a file: "File edited: PATH". An empty
// string to replace creates a file that does not exist yet, as Claude
// Code's Edit does. editor is the str_replace command of an editor.
func editTool(c *call, editor bool) error {
	rel, given, err := c.filePath()
	if err != nil {
		return err
	}
	e, err := readEdit(c.p, editor)
	if err != nil {
		return err
	}
	if e.Old == "" {
		if _, err := c.ws.root.Lstat(rel); errors.Is(err, fs.ErrNotExist) && c.ws.needs(rel, false) == nil {
			return edited(c, rel, given, e.New)
		}
	}
	return applyEdits(c, rel, given, []edit{e})
}

// multiEditTool applies the edits array in order, all or nothing.
func multiEditTool(c *call) error {
	rel, given, err := c.filePath()
	if err != nil {
		return err
	}
	_, raw, err := c.p.find([]string{"edits"})
	if err != nil {
		return err
	}
	if raw == nil {
		return errors.New("parameters: no edits")
	}
	var list []params
	if err := jsonUnmarshalNumbers(raw, &list); err != nil || len(list) == 0 {
		return errors.New("parameter edits: must be a non-empty array of objects")
	}
	edits := make([]edit, len(list))
	for i, p := range list {
		e, err := readEdit(p, false)
		if err != nil {
			return fmt.Errorf("edits[%d]: %v", i, err)
		}
		edits[i] = e
	}
	return applyEdits(c, rel, given, edits)
}

// applyEdits makes the edits in rel, all or nothing (agenttool.Replace).
func applyEdits(c *call, rel, given string, edits []edit) error {
	s, err := readWhole(c.ws, rel)
	if err != nil {
		return err
	}
	rs := make([]agenttool.Replacement, len(edits))
	for i, e := range edits {
		rs[i] = e.Replacement
	}
	s, i, err := agenttool.Replace(s, rs)
	if err != nil {
		err = editError(err, rel, edits[i].oldKey)
		if len(edits) > 1 {
			return fmt.Errorf("edits[%d]: %v", i, err)
		}
		return err
	}
	return edited(c, rel, given, s)
}

// editError says why an edit of rel was refused, naming the parameter of
// the string to replace.
func editError(err error, rel, oldKey string) error {
	var ee *agenttool.EditError
	switch {
	case !errors.As(err, &ee):
		return err
	case ee.Empty:
		return fmt.Errorf("parameter %s: empty; nothing to replace in %s", oldKey, rel)
	case ee.Count == 0:
		return fmt.Errorf("%s: %s not found", rel, oldKey)
	}
	return fmt.Errorf("%s: %s occurs %d times; give more context or replace_all", rel, oldKey, ee.Count)
}

// edited writes the edited content of rel and says so.
func edited(c *call, rel, given, content string) error {
	if err := writeFile(c.ws, rel, []byte(content), false); err != nil {
		return err
	}
	_, err := io.WriteString(c.out, agenttool.Edited(given))
	return err
}

// editorTool is the text-editor tool of Anthropic's API and OpenHands:
// command view, create, str_replace or insert.
func editorTool(c *call) error {
	key, cmd, err := c.p.need("command", []string{"command"})
	if err != nil {
		return err
	}
	switch cmd {
	case "view":
		return readTool(c, true)
	case "create":
		return writeTool(c, agenttool.EditorCreateKeys())
	case "str_replace":
		return editTool(c, true)
	case "insert":
		return insertTool(c)
	}
	return fmt.Errorf("parameter %s: %q is not supported by the built-in editor (view, create, str_replace, insert)", key, cmd)
}

// insertTool inserts text after line insert_line (0: at the top), as
// agenttool.Insert says.
func insertTool(c *call) error {
	rel, given, err := c.filePath()
	if err != nil {
		return err
	}
	key, at, ok, err := c.p.integer([]string{"insert_line"})
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("parameters: no insert_line")
	}
	_, text, err := c.p.need("text to insert", agenttool.InsertKeys())
	if err != nil {
		return err
	}
	s, err := readWhole(c.ws, rel)
	if err != nil {
		return err
	}
	// No file an edit reads has more lines than bytes: the bounds keep
	// the line an int without changing what it means.
	s, err = agenttool.Insert(s, int(min(max(at, -1), maxEditSize+1)), text)
	var ie *agenttool.InsertError
	switch {
	case errors.As(err, &ie) && ie.Line < 0:
		return fmt.Errorf("parameter %s: %d is negative", key, at)
	case errors.As(err, &ie):
		return fmt.Errorf("parameter %s: %s has fewer than %d lines", key, rel, at)
	case err != nil:
		return err
	}
	return edited(c, rel, given, s)
}

// shellTool runs the command with /bin/sh -c in the workspace; its output
// is what it wrote to stdout and stderr, interleaved as written. A command
// that runs and exits non-zero did execute: its output is compared like any
// other. A timeout, a shell that cannot start, and a command the shell
// cannot run (status 127, not found; 126, not executable) fail the step:
// nothing was executed to compare.
func shellTool(c *call) error {
	key, raw, err := c.p.find(agenttool.CommandKeys())
	if err != nil {
		return err
	}
	if key == "" {
		return fmt.Errorf("parameters: no command (give %s)", orList(agenttool.CommandKeys()))
	}
	var script string
	var argv []string
	switch {
	case jsonUnmarshalNumbers(raw, &script) == nil:
	case jsonUnmarshalNumbers(raw, &argv) == nil && len(argv) > 0:
		script = shellJoin(argv)
	default:
		return fmt.Errorf("parameter %s: must be a string or an array of strings, not %s", key, jcs.Kind(raw))
	}
	// The output is kept whole for the comparison; its last line is the
	// reason when the shell could not run the command.
	last := &tail{max: 4 << 10}
	out := io.MultiWriter(c.out, last)
	run := programRun{
		argv:    []string{"/bin/sh", "-c", script},
		dir:     c.ws.dir,
		stdout:  out,
		stderr:  out,
		env:     c.env,
		timeout: c.timeout,
		sb:      c.sb,
	}
	code, err := run.run(c.ctx)
	switch {
	case err != nil:
		return fmt.Errorf("/bin/sh: %v", err)
	case code == 127:
		return fmt.Errorf("/bin/sh exited with status 127 (command not found)%s", colonLine(last))
	case code == 126:
		return fmt.Errorf("/bin/sh exited with status 126 (command found but not executable)%s", colonLine(last))
	}
	return nil
}

// shellJoin quotes argv for sh: a command given as an array runs as those
// words exactly.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
