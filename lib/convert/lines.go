package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// eachLine calls fn with every line of a JSONL transcript that is not
// blank, decoded: a JSON object, as a node that knows its line. first,
// when not nil, is the first line, read already. Memory holds one line.
func eachLine(r *bufio.Reader, first []byte, fn func(n node, m map[string]any) error) error {
	line, err := first, error(nil)
	if first == nil {
		line, err = pack.ReadLine(r, nil)
	}
	for lineNo := 1; ; lineNo++ {
		if err != nil && err != io.EOF {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			v, derr := jcs.Decode(t)
			if derr != nil {
				return jsonError(t, derr, lineNo)
			}
			m, ok := v.(map[string]any)
			if !ok {
				return &InputError{Line: lineNo, Msg: "must be a JSON object, not " + kindOf(v)}
			}
			if ferr := fn(root(v, lineNo), m); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		line, err = pack.ReadLine(r, line[:0])
	}
}

// counted lists kinds with their counts, "a (2), b (1)", for a warning.
func counted(kinds map[string]int) string {
	var out []string
	for _, k := range sortedKeys(kinds) {
		out = append(out, k+" ("+strconv.Itoa(kinds[k])+")")
	}
	return strings.Join(out, ", ")
}

// optTime reads an optional time: RFC 3339 as rfc3339 gives it, "" when
// absent or not a time, an error when not a string.
func (n node) optTime() (string, error) {
	s, err := n.optStr()
	return rfc3339(s), err
}

// withLine adds to an error naming a JSON path of the document the line
// where that value (or, when it is missing, the nearest value around it)
// starts, so a message names the file, the line and the field.
func (d *document) withLine(err error) error {
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 0 || ie.Path == "" || len(d.values) != 1 {
		return err
	}
	ie.Line = lineOfPath(d.data, ie.Path)
	return err
}

// lineOfPath walks the document's tokens, naming each value's path as
// node does, and returns the line where path (or its longest prefix seen)
// starts; 0 when the document cannot be walked.
func lineOfPath(data []byte, path string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		path  string
		obj   bool
		key   bool // the next token of an object is a key
		index int
	}
	var stack []*frame
	best, bestLine := -1, 0
	lineAt := func(off int64) int {
		rest := data[off:]
		off += int64(len(rest) - len(bytes.TrimLeft(rest, " \t\r\n:,")))
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	next := "" // the path of the value about to start
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return bestLine
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
				stack = stack[:len(stack)-1]
				continue
			}
			if top.obj && top.key {
				top.key = false
				next = jcs.PathKey(top.path, tok.(string))
				continue
			}
			if top.obj {
				top.key = true
			} else {
				next = top.path + "[" + strconv.Itoa(top.index) + "]"
				top.index++
			}
		}
		if (next == path || strings.HasPrefix(path, next+".") || strings.HasPrefix(path, next+"[")) && len(next) > best {
			best, bestLine = len(next), lineAt(off)
			if next == path {
				return bestLine
			}
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{path: next, obj: d == '{', key: d == '{'})
		}
	}
}

// eachRawLine calls fn with every line of r (without its line ending)
// and its number; memory holds one line.
func eachRawLine(r *bufio.Reader, fn func(line []byte, lineNo int) error) error {
	var line []byte
	for lineNo := 1; ; lineNo++ {
		var err error
		line, err = pack.ReadLine(r, line[:0])
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) > 0 || err == nil {
			if ferr := fn(bytes.TrimRight(line, "\r\n"), lineNo); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// eachRecord reads a file of run records, one per line (an OpenHands
// output.jsonl, NeMo Gym rollouts): each record is a run of its own,
// written as its own log, one after another (ctx pack - stores each as a
// pack). --record ID keeps only the record idOf names ID.
func eachRecord(r *bufio.Reader, w *writer, idOf func(n node) string, conv func(n node, w *writer) error) error {
	pick := w.opts.Record
	var ids []string
	runs := 0
	err := eachRawLine(r, func(line []byte, lineNo int) error {
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			return nil
		}
		v, derr := jcs.Decode(t)
		if derr != nil {
			return jsonError(t, derr, lineNo)
		}
		n := root(v, lineNo)
		if _, err := n.needObj(); err != nil {
			return err
		}
		id := idOf(n)
		// Any record is also picked by its place: #1, #2...
		place := fmt.Sprintf("#%d", len(ids)+1)
		if id == "" {
			id = place
		}
		ids = append(ids, id)
		if pick != "" && id != pick && place != pick {
			return nil
		}
		rw := w
		if runs > 0 {
			rw = w.another()
		}
		runs++
		w.tally.census(v)
		return conv(n, rw)
	})
	if err != nil {
		return err
	}
	if pick != "" && runs == 0 {
		return &InputError{Msg: fmt.Sprintf("no record %q in the file (records: %s; or #N, the record's place)", pick, strings.Join(ids, ", "))}
	}
	if runs > 1 {
		w.notef("%d run records, written as %d logs one after another (ctx pack - stores each; --record ID picks one)", runs, runs)
	}
	return nil
}
