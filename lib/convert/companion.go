package convert

import (
	"bytes"
	"encoding/json"
)

// Agents write files beside their transcripts that look like one but hold
// part of a run, or what a screen showed: Cline's ui_messages.json, a
// sample or summary taken out of an Inspect .eval archive, the prompt
// history of Codex, Claude Code and Gemini CLI. Read as a transcript, such
// a file converts into a run with nothing in it, or fails with a message
// that does not help; ctx refuses it, naming the file to give instead.

// CompanionError is a file that goes with a transcript but is not one.
type CompanionError struct {
	What string // what the file is
	Give string // the file to give instead
}

// Error names the file and the one to give.
func (e *CompanionError) Error() string {
	return "this is " + e.What + ", not a transcript; give " + e.Give
}

// companionDoc recognises a companion file read whole.
func companionDoc(v any) *CompanionError {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return nil
		}
		m, _ := x[0].(map[string]any)
		if m == nil {
			return nil
		}
		_, ts := m["ts"].(json.Number)
		if typ, _ := m["type"].(string); ts && (typ == "say" || typ == "ask") {
			return &CompanionError{What: "Cline's ui_messages.json (what the task panel showed)", Give: "api_conversation_history.json from the same task directory"}
		}
		_, id := m["id"]
		_, epoch := m["epoch"]
		_, msgs := m["messages"]
		if id && epoch && !msgs {
			if _, ok := m["scores"]; ok {
				return &CompanionError{What: "the sample summaries of an Inspect .eval archive (summaries.json)", Give: "the .eval file itself"}
			}
		}
		_, sid := m["sessionId"].(string)
		_, mid := m["messageId"]
		if sid && mid {
			if _, ok := m["message"].(string); ok {
				return &CompanionError{What: "Gemini CLI's logs.json (the prompts typed, without the answers)", Give: "the chat recording, chats/session-*.json(l) in the same project directory"}
			}
		}
	case map[string]any:
		_, id := x["id"]
		_, epoch := x["epoch"].(json.Number)
		_, msgs := x["messages"].([]any)
		_, input := x["input"]
		_, eval := x["eval"]
		if id && epoch && msgs && input && !eval {
			return &CompanionError{What: "one sample of an Inspect .eval archive (samples/ID_epoch_N.json)", Give: "the .eval file itself (--sample ID:EPOCH picks the sample)"}
		}
		if isOHV1State(x) {
			return &CompanionError{What: "the state of an OpenHands V1 conversation (base_state.json)", Give: "it with its events: cat conversations/ID/base_state.json conversations/ID/events/*.json | ctx convert -"}
		}
		_, samples := x["samples"]
		_, failed := x["error"]
		if _, ok := x["eval"].(map[string]any); ok && !samples && !failed {
			if _, ok := x["plan"]; ok {
				return &CompanionError{What: "the header of an Inspect .eval archive (header.json or _journal/start.json, without the samples)", Give: "the .eval file itself"}
			}
		}
	}
	return nil
}

// companionLine recognises a line-based companion file from its first
// line.
func companionLine(line []byte) *CompanionError {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return nil
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				return false
			}
		}
		return len(m) <= len(keys)+1
	}
	if _, ok := m["responses_create_params"]; ok {
		if _, ok := m["response"]; !ok {
			return &CompanionError{What: "the tasks of a NeMo Gym dataset (each line a request, no rollout)", Give: "the rollouts ng_collect_rollouts wrote from it (one rollout per line, with its response and reward)"}
		}
	}
	switch {
	case has("session_id", "ts", "text"):
		return &CompanionError{What: "Codex's history.jsonl (the prompts typed in every session)", Give: "a session's rollout, ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl"}
	case has("display", "pastedContents", "timestamp"):
		return &CompanionError{What: "Claude Code's history.jsonl (the prompts typed in every project)", Give: "a session transcript, ~/.claude/projects/PROJECT/SESSION.jsonl"}
	}
	return nil
}

// isOHV1State recognises an OpenHands V1 conversation's base_state.json.
func isOHV1State(m map[string]any) bool {
	_, agent := m["agent"].(map[string]any)
	_, workspace := m["workspace"]
	_, persist := m["persistence_dir"]
	return agent && workspace && persist
}
