package session

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/contextsubstrate/ctx/lib/convert"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// add is the one place capture turns a session into a run: its log
// written by convert (ctx convert --from FORMAT) straight into the
// Saver (pack.Saver.AddWritten: the path of every log written in a ctx
// process), with the session's files as inputs and the capture it
// extends as the parent (pack.Options.Inputs, Parent). A session the
// converter refuses is added with its files alone and the reason in its
// metadata, so that a session is kept even where ctx cannot read it
// yet. It returns what the Saver handed back (the packs of earlier runs).
func (c *capturer) add(saver *pack.Saver, j *job) ([]pack.Saved, error) {
	source := fmt.Sprintf("%s session %s (%s)", j.s.Agent, j.s.ID, j.s.Path())
	opts := pack.Options{Root: ".", Store: c.st, Warn: j.warn, Inputs: j.inputs(), Parent: j.parent}
	var convErr error
	saved, err := saver.AddWritten(func(w io.Writer) error {
		convErr = j.convert(c.st, w)
		return convErr
	}, source, opts)
	if convErr == nil {
		return saved, err
	}
	j.warn(fmt.Sprintf("cannot be converted (%v): its files are kept, without steps", convErr))
	more, err := saver.AddWritten(func(w io.Writer) error { return filesOnly(w, convErr) }, source, opts)
	return append(saved, more...), err
}

// convert writes the log of j's session: its session file, read back
// from the store, converted as ctx convert --from FORMAT converts it. The
// session file is read from the store, not from its folder, so the
// reader is given the companions (Claude Code's sub-agent transcripts,
// j.files[1:], kept in the pack as files too) by their paths, as ctx
// convert --subagents gives them: their work joins the run's steps.
func (j *job) convert(st *store.Store, w io.Writer) error {
	obj, err := st.Open(j.files[0].Ref)
	if err != nil {
		return err
	}
	defer obj.Close()
	var subagents []string
	for _, f := range j.files[1:] {
		if strings.HasSuffix(f.Rel, ".jsonl") {
			subagents = append(subagents, filepath.Join(j.s.Root, filepath.FromSlash(f.Rel)))
		}
	}
	_, err = convert.Convert(obj, nil, w, convert.Options{From: j.agent.Format, Warn: j.warn, Subagents: subagents})
	return err
}

// inputs are the input events of the session's files.
func (j *job) inputs() []pack.InputEvent {
	var out []pack.InputEvent
	for _, f := range j.files {
		out = append(out, pack.InputEvent{Event: "input", Name: inputName(j.s.Agent, f.Rel),
			Content:  pack.Content{ContentRef: f.Ref.String()},
			Metadata: map[string]any{metaKey: fileMeta{Agent: j.s.Agent, ID: j.s.ID, Main: f.Main}}})
	}
	return out
}

// filesOnly writes the log of a session without steps: its run, which
// says why, to which the session's files are added.
func filesOnly(w io.Writer, why error) error {
	return json.NewEncoder(w).Encode(pack.RunEvent{Event: "run", Model: pack.LogModel{Identifier: "unknown"},
		Metadata: map[string]any{"capture_error": why.Error()}})
}
