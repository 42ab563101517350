package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/text"
)

// A rendered restore writes the run from its prompts and steps, in the
// target agent's own records (render_*.go): each prompt a user message,
// each model answer an assistant message, each tool call with its result
// as the target pairs them. What a run holds that is not conversation
// (the harness's event steps), and what the target cannot hold (another
// account's reasoning, binary results, the system prompt the agent makes
// itself), is left out and listed (restorer.lose).

// item is one piece of the conversation, in the run's order.
type item struct {
	kind itemKind
	text string // a prompt's or an answer's text
	call call
	ts   time.Time
	// message is the id of the model message an answer or a call was
	// part of (metadata.message_id), "" when the run does not say: calls
	// of one message were made together, others one after the other.
	message string
}

type itemKind int

const (
	itemPrompt itemKind = iota
	itemText
	itemCall
)

// call is a tool call and its result.
type call struct {
	ID, Name string
	Input    json.RawMessage // a JSON object
	Output   string
	IsError  bool
}

// renderer writes items as one agent's session file.
type renderer interface {
	item(it item) error
	end() error
}

// rendered makes the output of a rendered restore.
func (r *restorer) rendered(res *Restored) ([]output, error) {
	start := r.createdTime()
	if start.IsZero() {
		start = r.now // a run that recorded no time is dated by its restore
	}
	var name string
	switch r.to {
	case agentstore.ClaudeCode:
		name = r.id + ".jsonl"
	case agentstore.Codex:
		name = agentstore.CodexRolloutName(start, r.id)
		base, err := agentstore.Dir(agentstore.Codex, r.opts.Env)
		if err != nil {
			return nil, err
		}
		cfg, err := agentstore.ReadCodexConfig(base)
		if err != nil {
			return nil, err
		}
		res.Provider = cfg.Selected()
	case agentstore.Gemini:
		name = agentstore.GeminiSessionName(start, r.id)
	}
	file, _, err := r.sessionFile(name)
	if err != nil {
		return nil, err
	}
	if r.m.SystemPrompt != nil {
		r.lose("the run's system prompt (the agent sends its own)")
	}
	fill := func(w io.Writer) error {
		var out renderer
		switch r.to {
		case agentstore.ClaudeCode:
			out = r.claudeRenderer(w, start)
		case agentstore.Codex:
			out = r.codexRenderer(w, start, res.Provider)
		default:
			out = r.geminiRenderer(w, start)
		}
		if err := r.conversation(start, out.item); err != nil {
			return err
		}
		return out.end()
	}
	out := output{path: file, fill: fill}
	if r.to == agentstore.Gemini {
		out.stamp = geminiStamp(name)
	}
	return []output{out}, nil
}

