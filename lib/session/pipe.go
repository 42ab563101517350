package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/convert"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// packRun is the one place capture turns a session into a run of a
// pack.Saver: the session file, read back from its stored object,
// converted as ctx convert --from FORMAT converts it, piped into the
// Saver as ctx pack - reads a stream of logs, with the session's files
// added as inputs (content_ref) and the previous capture as the parent.
// (lib/convert's one in-process convert-and-pack function replaces the
// pipe when it comes; it will need the extra inputs and the parent.)
type packRun struct {
	st   *store.Store
	job  *job
	warn func(string)
}

// add converts and adds the run; a session the converter refuses is
// added with its files alone and the reason in its metadata, so that a
// session is kept even where ctx cannot read it yet. It returns what
// the Saver handed back (the packs of earlier runs).
func (p packRun) add(saver *pack.Saver) ([]pack.Saved, error) {
	source := fmt.Sprintf("%s session %s (%s)", p.job.s.Agent, p.job.s.ID, p.job.s.Path())
	obj, err := p.st.Open(p.job.files[0].Ref)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	pr, pw := io.Pipe()
	var convErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		w := &runEdit{out: pw, add: p.addToRun, after: p.inputLines()}
		_, convErr = convert.Convert(obj, nil, w, convert.Options{From: p.job.agent.Format, Warn: p.warn})
		if convErr == nil {
			convErr = w.finish()
		}
		pw.CloseWithError(convErr)
	}()
	saved, err := saver.Add(pr, source)
	_, _ = io.Copy(io.Discard, pr) // whatever Add left unread, so the conversion ends
	<-done
	if convErr == nil {
		return saved, err
	}
	p.warn(fmt.Sprintf("%s cannot be converted (%v): its files are kept, without steps", source, convErr))
	more, err := saver.Add(bytes.NewReader(p.filesOnly(convErr)), source)
	return append(saved, more...), err
}

// addToRun adds the parent to the run event.
func (p packRun) addToRun(run map[string]json.RawMessage) {
	if p.job.parent != nil {
		run["parent"], _ = json.Marshal(p.job.parent.String())
	}
}

// inputLines are the input events of the session's files.
func (p packRun) inputLines() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, f := range p.job.files {
		_ = enc.Encode(pack.InputEvent{Event: "input", Name: inputName(p.job.s.Agent, f.Rel),
			Content:  pack.Content{ContentRef: f.Ref.String()},
			Metadata: map[string]any{metaKey: fileMeta{Agent: p.job.s.Agent, ID: p.job.s.ID, Main: f.Main}}})
	}
	return b.Bytes()
}

// filesOnly is the log of the session's files alone.
func (p packRun) filesOnly(why error) []byte {
	run := map[string]json.RawMessage{}
	run["event"], _ = json.Marshal("run")
	run["model"], _ = json.Marshal(pack.LogModel{Identifier: "unknown"})
	run["metadata"], _ = json.Marshal(map[string]string{"capture_error": why.Error()})
	p.addToRun(run)
	line, _ := json.Marshal(run)
	return append(append(line, '\n'), p.inputLines()...)
}

// runEdit passes a converted log through, with the run event, its first
// line (convert writes it first), edited by add and followed by after.
type runEdit struct {
	out   io.Writer
	add   func(map[string]json.RawMessage)
	after []byte
	head  []byte
	done  bool
}

func (w *runEdit) Write(b []byte) (int, error) {
	if w.done {
		return w.out.Write(b)
	}
	n := len(b)
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		w.head = append(w.head, b...)
		return n, nil
	}
	w.head = append(w.head, b[:i]...)
	if err := w.flushHead(); err != nil {
		return 0, err
	}
	if _, err := w.out.Write(b[i+1:]); err != nil {
		return 0, err
	}
	return n, nil
}

// flushHead writes the edited run event and the lines after it.
func (w *runEdit) flushHead() error {
	w.done = true
	var run map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(w.head))
	dec.UseNumber()
	if err := dec.Decode(&run); err != nil || string(run["event"]) != `"run"` {
		return errors.New("the converted log does not start with its run event")
	}
	w.add(run)
	line, err := json.Marshal(run)
	if err != nil {
		return err
	}
	_, err = w.out.Write(append(append(line, '\n'), w.after...))
	return err
}

// finish ends a log that had no complete first line.
func (w *runEdit) finish() error {
	if w.done {
		return nil
	}
	if len(w.head) == 0 {
		return errors.New("the converter wrote nothing")
	}
	return w.flushHead()
}
