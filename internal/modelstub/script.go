// Package modelstub is a local stand-in of the model APIs the coding agents
// call (Anthropic's Messages API, OpenAI's Responses and Chat Completions
// APIs, Google's Gemini API), so that tests run the real agents offline. It
// answers each request with a scripted turn (text and tool calls, streamed
// as the real API streams) and logs every request it gets, so a test can
// assert what an agent sent. It is a test fixture: the program
// internal/modelstub/cmd/modelstub serves it, and nothing of ctx links it.
//
// A turn is chosen from the request alone, never from what the stand-in
// answered before: the request's latest prompt (the last user message that
// is not a tool result) picks the Conversation whose Match it contains, and
// the number of model turns the request holds after that prompt is the
// index of the Turn to answer. So a retried request gets the same answer, a
// resumed session continues where its history ends, and a sub-agent (whose
// first prompt is the task its parent gave it) follows a conversation of
// its own. Requests that carry no tools (titles, summaries, classifiers)
// and requests no conversation matches get Script.Default.
package modelstub

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Script is what the stand-in answers, read from its script file at every
// request (a test may rewrite it between two runs of an agent).
type Script struct {
	// Conversations are tried in order; the first whose Match the latest
	// prompt contains answers.
	Conversations []Conversation `json:"conversations"`
	// Default is the text answered to a request without tools or without
	// a matching conversation, and past a conversation's last turn
	// ("ok" when empty).
	Default string `json:"default,omitempty"`
}

// Conversation is the model's side of one exchange: the turns answered to
// a prompt that contains Match, the first to the prompt itself, each next
// one after the agent's tool results.
type Conversation struct {
	Match string `json:"match"`
	Turns []Turn `json:"turns"`
}

// Turn is one answer of the model: text, then tool calls. A turn without
// calls ends the agent's run.
type Turn struct {
	Text  string `json:"text,omitempty"`
	Calls []Call `json:"calls,omitempty"`
}

// Call is a tool call, named as the agent names its tool (the stand-in
// logs a problem when the request offers no tool of that name).
type Call struct {
	Name string `json:"name"`
	// Args is the call's arguments: a JSON object, or for a tool the agent
	// declares as free-form text (OpenAI's custom tools, as Codex's
	// apply_patch), a JSON string.
	Args json.RawMessage `json:"args"`
}

// ReadScript reads a script file.
func ReadScript(path string) (Script, error) {
	var s Script
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%s: %v", path, err)
	}
	for i, c := range s.Conversations {
		for j, t := range c.Turns {
			for k, call := range t.Calls {
				if call.Name == "" {
					return s, fmt.Errorf("%s: conversations[%d].turns[%d].calls[%d]: no name", path, i, j, k)
				}
				if len(call.Args) == 0 {
					s.Conversations[i].Turns[j].Calls[k].Args = json.RawMessage(`{}`)
				}
			}
		}
	}
	return s, nil
}

// WriteScript writes a script file (whole, then renamed into place, so a
// request never reads half of it).
func WriteScript(path string, s Script) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// DefaultText is the answer to requests no turn answers.
func (s Script) DefaultText() string {
	if s.Default == "" {
		return "ok"
	}
	return s.Default
}

// choose returns the conversation and turn answering a request whose
// latest prompt is prompt and that holds turns model turns after it; ok is
// false when none does.
func (s Script) choose(prompt string, turns int) (conv int, turn Turn, ok bool) {
	for i, c := range s.Conversations {
		if c.Match != "" && strings.Contains(prompt, c.Match) {
			if turns < len(c.Turns) {
				return i, c.Turns[turns], true
			}
			return i, Turn{}, false
		}
	}
	return -1, Turn{}, false
}
