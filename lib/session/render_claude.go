package session

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// Claude Code's records, as 2.1.328 writes them: each chained to the one
// before by parentUuid (the chain a resume sends), a user prompt's
// content a string, an assistant message's its blocks (text, tool_use),
// the results a user message of tool_result blocks.

type claudeRecord struct {
	ParentUUID  *string       `json:"parentUuid"`
	IsSidechain bool          `json:"isSidechain"`
	UserType    string        `json:"userType"`
	Cwd         string        `json:"cwd"`
	SessionID   string        `json:"sessionId"`
	Version     string        `json:"version"`
	Type        string        `json:"type"`
	Message     claudeMessage `json:"message"`
	UUID        string        `json:"uuid"`
	Timestamp   string        `json:"timestamp"`
}

type claudeMessage struct {
	ID         string       `json:"id,omitempty"`
	Type       string       `json:"type,omitempty"`
	Role       string       `json:"role"`
	Model      string       `json:"model,omitempty"`
	Content    any          `json:"content"`
	StopReason *string      `json:"stop_reason,omitempty"`
	Usage      *claudeUsage `json:"usage,omitempty"`
}

type claudeUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

type claudeRenderer struct {
	r       *restorer
	out     lineWriter
	parent  *string
	seq     int
	blocks  []claudeBlock // the assistant message being made
	results []claudeBlock // its calls' results
	message string        // the run's id of that message
	ts      time.Time
}

func (r *restorer) claudeRenderer(w io.Writer, start time.Time) renderer {
	return &claudeRenderer{r: r, out: newLineWriter(w), ts: start}
}

func (c *claudeRenderer) item(it item) error {
	switch it.kind {
	case itemPrompt:
		if err := c.flush(); err != nil {
			return err
		}
		return c.record("user", claudeMessage{Role: "user", Content: it.text}, it.ts)
	case itemText:
		if len(c.results) > 0 {
			if err := c.flush(); err != nil {
				return err
			}
		}
		c.ts, c.message = it.ts, it.message
		c.blocks = append(c.blocks, claudeBlock{Type: "text", Text: it.text})
	case itemCall:
		if len(c.results) > 0 && !sameMessage(it, c.message) {
			if err := c.flush(); err != nil {
				return err
			}
		}
		c.ts, c.message = it.ts, it.message
		out, isErr := it.call.Output, it.call.IsError
		c.blocks = append(c.blocks, claudeBlock{Type: "tool_use", ID: it.call.ID, Name: it.call.Name, Input: it.call.Input})
		c.results = append(c.results, claudeBlock{Type: "tool_result", ToolUseID: it.call.ID, Content: &out, IsError: &isErr})
	}
	return nil
}

// flush writes the assistant message made so far and its results.
func (c *claudeRenderer) flush() error {
	if len(c.blocks) > 0 {
		stop := "end_turn"
		if len(c.results) > 0 {
			stop = "tool_use"
		}
		msg := claudeMessage{ID: fmt.Sprintf("msg_ctx_%d", c.seq), Type: "message", Role: "assistant",
			Model: c.r.m.Model.Identifier, Content: c.blocks, StopReason: &stop, Usage: &claudeUsage{}}
		if err := c.record("assistant", msg, c.ts); err != nil {
			return err
		}
	}
	if len(c.results) > 0 {
		if err := c.record("user", claudeMessage{Role: "user", Content: c.results}, c.ts); err != nil {
			return err
		}
	}
	c.blocks, c.results = nil, nil
	return nil
}

func (c *claudeRenderer) record(typ string, msg claudeMessage, ts time.Time) error {
	c.seq++
	id := derivedUUID(fmt.Sprintf("%s claude-code %d", c.r.h, c.seq))
	rec := claudeRecord{ParentUUID: c.parent, UserType: "external", Cwd: c.r.opts.Cwd, SessionID: c.r.id,
		Version: agentstore.ClaudeCodeVersion, Type: typ, Message: msg, UUID: id, Timestamp: stamp(ts)}
	c.parent = &id
	return c.out.write(rec)
}

func (c *claudeRenderer) end() error { return c.flush() }
