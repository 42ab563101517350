package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// Claude Code runs a sub-agent for a Task (Agent) call and writes its
// turns to a transcript of their own: <session>/subagents/agent-ID.jsonl
// since 2.1 (beside it, agent-ID.meta.json), agent-ID.jsonl beside the
// session before; every record isSidechain, with the agentId. The
// parent's result of the call names the agent (toolUseResult.agentId).
// The sub-agent's steps are the run's: they follow the call that started
// them, each marked metadata.subagent {agent_id, tool_call_id, type,
// model}, and what it wrote is the run's output. Side-chains no call
// names (the warm-up of older versions, the compaction's summary,
// agent-acompact-*) are the harness's and are not read.

// maxAgentDepth bounds sub-agents started by sub-agents.
const maxAgentDepth = 4

// SubagentFiles returns the files Claude Code keeps for the sub-agents of
// the session transcript at path (PROJECT/SESSION.jsonl): everything in
// PROJECT/SESSION/subagents/ (agent-ID.jsonl, agent-ID.meta.json, the
// compaction's agent-acompact-ID.jsonl), and, as older versions wrote
// them, the agent-ID.jsonl beside the session whose records name its
// session id. Sorted; nil when there are none. ctx convert reads, of
// these, the transcripts a call of the session names; give the others to
// keep the session whole (ctx capture).
func SubagentFiles(path string) ([]string, error) {
	dir, stem := filepath.Dir(path), sessionStem(path)
	var out []string
	entries, err := os.ReadDir(filepath.Join(dir, stem, "subagents"))
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, stem, "subagents", e.Name()))
		}
	}
	beside, err := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	if err != nil {
		return nil, err
	}
	for _, p := range beside {
		if agentSession(p) == stem {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// sessionStem is a session file's name without .gz and .jsonl: its id.
func sessionStem(path string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".jsonl")
}

// agentSession reads the sessionId of an agent transcript's first record.
func agentSession(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := pack.ReadLine(bufio.NewReaderSize(f, 64<<10), nil)
	var head struct {
		SessionID string `json:"sessionId"`
	}
	if !lineObject(line, &head) {
		return ""
	}
	return head.SessionID
}

// agentID is the id an agent transcript's name gives (agent-ID.jsonl).
func agentID(path string) (string, bool) {
	name := strings.TrimSuffix(filepath.Base(path), ".gz")
	id, ok := strings.CutSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl")
	return id, ok && strings.HasPrefix(name, "agent-") && id != ""
}

// ccAgents finds the sub-agents' transcripts of a session and remembers
// how much of each was read (an agent continued later appends to its
// file: only what follows is new).
type ccAgents struct {
	session string            // the session file, when read from a path
	given   map[string]string // agent id -> transcript, Options.Subagents
	read    map[string]int    // agent id -> records read
	prompts map[string]string // call id -> the prompt it gave, until its sub-agent repeats it
	missing []string          // what was named and not found, for a warning
	found   []string
	err     error // a transcript given that cannot be read
}

func newCCAgents(opts Options) *ccAgents {
	a := &ccAgents{session: opts.path, read: map[string]int{}}
	for _, p := range opts.Subagents {
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			a.err = &InputError{Msg: fmt.Sprintf("the sub-agents' transcripts %s: %v", p, err)}
			continue
		}
		if fi.IsDir() {
			files, _ := filepath.Glob(filepath.Join(p, "agent-*.jsonl*"))
			for _, f := range files {
				a.give(f)
			}
			continue
		}
		a.give(p)
	}
	return a
}

func (a *ccAgents) give(p string) {
	if id, ok := agentID(p); ok {
		if a.given == nil {
			a.given = map[string]string{}
		}
		a.given[id] = p
	}
}

