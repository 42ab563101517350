package modelstub

import (
	"encoding/json"
	"fmt"
	"strings"
)

// request is what the stand-in needs of a model request, whatever its API.
type request struct {
	model  string
	stream bool
	// array: a Gemini stream sent as a JSON array, not server-sent events.
	array bool
	// schema is the JSON schema of the answer a request wants as JSON
	// (Gemini's responseJsonSchema or responseSchema).
	schema map[string]any
	// prompt is the text of the latest prompt; turns the model turns
	// (runs of the model's items) after it.
	prompt string
	turns  int
	// tools maps each offered tool's name to its kind: "function" (JSON
	// arguments) or "custom" (free-form text input).
	tools map[string]string
}

// item kinds of a history, in any API.
const (
	itemPrompt = iota // a user's message
	itemModel         // the model's output: text, calls, reasoning
	itemResult        // a tool's result
	itemOther         // system and developer messages
)

type item struct {
	kind int
	text string
}

// summarize fills prompt and turns from a history.
func (r *request) summarize(items []item) {
	last := -1
	for i, it := range items {
		if it.kind == itemPrompt {
			last = i
		}
	}
	if last < 0 {
		return
	}
	r.prompt = items[last].text
	inModel := false
	for _, it := range items[last+1:] {
		if it.kind == itemModel && !inModel {
			r.turns++
		}
		inModel = it.kind == itemModel
	}
}

// text joins the text of a content that is a string or a list of parts
// with a "text" field (Anthropic's blocks, OpenAI's parts, Gemini's parts).
func text(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(content, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Text != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// partTypes lists the "type" of each part of a content list.
func partTypes(content json.RawMessage) map[string]bool {
	var parts []struct {
		Type string `json:"type"`
	}
	json.Unmarshal(content, &parts)
	out := map[string]bool{}
	for _, p := range parts {
		out[p.Type] = true
	}
	return out
}

// message is a message of Anthropic's and Chat Completions' histories.
type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// messageItems reads a history of messages: "assistant" is the model's,
// "user" a prompt unless result says it holds a tool's result, any other
// role is a result when result says so and context otherwise.
func messageItems(msgs []message, result func(message) bool) []item {
	var items []item
	for _, m := range msgs {
		switch {
		case m.Role == "assistant":
			items = append(items, item{kind: itemModel})
		case result(m):
			items = append(items, item{kind: itemResult})
		case m.Role == "user":
			items = append(items, item{kind: itemPrompt, text: text(m.Content)})
		default:
			items = append(items, item{kind: itemOther})
		}
	}
	return items
}

func readAnthropic(body []byte) (request, error) {
	var b struct {
		Model    string    `json:"model"`
		Stream   bool      `json:"stream"`
		Messages []message `json:"messages"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return request{}, fmt.Errorf("messages request: %v", err)
	}
	r := request{model: b.Model, stream: b.Stream, tools: map[string]string{}}
	for _, t := range b.Tools {
		r.tools[t.Name] = "function"
	}
	r.summarize(messageItems(b.Messages, func(m message) bool {
		return m.Role == "user" && partTypes(m.Content)["tool_result"]
	}))
	return r, nil
}

func readResponses(body []byte) (request, error) {
	var b struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		Input  json.RawMessage
		Tools  []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return request{}, fmt.Errorf("responses request: %v", err)
	}
	r := request{model: b.Model, stream: b.Stream, tools: map[string]string{}}
	for _, t := range b.Tools {
		switch {
		case t.Type == "custom":
			r.tools[t.Name] = "custom"
		case t.Name != "":
			r.tools[t.Name] = "function"
		default: // a built-in tool (local_shell, web_search): its type is its name
			r.tools[t.Type] = t.Type
		}
	}
	var input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	var s string
	if json.Unmarshal(b.Input, &s) == nil {
		r.summarize([]item{{kind: itemPrompt, text: s}})
		return r, nil
	}
	if err := json.Unmarshal(b.Input, &input); err != nil && len(b.Input) > 0 {
		return r, fmt.Errorf("responses request: input: %v", err)
	}
	var items []item
	for _, in := range input {
		switch {
		case in.Type == "message" || (in.Type == "" && in.Role != ""):
			switch in.Role {
			case "user":
				items = append(items, item{kind: itemPrompt, text: text(in.Content)})
			case "assistant":
				items = append(items, item{kind: itemModel})
			default:
				items = append(items, item{kind: itemOther})
			}
		case strings.HasSuffix(in.Type, "_output"):
			items = append(items, item{kind: itemResult})
		default: // function_call, custom_tool_call, local_shell_call, reasoning, web_search_call
			items = append(items, item{kind: itemModel})
		}
	}
	r.summarize(items)
	return r, nil
}

func readChat(body []byte) (request, error) {
	var b struct {
		Model    string    `json:"model"`
		Stream   bool      `json:"stream"`
		Messages []message `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return request{}, fmt.Errorf("chat completions request: %v", err)
	}
	r := request{model: b.Model, stream: b.Stream, tools: map[string]string{}}
	for _, t := range b.Tools {
		r.tools[t.Function.Name] = "function"
	}
	r.summarize(messageItems(b.Messages, func(m message) bool { return m.Role == "tool" }))
	return r, nil
}

func readGemini(body []byte) (request, error) {
	var b struct {
		Contents []struct {
			Role  string          `json:"role"`
			Parts json.RawMessage `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		GenerationConfig struct {
			ResponseMimeType   string         `json:"responseMimeType"`
			ResponseJSONSchema map[string]any `json:"responseJsonSchema"`
			ResponseSchema     map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return request{}, fmt.Errorf("generateContent request: %v", err)
	}
	r := request{tools: map[string]string{}}
	if g := b.GenerationConfig; g.ResponseMimeType == "application/json" {
		r.schema = g.ResponseJSONSchema
		if r.schema == nil {
			r.schema = g.ResponseSchema
		}
		if r.schema == nil {
			r.schema = map[string]any{"type": "object"}
		}
	}
	for _, t := range b.Tools {
		for _, f := range t.FunctionDeclarations {
			r.tools[f.Name] = "function"
		}
	}
	var items []item
	for _, c := range b.Contents {
		var parts []map[string]json.RawMessage
		json.Unmarshal(c.Parts, &parts)
		result := false
		for _, p := range parts {
			if _, ok := p["functionResponse"]; ok {
				result = true
			}
		}
		switch {
		case c.Role == "model":
			items = append(items, item{kind: itemModel})
		case result:
			items = append(items, item{kind: itemResult})
		default:
			items = append(items, item{kind: itemPrompt, text: text(c.Parts)})
		}
	}
	r.summarize(items)
	return r, nil
}
