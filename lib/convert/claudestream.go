package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// claude -p --output-format stream-json (with --verbose) prints one JSON
// object a line, the Claude Agent SDK's messages: {"type": "system",
// "subtype": "init", "session_id", "model", "cwd", "tools",
// "claude_code_version", ...} opens a run; {"type": "assistant" | "user",
// "message": {an Anthropic message}, "parent_tool_use_id", "session_id",
// "uuid"} carry the conversation (a user record with a tool result also
// has "tool_use_result", the session's toolUseResult); {"type":
// "result", "subtype": "success" | "error_max_turns" | ..., "num_turns",
// "total_cost_usd", "usage", ...} closes it. Other system records
// (status, task_started, task_progress, hook responses) are the
// harness's; compact_boundary is a compaction. A sub-agent's records come
// between the call that started it and its result, marked with that
// call's id (parent_tool_use_id). Runners append several runs to one
// file, tee text of their own into it (=== Iteration 1 ===), and a file
// copied while a run went on ends in the middle of it. Some keep only
// each record's "message": lines that are bare Anthropic messages.

// isClaudeStreamLine recognises a record of the stream: a system, user,
// assistant or result record with the stream's session_id (the session
// transcript spells it sessionId), or a bare Anthropic message.
func isClaudeStreamLine(line []byte) bool {
	var head map[string]json.RawMessage
	if !lineObject(line, &head) {
		return false
	}
	var typ string
	_ = json.Unmarshal(head["type"], &typ)
	_, sid := head["session_id"]
	_, ptu := head["parent_tool_use_id"]
	_, camel := head["sessionId"]
	switch typ {
	case "system", "assistant", "user", "result":
		return (sid || ptu) && !camel
	}
	return bareMessage(head)
}

// bareMessage recognises an Anthropic message on its own: a role and
// content blocks that each name their type (or a "type": "message"
// response).
func bareMessage(head map[string]json.RawMessage) bool {
	var m struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
	}
	raw, _ := json.Marshal(head)
	if json.Unmarshal(raw, &m) != nil || (m.Role != "user" && m.Role != "assistant") || (m.Type != "" && m.Type != "message") {
		return false
	}
	if m.Type == "message" {
		return true
	}
	for _, b := range m.Content {
		if b.Type == "" {
			return false
		}
	}
	return len(m.Content) > 0
}

// isClaudeStreamHead recognises a stream whose first lines are text a
// runner wrote into the log before the first record.
func isClaudeStreamHead(head []byte) bool {
	for i := 0; i < 8 && len(head) > 0; i++ {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		head = rest
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '{' {
			return isClaudeStreamLine(t)
		}
	}
	return false
}

type claudeStream struct {
	w    *writer
	c    *claudeCode
	runs int

	began  bool      // the run has had a record
	inited bool      // the run began with a system init (a headless run, which ends with its result)
	result bool      // the run has had its result
	turns  bool      // the run event is written with a result
	text   []stepRec // text lines waiting for the record after them
	nText  int
	ticks  int // partial-message events dropped
}

