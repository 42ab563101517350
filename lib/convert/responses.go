package convert

import "strings"

// A Responses API transcript is an array of items (a request's input, a
// response's output, or both one after the other), a response object
// {"object": "response", "model", "output", "usage", "instructions", ...},
// or a request {"model", "instructions", "input", ...}, which may carry
// the response's output beside its input. The items are read by
// respItems, shared with the Codex reader.

// responsesItemType reports the item types of the Responses API.
func responsesItemType(t string) bool {
	switch t {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
		"local_shell_call", "local_shell_call_output", "web_search_call", "file_search_call", "computer_call",
		"computer_call_output", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools",
		"mcp_approval_request", "mcp_approval_response", "item_reference", "compaction":
		return true
	}
	return false
}

// responsesItems reports whether v is a non-empty list of Responses items:
// each an object with a type, at least one of a type the API defines,
// messages with the API's own content parts (input_text, output_text,
// ...) or a string.
func responsesItems(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	known := false
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		t, ok := m["type"].(string)
		if !ok {
			return false
		}
		known = known || responsesItemType(t)
		if t != "message" {
			continue
		}
		if _, ok := m["content"].(string); ok {
			continue
		}
		parts, ok := m["content"].([]any)
		if !ok {
			return false
		}
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			pt, _ := pm["type"].(string)
			if !strings.HasPrefix(pt, "input_") && !strings.HasPrefix(pt, "output_") && pt != "refusal" {
				return false
			}
		}
	}
	return known
}

func isResponses(v any) bool {
	if m, ok := v.(map[string]any); ok {
		if m["object"] == "response" {
			_, ok := m["output"].([]any)
			return ok
		}
		if _, ok := m["messages"]; ok {
			return false
		}
		return responsesItems(m["input"]) || responsesItems(m["output"])
	}
	return responsesItems(v)
}

// responsesParams are a request's fields that are model parameters.
func responsesParams() []string {
	return []string{"temperature", "top_p", "max_output_tokens", "max_tool_calls", "reasoning", "text", "tool_choice",
		"parallel_tool_calls", "truncation", "service_tier", "top_logprobs", "seed", "store", "background"}
}

func convertResponses(d *document, w *writer) error { return d.withLine(convertResponsesDoc(d, w)) }

func convertResponsesDoc(d *document, w *writer) error {
	return responsesRun(d.first(), w, runFields{Metadata: map[string]any{"source_format": "responses"}})
}

// responsesRun maps a request and its response, or a list of items, as a
// run whose fields r begins.
func responsesRun(n node, w *writer, r runFields) error {
	input, output := n, node{}
	var usage map[string]any
	var inputText *string
	if m, ok := n.obj(); ok {
		model, err := n.key("model").optStr()
		if err != nil {
			return err
		}
		if model != "" {
			r.Model = model
		}
		for _, k := range responsesParams() {
			r.Parameters = setIf(r.Parameters, k, m[k])
		}
		r.Created = unixTime(m["created_at"], 0)
		known := append([]string{"model", "input", "output", "instructions", "usage", "created_at", "object"}, responsesParams()...)
		r.Metadata = setIf(r.Metadata, "record", rest(m, known...))
		ins := n.key("instructions")
		if s, ok := ins.str(); ok {
			r.SystemPrompt = &s
		} else if _, ok := ins.arr(); ok {
			text, _, _ := textOf(ins)
			r.SystemPrompt = &text
		}
		input, output = n.key("input"), n.key("output")
		if s, ok := input.str(); ok {
			inputText = &s
		} else if !input.null() {
			if _, err := input.needArr(); err != nil {
				return err
			}
		}
		if !output.null() {
			if _, err := output.needArr(); err != nil {
				return err
			}
		}
		if u, ok := m["usage"].(map[string]any); ok {
			usage = responsesUsage(u)
		}
	} else if _, err := n.needArr(); err != nil {
		return err
	}
	if outs, _ := output.arr(); len(outs) == 0 && usage != nil {
		// No output item to carry it: the usage is the run's.
		r.Metadata = setIf(r.Metadata, "usage", usage)
		usage = nil
	}
	ri := newRespItems(w, newSteps(w))
	ri.model = r.Model
	if r.SystemPrompt == nil {
		sys, text, _ := findSystem(input)
		ri.skip, r.SystemPrompt = sys, text
	}
	if err := w.run(r); err != nil {
		return err
	}
	if inputText != nil {
		if err := ri.prompt("user", *inputText, nil); err != nil {
			return err
		}
	}
	for k, list := range []node{input, output} {
		items, _ := list.arr()
		for i := range items {
			if err := ri.item(list.idx(i), i, ""); err != nil {
				return err
			}
		}
		ri.skip = -1
		// The response's usage goes on the first step of its output.
		var u map[string]any
		if k == 1 {
			u = usage
		}
		if err := ri.endRequest(u); err != nil {
			return err
		}
	}
	if ri.usage != nil {
		w.warnf("the response's usage belongs to no step of its output; not converted")
	}
	if err := ri.close(); err != nil {
		return err
	}
	if err := ri.q.close(); err != nil {
		return err
	}
	return w.close(r)
}