// find returns the transcript of agent id: one given, else the one
// beside the session (2.1 and later in SESSION/subagents/, older ones in
// the project folder).
func (a *ccAgents) find(id string) string {
	if p, ok := a.given[id]; ok {
		return p
	}
	if a.session == "" || strings.ContainsAny(id, `/\`) {
		return ""
	}
	dir := filepath.Dir(a.session)
	for _, p := range []string{
		filepath.Join(dir, sessionStem(a.session), "subagents", "agent-"+id+".jsonl"),
		filepath.Join(dir, "agent-"+id+".jsonl"),
	} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// note says which sub-agents were read and warns of those not found.
func (a *ccAgents) note(w *writer) {
	if a == nil {
		return
	}
	if len(a.found) > 0 {
		w.notef("%d sub-agent transcript(s) read, their steps after the call that started each: %s", len(a.found), strings.Join(a.found, ", "))
	}
	if len(a.missing) > 0 {
		w.warnf("the transcripts of %d sub-agent(s) were not found (%s): their work is not in the log; give them with --subagents (ctx convert) or Options.Subagents", len(a.missing), strings.Join(a.missing, ", "))
	}
}

// subagent reads the transcript of the agent a call started (the call
// at step idx, with id callID), after the call's steps.
func (c *claudeCode) subagent(agent, callID string, idx int, params map[string]any) error {
	if c.agents == nil {
		return nil // the headless stream holds the sub-agent's records
	}
	path := c.agents.find(agent)
	if path == "" {
		c.agents.missing = append(c.agents.missing, fmt.Sprintf("%s of steps[%d]", agent, idx))
		return nil
	}
	if c.depth >= maxAgentDepth {
		c.w.warnf("the sub-agent %s of steps[%d] is more than %d sub-agents deep: not read", agent, idx, maxAgentDepth)
		return nil
	}
	mark := map[string]any{"agent_id": agent, "tool_call_id": callID}
	mark = setIf(mark, "type", params["subagent_type"])
	sub := &claudeCode{w: c.w, q: c.q, run: c.run, sawCwd: true, cwd: c.cwd, ticks: c.ticks, skipped: map[string]string{},
		agents: c.agents, mark: mark, depth: c.depth + 1}
	sub.agents.prompt(callID, params)
	rel := path
	if c.agents.session != "" {
		if r, err := filepath.Rel(filepath.Dir(c.agents.session), path); err == nil {
			rel = r
		}
	}
	n, err := sub.readFile(path, c.agents.read[agent])
	if err != nil {
		return &InputError{Msg: fmt.Sprintf("%s (the sub-agent of steps[%d]): %v", rel, idx, err)}
	}
	if n > c.agents.read[agent] {
		c.agents.found = append(c.agents.found, rel)
	}
	c.agents.read[agent] = n
	return sub.end()
}

// readFile reads a transcript's records after the first skip, and
// returns how many it holds.
func (c *claudeCode) readFile(path string, skip int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return 0, err
		}
		defer gz.Close()
		r = newBudget(c.w.opts.MaxExpanded).reader(gzipErrors{gz}, "the gzip stream")
	}
	lines := bufio.NewReaderSize(r, 1<<20)
	n := 0
	for lineNo := 1; ; lineNo++ {
		line, err := pack.ReadLine(lines, nil)
		if err != nil && err != io.EOF {
			return n, err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			n++
			if n > skip {
				if perr := c.line(t, lineNo); perr != nil {
					return n, perr
				}
			}
		}
		if err == io.EOF {
			return n, nil
		}
	}
}

// prompt remembers the prompt a call gave its sub-agent: the sub-agent's
// first user text repeats it.
func (a *ccAgents) prompt(callID string, params map[string]any) {
	if a.prompts == nil {
		a.prompts = map[string]string{}
	}
	if p, ok := params["prompt"].(string); ok {
		a.prompts[callID] = p
	}
}

// agentText is text a sub-agent was given as a user's: the prompt of the
// call that started it (a repeat of the call's parameter, not written),
// or what the parent sent it later: never the user's words, so an event
// step subagent_prompt.
func (c *claudeCode) agentText(text, ts string, lm map[string]any) error {
	id, _ := c.mark["tool_call_id"].(string)
	prompts := c.prompts()
	if p, ok := prompts[id]; ok && strings.TrimSpace(p) == strings.TrimSpace(text) {
		delete(prompts, id)
		return nil
	}
	_, err := c.q.add(stepRec{Type: "event", Tool: "subagent_prompt", Output: &text, Timestamp: ts, Meta: lm})
	return err
}

// prompts are the prompts calls gave their sub-agents, not yet seen: in
// a session, those the reader of the sub-agent's file was given; in the
// stream, the parameters of the call still waiting for its result.
func (c *claudeCode) prompts() map[string]string {
	if c.agents != nil {
		return c.agents.prompts
	}
	if c.streamPrompts == nil {
		c.streamPrompts = map[string]string{}
	}
	id, _ := c.mark["tool_call_id"].(string)
	if _, seen := c.streamSeen[id]; !seen {
		if c.streamSeen == nil {
			c.streamSeen = map[string]bool{}
		}
		c.streamSeen[id] = true
		if call := c.q.pending(id); call != nil {
			if p, ok := call.step.Params["prompt"].(string); ok {
				c.streamPrompts[id] = p
			}
		}
	}
	return c.streamPrompts
}

// boundary holds a compaction's boundary until the record after it, the
// summary that continues the session, which it is written with.
func (c *claudeCode) boundary(obj, meta map[string]any, ts string) error {
	if err := c.flushCompact(); err != nil {
		return err
	}
	// What started it and how large the conversation was, in the
	// session's and in the stream's spelling.
	var sm map[string]any
	for _, k := range [][3]string{{"compactMetadata", "trigger", "preTokens"}, {"compact_metadata", "trigger", "pre_tokens"}} {
		if cm, ok := meta[k[0]].(map[string]any); ok {
			sm = setIf(sm, "trigger", cm[k[1]])
			sm = setIf(sm, "pre_tokens", cm[k[2]])
			if len(rest(cm, k[1], k[2])) == 0 {
				delete(meta, k[0])
			}
		}
	}
	s := stepRec{Type: "event", Tool: "compaction", Timestamp: ts}
	if t, ok := obj["content"].(string); ok {
		s.Output = &t
		delete(meta, "content")
	}
	s.Meta = setIf(sm, "boundary", meta)
	c.compact = &s
	return nil
}

// summary writes a compaction with the summary that continues the
// session as its output: the model read it in place of the conversation.
func (c *claudeCode) summary(text string, has bool, ts string, lm map[string]any) error {
	s := stepRec{Type: "event", Tool: "compaction", Timestamp: ts}
	if c.compact != nil {
		s = *c.compact
		c.compact = nil
	}
	if has {
		s.Output = &text
	}
	s.Meta = setIf(s.Meta, "summary", lm)
	_, err := c.q.add(s)
	return err
}

// flushCompact writes a boundary no summary followed.
func (c *claudeCode) flushCompact() error {
	if c.compact == nil {
		return nil
	}
	s := *c.compact
	c.compact = nil
	_, err := c.q.add(s)
	return err
}
