package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// answer is one turn to send in one API's shape.
type answer struct {
	turn     Turn
	req      request
	id       string
	inTokens int
}

func (a answer) outTokens() int {
	n := len(a.turn.Text)/4 + 1
	for _, c := range a.turn.Calls {
		n += len(c.Args)/4 + 5
	}
	return n
}

func (a answer) callID(prefix string, i int) string { return fmt.Sprintf("%s_%s_%d", prefix, a.id, i) }

// args is a call's arguments as the API carries them in a string: the
// JSON text of an object, or a custom tool's free-form input.
func (a answer) args(c Call) string {
	if a.req.tools[c.Name] == "custom" {
		var s string
		if json.Unmarshal(c.Args, &s) == nil {
			return s
		}
	}
	return string(c.Args)
}

// halves cuts s in two at a character boundary, so every answer streams
// in more than one delta, as the real APIs do.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return []string{s[:i], s[i:]}
}

// sse writes server-sent events, each flushed at once.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes an event; an empty name writes a data line only.
func (s sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s sse) done() {
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

type obj = map[string]any

// anthropic answers as the Messages API.
func (a answer) anthropic(w http.ResponseWriter) {
	stop := "end_turn"
	var content []obj
	if a.turn.Text != "" {
		content = append(content, obj{"type": "text", "text": a.turn.Text})
	}
	for i, c := range a.turn.Calls {
		content = append(content, obj{"type": "tool_use", "id": a.callID("toolu", i), "name": c.Name, "input": c.Args})
		stop = "tool_use"
	}
	usage := obj{"input_tokens": a.inTokens, "output_tokens": a.outTokens(), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := obj{"id": "msg_" + a.id, "type": "message", "role": "assistant", "model": a.req.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage}
	if !a.req.stream {
		if content == nil {
			msg["content"] = []obj{}
		}
		writeJSON(w, http.StatusOK, msg)
		return
	}
	s := newSSE(w)
	start := obj{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []obj{}, nil
	start["usage"] = obj{"input_tokens": a.inTokens, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	s.event("message_start", obj{"type": "message_start", "message": start})
	s.event("ping", obj{"type": "ping"})
	index := 0
	if a.turn.Text != "" {
		s.event("content_block_start", obj{"type": "content_block_start", "index": index, "content_block": obj{"type": "text", "text": ""}})
		for _, part := range halves(a.turn.Text) {
			s.event("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": obj{"type": "text_delta", "text": part}})
		}
		s.event("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	for i, c := range a.turn.Calls {
		s.event("content_block_start", obj{"type": "content_block_start", "index": index,
			"content_block": obj{"type": "tool_use", "id": a.callID("toolu", i), "name": c.Name, "input": obj{}}})
		for _, part := range halves(string(c.Args)) {
			s.event("content_block_delta", obj{"type": "content_block_delta", "index": index, "delta": obj{"type": "input_json_delta", "partial_json": part}})
		}
		s.event("content_block_stop", obj{"type": "content_block_stop", "index": index})
		index++
	}
	s.event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"output_tokens": a.outTokens()}})
	s.event("message_stop", obj{"type": "message_stop"})
}

// responses answers as OpenAI's Responses API.
func (a answer) responses(w http.ResponseWriter) {
	created := time.Now().Unix()
	var output []obj
	if a.turn.Text != "" {
		output = append(output, obj{"type": "message", "id": "msg_" + a.id, "status": "completed", "role": "assistant",
			"content": []obj{{"type": "output_text", "text": a.turn.Text, "annotations": []any{}}}})
	}
	for i, c := range a.turn.Calls {
		if a.req.tools[c.Name] == "custom" {
			output = append(output, obj{"type": "custom_tool_call", "id": a.callID("ctc", i), "call_id": a.callID("call", i),
				"name": c.Name, "input": a.args(c), "status": "completed"})
			continue
		}
		output = append(output, obj{"type": "function_call", "id": a.callID("fc", i), "call_id": a.callID("call", i),
			"name": c.Name, "arguments": a.args(c), "status": "completed"})
	}
	usage := obj{"input_tokens": a.inTokens, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": a.outTokens(), "output_tokens_details": obj{"reasoning_tokens": 0},
		"total_tokens": a.inTokens + a.outTokens()}
	resp := func(status string, out []obj, u any) obj {
		if out == nil {
			out = []obj{}
		}
		return obj{"id": "resp_" + a.id, "object": "response", "created_at": created, "status": status,
			"model": a.req.model, "output": out, "usage": u}
	}
	if !a.req.stream {
		writeJSON(w, http.StatusOK, resp("completed", output, usage))
		return
	}
	s := newSSE(w)
	seq := 0
	ev := func(name string, v obj) {
		v["type"], v["sequence_number"] = name, seq
		seq++
		s.event(name, v)
	}
	ev("response.created", obj{"response": resp("in_progress", nil, nil)})
	ev("response.in_progress", obj{"response": resp("in_progress", nil, nil)})
	for i, item := range output {
		added := obj{}
		for k, v := range item {
			added[k] = v
		}
		added["status"] = "in_progress"
		switch item["type"] {
		case "message":
			added["content"] = []obj{}
			ev("response.output_item.added", obj{"output_index": i, "item": added})
			part := obj{"type": "output_text", "text": "", "annotations": []any{}}
			ev("response.content_part.added", obj{"item_id": item["id"], "output_index": i, "content_index": 0, "part": part})
			for _, d := range halves(a.turn.Text) {
				ev("response.output_text.delta", obj{"item_id": item["id"], "output_index": i, "content_index": 0, "delta": d})
			}
			ev("response.output_text.done", obj{"item_id": item["id"], "output_index": i, "content_index": 0, "text": a.turn.Text})
			ev("response.content_part.done", obj{"item_id": item["id"], "output_index": i, "content_index": 0,
				"part": obj{"type": "output_text", "text": a.turn.Text, "annotations": []any{}}})
		case "function_call":
			added["arguments"] = ""
			ev("response.output_item.added", obj{"output_index": i, "item": added})
			args := item["arguments"].(string)
			for _, d := range halves(args) {
				ev("response.function_call_arguments.delta", obj{"item_id": item["id"], "output_index": i, "delta": d})
			}
			ev("response.function_call_arguments.done", obj{"item_id": item["id"], "output_index": i, "arguments": args})
		case "custom_tool_call":
			added["input"] = ""
			ev("response.output_item.added", obj{"output_index": i, "item": added})
			input := item["input"].(string)
			for _, d := range halves(input) {
				ev("response.custom_tool_call_input.delta", obj{"item_id": item["id"], "output_index": i, "delta": d})
			}
			ev("response.custom_tool_call_input.done", obj{"item_id": item["id"], "output_index": i, "input": input})
		}
		ev("response.output_item.done", obj{"output_index": i, "item": item})
	}
	ev("response.completed", obj{"response": resp("completed", output, usage)})
}

// chat answers as OpenAI's Chat Completions API.
func (a answer) chat(w http.ResponseWriter) {
	created := time.Now().Unix()
	finish := "stop"
	var calls []obj
	for i, c := range a.turn.Calls {
		calls = append(calls, obj{"id": a.callID("call", i), "type": "function",
			"function": obj{"name": c.Name, "arguments": a.args(c)}})
		finish = "tool_calls"
	}
	usage := obj{"prompt_tokens": a.inTokens, "completion_tokens": a.outTokens(), "total_tokens": a.inTokens + a.outTokens()}
	if !a.req.stream {
		msg := obj{"role": "assistant", "content": a.turn.Text}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, obj{"id": "chatcmpl-" + a.id, "object": "chat.completion", "created": created,
			"model": a.req.model, "choices": []obj{{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	s := newSSE(w)
	chunk := func(delta obj, finish any, u any) {
		c := obj{"id": "chatcmpl-" + a.id, "object": "chat.completion.chunk", "created": created, "model": a.req.model,
			"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}}
		if u != nil {
			c["usage"] = u
		}
		s.event("", c)
	}
	chunk(obj{"role": "assistant", "content": ""}, nil, nil)
	for _, part := range halves(a.turn.Text) {
		if part != "" {
			chunk(obj{"content": part}, nil, nil)
		}
	}
	for i, c := range calls {
		f := c["function"].(obj)
		parts := halves(f["arguments"].(string))
		chunk(obj{"tool_calls": []obj{{"index": i, "id": c["id"], "type": "function",
			"function": obj{"name": f["name"], "arguments": parts[0]}}}}, nil, nil)
		for _, part := range parts[1:] {
			chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": part}}}}, nil, nil)
		}
	}
	chunk(obj{}, finish, nil)
	s.event("", obj{"id": "chatcmpl-" + a.id, "object": "chat.completion.chunk", "created": created, "model": a.req.model,
		"choices": []obj{}, "usage": usage})
	s.done()
}

// gemini answers as the Gemini API's generateContent (one object) or
// streamGenerateContent (server-sent events with ?alt=sse, a JSON array
// otherwise).
func (a answer) gemini(w http.ResponseWriter) {
	var parts []obj
	if a.turn.Text != "" {
		parts = append(parts, obj{"text": a.turn.Text})
	}
	for _, c := range a.turn.Calls {
		parts = append(parts, obj{"functionCall": obj{"name": c.Name, "args": c.Args}})
	}
	usage := obj{"promptTokenCount": a.inTokens, "candidatesTokenCount": a.outTokens(), "totalTokenCount": a.inTokens + a.outTokens()}
	chunk := func(parts []obj, finish string) obj {
		if parts == nil {
			parts = []obj{}
		}
		cand := obj{"content": obj{"role": "model", "parts": parts}, "index": 0}
		c := obj{"candidates": []obj{cand}, "modelVersion": a.req.model, "responseId": "resp_" + a.id}
		if finish != "" {
			cand["finishReason"] = finish
			c["usageMetadata"] = usage
		}
		return c
	}
	if !a.req.stream {
		writeJSON(w, http.StatusOK, chunk(parts, "STOP"))
		return
	}
	// The text in two chunks, then each call, the last chunk carrying the
	// finish reason and the usage.
	var chunks [][]obj
	if a.turn.Text != "" {
		for _, t := range halves(a.turn.Text) {
			chunks = append(chunks, []obj{{"text": t}})
		}
	}
	for _, p := range parts {
		if _, ok := p["functionCall"]; ok {
			chunks = append(chunks, []obj{p})
		}
	}
	if len(chunks) == 0 {
		chunks = append(chunks, nil)
	}
	var out []obj
	for i, c := range chunks {
		finish := ""
		if i == len(chunks)-1 {
			finish = "STOP"
		}
		out = append(out, chunk(c, finish))
	}
	if a.req.array {
		writeJSON(w, http.StatusOK, out)
		return
	}
	s := newSSE(w)
	for _, c := range out {
		s.event("", c)
	}
}

// modelOf is the model a Gemini request names in its path
// (.../models/NAME:method).
func modelOf(path string) string {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return ""
	}
	m := path[i+len("/models/"):]
	if j := strings.IndexByte(m, ':'); j >= 0 {
		m = m[:j]
	}
	return m
}

// fromSchema is the smallest value a JSON schema (OpenAPI's, as Gemini's
// responseJsonSchema and responseSchema: types in either case) accepts:
// the answer to side requests that want JSON (Gemini CLI's model router,
// its next-speaker check), so they take the stand-in's word and go on.
func fromSchema(schema map[string]any, text string) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	switch strings.ToLower(typ) {
	case "object":
		out := obj{}
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				out[name] = fromSchema(ps, text)
			}
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "string":
		return text
	}
	return nil
}
