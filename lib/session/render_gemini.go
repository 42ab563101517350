package session

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// A Gemini CLI session (JSONL), as 0.61.0 writes it: the metadata line,
// then messages: a user message's content a list of parts, a gemini
// message's content its text with its toolCalls (each with its
// functionResponse result), followed by the user message of those
// functionResponse parts that the model was sent.

type geminiMeta struct {
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	StartTime   string `json:"startTime"`
	LastUpdated string `json:"lastUpdated"`
	Kind        string `json:"kind"`
}

type geminiMessage struct {
	ID        string           `json:"id"`
	Timestamp string           `json:"timestamp"`
	Type      string           `json:"type"`
	Content   any              `json:"content"`
	Thoughts  *[]any           `json:"thoughts,omitempty"`
	Model     string           `json:"model,omitempty"`
	ToolCalls []geminiToolCall `json:"toolCalls,omitempty"`
}

type geminiToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    []geminiPart    `json:"result"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
}

type geminiPart struct {
	Text             string          `json:"text,omitempty"`
	FunctionResponse *geminiResponse `json:"functionResponse,omitempty"`
}

type geminiResponse struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Response map[string]string `json:"response"`
}

type geminiRenderer struct {
	r     *restorer
	out   lineWriter
	start time.Time
	began bool
	seq   int
	msg   *geminiMessage // the model message being made
	// message is the run's id of that message.
	message string
}

func (r *restorer) geminiRenderer(w io.Writer, start time.Time) renderer {
	return &geminiRenderer{r: r, out: newLineWriter(w), start: start}
}

func (g *geminiRenderer) id() string {
	g.seq++
	return derivedUUID(fmt.Sprintf("%s gemini %d", g.r.h, g.seq))
}

func (g *geminiRenderer) begin(last time.Time) error {
	if g.began {
		return nil
	}
	g.began = true
	return g.out.write(geminiMeta{SessionID: g.r.id, ProjectHash: agentstore.GeminiProjectHash(g.r.opts.Cwd),
		StartTime: stamp(g.start), LastUpdated: stamp(last), Kind: "main"})
}

func (g *geminiRenderer) item(it item) error {
	if err := g.begin(g.start); err != nil {
		return err
	}
	switch it.kind {
	case itemPrompt:
		if err := g.flush(); err != nil {
			return err
		}
		return g.out.write(geminiMessage{ID: g.id(), Timestamp: stamp(it.ts), Type: "user", Content: []geminiPart{{Text: it.text}}})
	case itemText:
		if g.msg != nil && len(g.msg.ToolCalls) > 0 {
			if err := g.flush(); err != nil {
				return err
			}
		}
		g.message = it.message
		g.model(it.ts)
		if s, _ := g.msg.Content.(string); s != "" {
			g.msg.Content = s + "\n\n" + it.text
		} else {
			g.msg.Content = it.text
		}
	case itemCall:
		if g.msg != nil && len(g.msg.ToolCalls) > 0 && !sameMessage(it, g.message) {
			if err := g.flush(); err != nil {
				return err
			}
		}
		g.message = it.message
		g.model(it.ts)
		resp := &geminiResponse{ID: it.call.ID, Name: it.call.Name, Response: map[string]string{"output": it.call.Output}}
		status := "success"
		if it.call.IsError {
			status = "error"
			resp.Response = map[string]string{"error": it.call.Output}
		}
		g.msg.ToolCalls = append(g.msg.ToolCalls, geminiToolCall{ID: it.call.ID, Name: it.call.Name, Args: it.call.Input,
			Result: []geminiPart{{FunctionResponse: resp}}, Status: status, Timestamp: stamp(it.ts)})
	}
	return nil
}

// model starts a model message unless one is being made.
func (g *geminiRenderer) model(ts time.Time) {
	if g.msg == nil {
		g.msg = &geminiMessage{ID: g.id(), Timestamp: stamp(ts), Type: "gemini", Content: "", Thoughts: &[]any{}, Model: g.r.m.Model.Identifier}
	}
}

// flush writes the model message made so far, and its calls' results as
// the user message that carried them.
func (g *geminiRenderer) flush() error {
	if g.msg == nil {
		return nil
	}
	msg := g.msg
	g.msg = nil
	if err := g.out.write(msg); err != nil {
		return err
	}
	if len(msg.ToolCalls) == 0 {
		return nil
	}
	var parts []geminiPart
	for _, c := range msg.ToolCalls {
		parts = append(parts, c.Result...)
	}
	return g.out.write(geminiMessage{ID: g.id(), Timestamp: msg.Timestamp, Type: "user", Content: parts})
}

// end writes the message being made and the session's time of last
// update, as Gemini CLI does ({"$set": {"lastUpdated"}}): the time of
// the restore, so that Gemini CLI keeps the session (stamped.go).
func (g *geminiRenderer) end() error {
	if err := g.begin(g.start); err != nil {
		return err
	}
	if err := g.flush(); err != nil {
		return err
	}
	return g.out.raw(agentstore.GeminiTouch(g.r.now))
}