// conversation reads the run's prompts and steps in their order (a
// prompt's metadata.at_step places it before that step) and hands each
// item of the conversation to fn.
func (r *restorer) conversation(start time.Time, fn func(item) error) error {
	type placed struct {
		at int
		p  pack.Prompt
	}
	prompts := make([]placed, len(r.m.Prompts))
	for i, p := range r.m.Prompts {
		var md struct {
			At *int `json:"at_step"`
		}
		_ = json.Unmarshal(p.Metadata, &md)
		prompts[i] = placed{p: p}
		if md.At != nil {
			prompts[i].at = *md.At
		}
	}
	sort.SliceStable(prompts, func(i, j int) bool { return prompts[i].at < prompts[j].at })
	var thinking, binary, delegated int
	events := map[string]int{}
	next := 0
	last := start
	emitPrompts := func(upTo int) error {
		for ; next < len(prompts) && (upTo < 0 || prompts[next].at <= upTo); next++ {
			b, err := r.st.ReadAll(prompts[next].p.ContentRef)
			if err != nil {
				return err
			}
			switch {
			case len(bytes.TrimSpace(b)) == 0:
				// A prompt without text (Gemini CLI's function
				// responses): its content is the calls' results.
			case !utf8.Valid(b):
				binary++
			default:
				if err := fn(item{kind: itemPrompt, text: string(b), ts: last}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := pack.EachStep(r.st, r.h, func(s *pack.Step) error {
		if err := emitPrompts(s.Index); err != nil {
			return err
		}
		if s.Timestamp != nil {
			if t, err := time.Parse(time.RFC3339Nano, *s.Timestamp); err == nil {
				last = t
			}
		}
		var out string
		if s.OutputRef != nil {
			b, err := r.st.ReadAll(*s.OutputRef)
			if err != nil {
				return err
			}
			if !utf8.Valid(b) {
				binary++
				b = []byte("(a binary result, not kept)")
			}
			out = string(b)
		}
		var md struct {
			Message  string          `json:"message_id"`
			Subagent json.RawMessage `json:"subagent"`
		}
		_ = json.Unmarshal(s.Metadata, &md)
		if len(md.Subagent) > 0 {
			// A sub-agent's own step (ctx convert puts it after the call
			// that started it): the session holds that call and its
			// result, the sub-agent's work is its own transcript.
			delegated++
			return nil
		}
		switch s.Type {
		case "model_call":
			var p struct {
				Thinking bool `json:"thinking"`
			}
			_ = json.Unmarshal(s.Parameters, &p)
			if p.Thinking {
				thinking++
				return nil
			}
			if strings.TrimSpace(out) == "" {
				return nil
			}
			return fn(item{kind: itemText, text: out, ts: last, message: md.Message})
		case "tool_call":
			c := call{ID: callID(s), Name: toolName(s.Tool), Input: objectOf(s.Parameters), Output: out}
			if s.Outcome == pack.OutcomeRejected {
				c.IsError = true
				if c.Output == "" {
					c.Output = "The call was refused; it did not run."
				}
			}
			return fn(item{kind: itemCall, call: c, ts: last, message: md.Message})
		}
		events[s.Tool]++
		return nil
	})
	if err == nil {
		err = emitPrompts(-1)
	}
	if err != nil {
		return err
	}
	if thinking > 0 {
		r.lose(text.Plural(thinking, "reasoning step") + " (thinking is signed or encrypted for the account and model that made it)")
	}
	if binary > 0 {
		r.lose(text.Plural(binary, "binary prompt or result") + " (a session holds text)")
	}
	if delegated > 0 {
		r.lose(text.Plural(delegated, "step") + " of sub-agents (a rendered session holds the call that started each and its result, not the sub-agent's own work)")
	}
	if len(events) > 0 {
		r.lose(eventsText(events))
	}
	return nil
}

// eventsText counts the event steps by kind: "5 event steps, the
// harness's records (attachment 3, meta 2)".
func eventsText(events map[string]int) string {
	var kinds []string
	n := 0
	for k, c := range events {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
		n += c
	}
	sort.Strings(kinds)
	return fmt.Sprintf("%s, the harness's records (%s)", text.Plural(n, "event step"), strings.Join(kinds, ", "))
}

// callID is the call's id as the run recorded it (metadata.tool_call_id),
// when it is one every agent's API takes; else one made from the step.
func callID(s *pack.Step) string {
	var md struct {
		ID string `json:"tool_call_id"`
	}
	_ = json.Unmarshal(s.Metadata, &md)
	if md.ID != "" && len(md.ID) <= 64 && strings.Trim(md.ID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
		return md.ID
	}
	return fmt.Sprintf("call_ctx_%d", s.Index)
}

// toolName is a tool's name as the model APIs take it: letters, digits,
// '_' and '-', at most 64.
func toolName(n string) string {
	b := []byte(n)
	for i, c := range b {
		if !isAlnum(c) && c != '_' && c != '-' {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "tool"
	}
	return string(b[:min(len(b), 64)])
}

// objectOf is the parameters as a JSON object (anything else under
// "input").
func objectOf(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return raw
	}
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"input": raw})
	return b
}

// stamp is t as the agents write times (UTC, milliseconds).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// lineWriter writes JSON records, one a line, HTML escaping off.
type lineWriter struct {
	w   io.Writer
	enc *json.Encoder
}

func newLineWriter(w io.Writer) lineWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return lineWriter{w: w, enc: enc}
}

func (l lineWriter) write(v any) error { return l.enc.Encode(v) }

// raw writes a record made already, with its newline.
func (l lineWriter) raw(line []byte) error {
	_, err := l.w.Write(line)
	return err
}

// sameMessage reports whether it belongs to the model message whose
// calls are pending (message): only when the run says both are one.
func sameMessage(it item, message string) bool {
	return it.message != "" && it.message == message
}
