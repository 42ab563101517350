package session

import (
	"io"
	"time"

	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// A Codex rollout, in the form every Codex since 0.5x reads back: a
// session_meta line, then response_item lines (the model's history:
// messages, function_call and function_call_output), event_msg lines for
// what its screen shows on resume (user_message, agent_message), and a
// turn_context after the first prompt (its cwd is what codex resume
// --last matches).

type codexLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   any    `json:"payload"`
}

type codexSessionMeta struct {
	ID            string  `json:"id"`
	Timestamp     string  `json:"timestamp"`
	Cwd           string  `json:"cwd"`
	Originator    string  `json:"originator"`
	CLIVersion    string  `json:"cli_version"`
	Instructions  *string `json:"instructions"`
	Source        string  `json:"source"`
	ModelProvider string  `json:"model_provider"`
}

type codexTurnContext struct {
	Cwd            string         `json:"cwd"`
	ApprovalPolicy string         `json:"approval_policy"`
	SandboxPolicy  map[string]any `json:"sandbox_policy"`
	Model          string         `json:"model"`
	Summary        string         `json:"summary"`
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type codexItem struct {
	Type      string         `json:"type"`
	Role      string         `json:"role,omitempty"`
	Content   []codexContent `json:"content,omitempty"`
	Name      string         `json:"name,omitempty"`
	Arguments string         `json:"arguments,omitempty"`
	CallID    string         `json:"call_id,omitempty"`
	Output    *string        `json:"output,omitempty"`
}

type codexEvent struct {
	Type    string    `json:"type"`
	Message string    `json:"message"`
	Images  *[]string `json:"images,omitempty"`
}

type codexRenderer struct {
	r        *restorer
	out      lineWriter
	start    time.Time
	provider string
	began    bool
	turned   bool
}

func (r *restorer) codexRenderer(w io.Writer, start time.Time, provider string) renderer {
	return &codexRenderer{r: r, out: newLineWriter(w), start: start, provider: provider}
}

func (c *codexRenderer) line(ts time.Time, typ string, payload any) error {
	return c.out.write(codexLine{Timestamp: stamp(ts), Type: typ, Payload: payload})
}

func (c *codexRenderer) begin() error {
	if c.began {
		return nil
	}
	c.began = true
	return c.line(c.start, "session_meta", codexSessionMeta{ID: c.r.id, Timestamp: stamp(c.start), Cwd: c.r.opts.Cwd,
		Originator: "ctx_restore", CLIVersion: agentstore.CodexVersion, Source: "cli", ModelProvider: c.provider})
}

func (c *codexRenderer) item(it item) error {
	if err := c.begin(); err != nil {
		return err
	}
	switch it.kind {
	case itemPrompt:
		if err := c.line(it.ts, "response_item", codexItem{Type: "message", Role: "user",
			Content: []codexContent{{Type: "input_text", Text: it.text}}}); err != nil {
			return err
		}
		if err := c.line(it.ts, "event_msg", codexEvent{Type: "user_message", Message: it.text, Images: &[]string{}}); err != nil {
			return err
		}
		if !c.turned {
			c.turned = true
			return c.line(it.ts, "turn_context", codexTurnContext{Cwd: c.r.opts.Cwd, ApprovalPolicy: "on-request",
				SandboxPolicy: map[string]any{"type": "read-only"}, Model: c.r.m.Model.Identifier, Summary: "auto"})
		}
	case itemText:
		if err := c.line(it.ts, "response_item", codexItem{Type: "message", Role: "assistant",
			Content: []codexContent{{Type: "output_text", Text: it.text}}}); err != nil {
			return err
		}
		return c.line(it.ts, "event_msg", codexEvent{Type: "agent_message", Message: it.text})
	case itemCall:
		if err := c.line(it.ts, "response_item", codexItem{Type: "function_call", Name: it.call.Name,
			Arguments: string(it.call.Input), CallID: it.call.ID}); err != nil {
			return err
		}
		out := it.call.Output
		return c.line(it.ts, "response_item", codexItem{Type: "function_call_output", CallID: it.call.ID, Output: &out})
	}
	return nil
}

func (c *codexRenderer) end() error { return c.begin() }