func convertClaudeStream(r *bufio.Reader, w *writer) error {
	s := &claudeStream{w: w}
	s.begin()
	for lineNo := 1; ; lineNo++ {
		line, err := pack.ReadLine(r, nil)
		if err != nil && err != io.EOF {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if perr := s.line(t, lineNo); perr != nil {
				return perr
			}
			if !s.w.ran && s.w.heldBytes() > maxHeld {
				// The run's result is too far off to wait for.
				if err := s.w.run(s.c.run); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if err := s.keepText(); err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	if s.nText > 0 {
		s.w.warnf("%d line(s) that are not records (text a runner wrote into the log, or a record cut off) kept in the metadata (harness_records) of the step after each", s.nText)
	}
	if s.ticks > 0 {
		s.w.notef("%d partial-message event(s) (stream_event) dropped: the messages they stream are in the log whole", s.ticks)
	}
	if s.runs > 1 {
		s.w.notef("%d runs (a system init each), written as %d logs one after another (ctx pack - stores each)", s.runs, s.runs)
	}
	return nil
}

// begin starts a run: a log of its own after the first.
func (s *claudeStream) begin() {
	if s.runs > 0 {
		s.w = s.w.another()
	}
	s.runs++
	s.c = newClaudeCode(s.w, "claude-stream")
	s.c.stream = true
	s.began, s.inited, s.result, s.turns = false, false, false, false
}

// end closes the run being read.
func (s *claudeStream) end() error {
	c := s.c
	if err := c.end(); err != nil {
		return err
	}
	if err := c.q.close(); err != nil {
		return err
	}
	if s.inited && !s.result {
		s.w.warnf("run %d (session %v) has no result record: the stream ends before the run did", s.runs, c.run.Metadata["session_id"])
	}
	c.noteTicks()
	return s.w.close(c.run)
}

// keepText gives the text lines read to the run as records of the
// harness.
func (s *claudeStream) keepText() error {
	text := s.text
	s.text = nil
	for _, t := range text {
		if _, err := s.c.q.add(t); err != nil {
			return err
		}
	}
	return nil
}

func (s *claudeStream) line(raw []byte, lineNo int) error {
	v, err := jcs.Decode(raw)
	obj, isObj := v.(map[string]any)
	if err != nil || !isObj {
		// Text a runner tee'd into the log, or a record cut off.
		t := string(raw)
		s.text = append(s.text, stepRec{Type: "event", Tool: "text", Output: &t, Meta: map[string]any{"line": lineNo}, Bookkeeping: true})
		s.nText++
		return nil
	}
	s.w.tally.census(v)
	typ, _ := obj["type"].(string)
	if _, ok := obj["role"]; ok && (typ == "" || typ == "message") {
		// A bare message, as some runners keep them.
		obj = map[string]any{"type": obj["role"], "message": obj}
		typ, _ = obj["type"].(string)
	}
	if typ == "system" && obj["subtype"] == "init" && (s.began || s.result) {
		if err := s.end(); err != nil {
			return err
		}
		s.begin()
	}
	s.began = true
	if err := s.keepText(); err != nil {
		return err
	}
	c := s.c
	c.mark = nil
	if p, ok := obj["parent_tool_use_id"].(string); ok && p != "" {
		// A sub-agent's record: its steps are marked with the call that
		// started it.
		c.mark = map[string]any{"tool_call_id": p}
		c.mark = setIf(c.mark, "agent_id", obj["agent_id"])
		if call := c.q.pending(p); call != nil {
			c.mark = setIf(c.mark, "type", call.step.Params["subagent_type"])
		}
		if m, ok := c.streamModels[p]; ok {
			c.mark["model"] = m
		}
		defer func() {
			if m, ok := c.mark["model"].(string); ok {
				if c.streamModels == nil {
					c.streamModels = map[string]string{}
				}
				c.streamModels[p] = m
			}
		}()
	}
	// The session's spelling of the fields, so the session's reader
	// reads the record.
	for from, to := range map[string]string{"session_id": "sessionId", "tool_use_result": "toolUseResult"} {
		if x, ok := obj[from]; ok {
			obj[to] = x
			delete(obj, from)
		}
	}
	delete(obj, "parent_tool_use_id")
	n := root(obj, lineNo)
	switch typ {
	case "system":
		if obj["subtype"] == "init" {
			s.inited = true
			return s.init(obj)
		}
	case "result":
		return s.closeRun(obj)
	case "stream_event":
		s.ticks++
		return nil
	}
	return c.record(n, obj)
}

// init reads the record that opens a run: the model, the working
// directory, the session and what the run was given.
func (s *claudeStream) init(obj map[string]any) error {
	c := s.c
	if cwd, _ := obj["cwd"].(string); cwd != "" && !c.sawCwd {
		c.sawCwd, c.cwd = true, cwd
		s.w.setWorkdir(cwd)
	}
	if m, _ := obj["model"].(string); m != "" {
		c.run.Model = m
	}
	md := c.run.Metadata
	md = setIf(md, "session_id", obj["sessionId"])
	md = setIf(md, "claude_code_version", obj["claude_code_version"])
	md = setIf(md, "init", rest(obj, "type", "subtype", "sessionId", "model", "cwd", "claude_code_version", "uuid"))
	c.run.Metadata = md
	return nil
}

// closeRun reads the result record: how the run ended, and its totals.
// The run's event is written now (it was held for this), unless the run
// was too long to hold.
func (s *claudeStream) closeRun(obj map[string]any) error {
	c := s.c
	s.result = true
	if err := c.end(); err != nil {
		return err
	}
	sub, _ := obj["subtype"].(string)
	isErr, _ := obj["is_error"].(bool)
	text, _ := obj["result"].(string)
	end := &pack.End{State: "finished"}
	switch {
	case sub == "success" && !isErr:
	case sub == "error_max_turns":
		end = &pack.End{State: "iteration_limit", Message: sub}
	case sub == "error_max_budget_usd":
		end = &pack.End{State: "cost_limit", Message: sub}
	case sub == "success":
		end = &pack.End{State: "error", Message: text}
	default:
		end = &pack.End{State: "error", Message: sub}
	}
	meta := rest(obj, "type", "sessionId", "uuid")
	if s.w.ran {
		// Written already (a later turn's result, or a run too long to
		// hold): the result is a record of the harness.
		if !s.turns {
			s.w.warnf("run %d is too long to hold until its result: its end (%s) is in the harness_records of its last step, not the run", s.runs, end.State)
		}
		_, err := c.q.add(stepRec{Type: "event", Tool: "result", Output: &text, Meta: meta, Bookkeeping: true})
		return err
	}
	s.turns = true
	c.run.End = end
	c.run.Metadata = setIf(c.run.Metadata, "result", meta)
	if _, has := c.run.Metadata["session_id"]; !has {
		c.run.Metadata = setIf(c.run.Metadata, "session_id", obj["sessionId"])
	}
	return s.w.run(c.run)
}
