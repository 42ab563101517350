package convert

import "strings"

// Anthropic-style content blocks, as the Messages API, Claude Code, Cline
// and pi write them, are read here once: which block is a call, and what a
// call block gives (id, tool, parameters, and the metadata every reader
// keeps). Each reader decides where the steps go.

// callBlock reports a block that is a tool call: tool_use, a server's
// (server_tool_use, mcp_tool_use, any *_tool_use), or pi's toolCall.
func callBlock(typ string) bool {
	return typ == "tool_use" || strings.HasSuffix(typ, "_tool_use") || typ == "toolCall"
}

// resultBlock reports a block that is a tool's result: tool_result, or a
// server tool's (*_tool_result).
func resultBlock(typ string) bool {
	return typ == "tool_result" || strings.HasSuffix(typ, "_tool_result")
}

// blockCall reads a call block into a tool_call step whose metadata starts
// from meta: the arguments (input, or pi's arguments), arguments that are
// not JSON, a server tool's block type, and the block's other fields.
func blockCall(b node, bm map[string]any, typ string, meta map[string]any, ts string) (id string, s stepRec, err error) {
	if id, err = b.key("id").optStr(); err != nil {
		return "", s, err
	}
	name, err := b.key("name").optStr()
	if err != nil {
		return "", s, err
	}
	argKey := "input"
	if typ == "toolCall" {
		argKey = "arguments"
	}
	params, bad := parseArguments(bm[argKey])
	meta = setIf(meta, "arguments_not_json", bad)
	if strings.HasSuffix(typ, "_tool_use") {
		meta = setIf(meta, "block_type", typ)
	}
	meta = setIf(meta, "block_extra", rest(bm, "type", "id", "name", argKey))
	return id, stepRec{Type: "tool_call", Tool: name, Params: params, Timestamp: ts, Meta: meta}, nil
}

// blockThinking reads a thinking block's text; a redacted one has none.
func blockThinking(b node, typ string) (*string, error) {
	if typ == "redacted_thinking" {
		return nil, nil
	}
	s, err := b.key("thinking").optStr()
	if err != nil {
		return nil, err
	}
	return &s, nil
}
