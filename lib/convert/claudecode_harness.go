package convert

import (
	"fmt"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// What Claude Code writes beside the conversation: progress ticks of
// running tools and hooks, text the harness puts in user records (slash
// commands, their output, interrupt markers, reminders), and the answer a
// refused tool call gets.

// progress drops a progress record: it is counted, its uuid is
// remembered for the lines that name it as parent, and a call it shows
// running is known to have started.
func (c *claudeCode) progress(obj map[string]any) {
	kind := "progress"
	if d, ok := obj["data"].(map[string]any); ok {
		if t, _ := d["type"].(string); t != "" {
			kind = t
		}
	}
	c.ticks[kind]++
	if u, _ := obj["uuid"].(string); u != "" {
		parent, _ := obj["parentUuid"].(string)
		if r, ok := c.skipped[parent]; ok {
			parent = r
		}
		if _, seen := c.skipped[u]; !seen {
			c.skippedFIFO = append(c.skippedFIFO, u)
			if len(c.skippedFIFO) > maxSkipped {
				delete(c.skipped, c.skippedFIFO[0])
				c.skippedFIFO = c.skippedFIFO[1:]
			}
		}
		c.skipped[u] = parent
	}
	if id, _ := obj["parentToolUseID"].(string); id != "" {
		if p := c.q.pending(id); p != nil {
			p.started = true
		} else if c.turn != nil {
			// The call's turn is still being read.
			for i := range c.turn.items {
				if c.turn.items[i].id == id {
					c.turn.items[i].started = true
				}
			}
		}
	}
}

// relink makes a line whose parent is a dropped progress record name that
// record's nearest ancestor instead (none, when the ticks began the
// session).
func (c *claudeCode) relink(obj map[string]any) {
	p, ok := obj["parentUuid"].(string)
	if !ok {
		return
	}
	if r, ok := c.skipped[p]; ok {
		if r == "" {
			obj["parentUuid"] = nil
		} else {
			obj["parentUuid"] = r
		}
	}
}

// noteTicks says how many progress records were dropped, by kind.
func (c *claudeCode) noteTicks() {
	total := 0
	var kinds []string
	for _, k := range sortedKeys(c.ticks) {
		total += c.ticks[k]
		kinds = append(kinds, fmt.Sprintf("%s %d", k, c.ticks[k]))
	}
	if total == 0 {
		return
	}
	word := "records"
	if total == 1 {
		word = "record"
	}
	c.w.notef("%d progress %s dropped (%s): ticks of running tools, hooks and subagents are not steps", total, word, strings.Join(kinds, ", "))
}

// The interrupt markers Claude Code writes as a user record.
const (
	ccInterrupt        = "[Request interrupted by user]"
	ccInterruptForTool = "[Request interrupted by user for tool use]"
)

// ccHarnessTags are the leading tags of text the harness writes into
// user records, each with the event step it becomes.
func ccHarnessTags() [][2]string {
	return [][2]string{
		{"<command-name>", "slash_command"},
		{"<command-message>", "slash_command"},
		{"<command-args>", "slash_command"},
		{"<local-command-stdout>", "command_output"},
		{"<local-command-stderr>", "command_output"},
		{"<local-command-caveat>", "meta"},
		{"<bash-input>", "user_shell"},
		{"<bash-stdout>", "user_shell_output"},
		{"<bash-stderr>", "user_shell_output"},
		{"<system-reminder>", "system_reminder"},
		{"<task-notification>", "task_notification"},
		{"<user-prompt-submit-hook>", "hook_output"},
	}
}

// ccHarness returns the event a user record's text becomes when the
// harness wrote it, or "" when the user typed it.
func ccHarness(text string) string {
	t := strings.TrimSpace(text)
	if t == ccInterrupt || t == ccInterruptForTool {
		return "interrupt"
	}
	for _, tag := range ccHarnessTags() {
		if strings.HasPrefix(t, tag[0]) {
			return tag[1]
		}
	}
	return ""
}

// tagText returns the text inside <tag>...</tag> in s, if any.
func tagText(s, tag string) string {
	_, after, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	in, _, ok := strings.Cut(after, "</"+tag+">")
	if !ok {
		return ""
	}
	return strings.TrimSpace(in)
}

// harness writes harness text as an event step of its kind, in the order
// it came. An interrupt also marks the calls still waiting: without a
// result to come, they never ran.
func (c *claudeCode) harness(kind, text, ts string, meta map[string]any) error {
	if kind == "slash_command" {
		meta = setIf(meta, "command", tagText(text, "command-name"))
		meta = setIf(meta, "args", tagText(text, "command-args"))
	}
	if kind == "interrupt" {
		c.q.interruptOpen()
	}
	out := text
	// The interrupt marker and the caveat of local commands are the
	// harness's bookkeeping; the rest (commands, their output, reminders,
	// hooks) is what the user did or the model was shown.
	book := kind == "interrupt" || kind == "meta"
	_, err := c.q.add(stepRec{Type: "event", Tool: kind, Output: &out, Timestamp: ts, Meta: meta, Bookkeeping: book})
	return err
}

// The answer Claude Code gives a call the user refused; the second form
// goes on with what the user typed.
const (
	ccRefused        = "The user doesn't want to proceed with this tool use."
	ccRefusedOlder   = "The user doesn't want to take this action right now."
	ccRefusedSaid    = "To tell you how to proceed, the user said:\n"
	ccRefusedRecord  = "User rejected tool use"
	ccRefusedRecord2 = "Error: " + ccRefused
)

// ccRefusal reports whether a tool result says the call never ran: the
// user refused it (the refusal text, or toolUseResult saying so), or
// interrupted before it started (the interrupt marker as its result, with
// no progress shown for it).
func ccRefusal(text string, isError bool, tur any, call *queued) bool {
	if isError && (strings.HasPrefix(text, ccRefused) || strings.HasPrefix(text, ccRefusedOlder)) {
		return true
	}
	if s, ok := tur.(string); ok && (s == ccRefusedRecord || strings.HasPrefix(s, ccRefusedRecord2)) {
		return true
	}
	return strings.TrimSpace(text) == ccInterruptForTool && (call == nil || !call.started)
}

// refusalFeedback returns what the user typed when refusing a call.
func refusalFeedback(text string) (string, bool) {
	_, said, ok := strings.Cut(text, ccRefusedSaid)
	if !ok || strings.TrimSpace(said) == "" {
		return "", false
	}
	return said, true
}

// rejected marks a call's result as a refusal: the step is rejected (it
// never ran, and replay never runs it), and what the user typed with the
// refusal is a prompt, for it is the user's words.
func (c *claudeCode) rejected(r *callResult, id string, meta map[string]any) error {
	r.Outcome = pack.OutcomeRejected
	said, ok := refusalFeedback(r.Text)
	if !ok {
		return nil
	}
	pm := map[string]any{"rejection_feedback": true}
	pm = setIf(pm, "tool_call_id", id)
	for _, k := range []string{"uuid", "timestamp"} {
		pm = setIf(pm, k, meta[k])
	}
	return c.q.prompt("user", said, pm)
}
