package mcp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// The names of a session's parts in its pack: the server's initialize
// result and its tool list are inputs, each tools/call a step.
// A client of the protocol's 2026-07-28 version asks server/discover
// instead of initialize; either answer describes the server.
const (
	InitializeInput = "mcp/initialize.json"
	DiscoverInput   = "mcp/discover.json"
	ToolsInput      = "mcp/tools.json"
)

// describeInputs maps the methods that describe a server to the input
// that keeps their answer.
func describeInputs() map[string]string {
	return map[string]string{"initialize": InitializeInput, "server/discover": DiscoverInput}
}

// Served says where an answer of ctx serve came from; ctx record's calls
// have none.
const (
	FromRecording   = "recording"
	FromPassthrough = "passthrough"
	FromMiss        = "miss"
	FromPolicy      = "policy"
)

// call is one tools/call of a session.
type call struct {
	id       string // the request id as JSON
	tool     string
	args     json.RawMessage
	start    time.Time
	dur      time.Duration
	rpcError bool // the answer is a JSON-RPC error object
	isError  bool // the result's isError
	done     bool
	served   string
	// undecoded says why the answer could not be decoded; its bytes, as
	// relayed, are the output.
	undecoded string
	line      int64 // where the finished step is in the spool (the answer is not kept in memory)
	size      int64
}

// Session keeps what a session showed of its server and its tool calls,
// and writes it as an execution log. Finished calls wait in a spool file,
// not in memory; they are written in the order they were asked.
type Session struct {
	mu        sync.Mutex
	kind      string // "record" or "serve"
	start     time.Time
	described map[string]json.RawMessage // input name -> initialize or server/discover result
	descReq   json.RawMessage            // the client's params of the last of them
	tools     []json.RawMessage
	calls     []*call
	pending   map[string]*call
	waiting   map[string]string // request id -> the method of a describing request, or "tools/list"
	spool     *os.File
	spoolSize int64
	skipped   int
	other     int            // messages relayed that are neither calls nor their answers
	answers   int            // answers of the server to the client's requests
	asked     map[string]int // the client's requests waiting for an answer, by id
	idle      chan struct{}  // closed once asked is empty (AllAnswered)
	messages  [2]int         // what each side wrote, decoded or not: [client, server]
	scratch   *os.File       // a message over the bound, as it passes (capture)
	meta      map[string]any
	end       *pack.End
	err       error
	now       func() time.Time
}

// NewSession starts an empty session of kind "record" or "serve".
func NewSession(kind string, now func() time.Time) (*Session, error) {
	if now == nil {
		now = time.Now
	}
	f, err := os.CreateTemp("", "ctx-mcp-*.ndjson")
	if err != nil {
		return nil, err
	}
	// The spool is unlinked at once: nothing is left behind after a kill.
	_ = os.Remove(f.Name())
	return &Session{kind: kind, start: now(), described: map[string]json.RawMessage{}, pending: map[string]*call{}, waiting: map[string]string{}, asked: map[string]int{},
		spool: f, meta: map[string]any{}, now: now}, nil
}

// Close releases the spool.
func (s *Session) Close() error {
	if s.scratch != nil {
		s.scratch.Close()
	}
	return s.spool.Close()
}

// Message counts a message (a line, a body, an event) one side wrote,
// whether or not it decodes.
func (s *Session) Message(fromServer bool) {
	s.mu.Lock()
	if fromServer {
		s.messages[1]++
	} else {
		s.messages[0]++
	}
	s.mu.Unlock()
}

// Messages is what each side wrote: [client, server].
func (s *Session) Messages() [2]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messages
}

// answer counts an answer of the server to the request key; s.mu is held.
func (s *Session) answer(key string) {
	s.answers++
	switch n := s.asked[key]; {
	case n > 1:
		s.asked[key]--
	case n == 1:
		delete(s.asked, key)
		if len(s.asked) == 0 && s.idle != nil {
			close(s.idle)
			s.idle = nil
		}
	}
}

// AllAnswered reports, by closing the channel it returns, when every
// request the client has made has had its answer from the server (at
// once, when none waits).
func (s *Session) AllAnswered() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.asked) == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	return s.idle
}

// Exchanged reports whether the server answered any request of the
// client: a session without (a server that never spoke MCP) is not
// worth a pack.
func (s *Session) Exchanged() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answers > 0
}

// SetMeta records a key of the session's metadata (the server's command,
// the recording served): kept in the pack's metadata, not its
// environment, so that a recorded and a served session of the same calls
// show no drift.
func (s *Session) SetMeta(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.meta[key] = v
}

// End records how the session ended, the run's end in its pack:
// "finished", or "error" with a message (the server crashed, the client
// broke the protocol). An error is not undone by a later "finished".
func (s *Session) End(state, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end == nil || state != "finished" {
		s.end = &pack.End{State: state, Message: message}
	}
}

// Skipped counts a message that was relayed but not recorded (over the
// bound).
func (s *Session) Skipped() {
	s.mu.Lock()
	s.skipped++
	s.mu.Unlock()
}

// Calls is the number of tools/call requests seen.
func (s *Session) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// FromClient observes a message the client sent: a request it makes of
// the server, or its answer to the server's own request.
func (s *Session) FromClient(msg jsonrpc.Message) { s.FromClientIn("", msg) }

// FromServer observes a message the server sent: an answer to one of the
// client's requests, or a request or notification of its own.
func (s *Session) FromServer(msg jsonrpc.Message) { s.FromServerIn("", msg) }

// FromClientIn is FromClient for a message of one of several sessions
// (the Mcp-Session-Id of the streamable HTTP transport): request ids are
// only unique within it.
func (s *Session) FromClientIn(scope string, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		s.mu.Lock()
		s.other++
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !req.ID.IsValid() {
		return // a notification
	}
	key := scope + "\x00" + idKey(req.ID)
	s.asked[key]++
	if _, ok := describeInputs()[req.Method]; ok {
		s.waiting[key] = req.Method
		s.descReq = append(json.RawMessage(nil), req.Params...)
		return
	}
	switch req.Method {
	case "tools/list":
		s.waiting[key] = req.Method
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		args := p.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		c := &call{id: idKey(req.ID), tool: p.Name, args: append(json.RawMessage(nil), args...), start: s.now()}
		s.calls = append(s.calls, c)
		s.pending[key] = c
	default:
		s.other++
	}
}

// FromServerIn is FromServer for a message of one of several sessions.
func (s *Session) FromServerIn(scope string, msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		s.mu.Lock()
		s.other++
		s.mu.Unlock()
		return
	}
	key := scope + "\x00" + idKey(resp.ID)
	s.mu.Lock()
	s.answer(key)
	s.mu.Unlock()
	var result []byte
	rpcError := false
	if resp.Error != nil {
		rpcError = true
		var we *jsonrpc.Error
		if errors.As(resp.Error, &we) {
			result, _ = json.Marshal(we)
		} else {
			result, _ = json.Marshal(map[string]any{"code": jsonrpc.CodeInternalError, "message": resp.Error.Error()})
		}
	} else {
		result = resp.Result
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if what, ok := s.waiting[key]; ok {
		delete(s.waiting, key)
		if rpcError {
			return
		}
		if what == "tools/list" {
			s.tools = append(s.tools, append(json.RawMessage(nil), result...))
		} else {
			s.described[describeInputs()[what]] = append(json.RawMessage(nil), result...)
		}
		return
	}
	c, ok := s.pending[key]
	if !ok {
		s.other++
		return
	}
	delete(s.pending, key)
	s.finish(c, result, rpcError, "")
}

// Answered records a call that ctx serve answered itself, with where the
// answer came from.
func (s *Session) Answered(tool string, args json.RawMessage, start time.Time, result []byte, rpcError bool, served string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	c := &call{tool: tool, args: append(json.RawMessage(nil), args...), start: start}
	s.calls = append(s.calls, c)
	s.finish(c, result, rpcError, served)
}

// SetServer records what describes the server (its initialize or
// server/discover result, by input name) and its tool list, for a session
// whose server did not answer them through the relay.
func (s *Session) SetServer(described map[string]json.RawMessage, tools []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.described, s.tools = described, tools
}

// finish writes a finished call to the spool; s.mu is held.
func (s *Session) finish(c *call, result []byte, rpcError bool, served string) {
	c.dur = s.now().Sub(c.start)
	c.done, c.rpcError, c.served = true, rpcError, served
	canon, err := jcs.Canonicalize(result)
	if err != nil {
		canon = result
	}
	if !rpcError {
		var r struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(canon, &r)
		c.isError = r.IsError
	}
	line, err := json.Marshal(s.step(c, canon))
	if err != nil {
		s.err = err
		return
	}
	line = append(line, '\n')
	if _, err := s.spool.WriteAt(line, s.spoolSize); err != nil && s.err == nil {
		s.err = err
	}
	c.line, c.size = s.spoolSize, int64(len(line))
	s.spoolSize += int64(len(line))
}

// step is the log event of a call; output is nil for a call never
// answered.
func (s *Session) step(c *call, output []byte) pack.StepEvent {
	meta := map[string]any{}
	stepMeta := map[string]any{"mcp": meta}
	if c.id != "" {
		meta["id"] = json.RawMessage(c.id)
	}
	if c.done {
		// Where every reader of a step's time looks (pack.StepUsage).
		stepMeta[pack.MetaDurationMS] = float64(c.dur.Microseconds()) / 1000
	} else {
		meta["answered"] = false
	}
	if c.rpcError {
		meta["error"] = true
	}
	if c.isError {
		meta["is_error"] = true
	}
	if c.served != "" {
		meta["served"] = c.served
	}
	if c.undecoded != "" {
		meta["undecoded"] = c.undecoded
	}
	ev := pack.StepEvent{Event: "step", Type: "tool_call", Tool: c.tool,
		Timestamp: c.start.UTC().Format(time.RFC3339Nano), Metadata: stepMeta}
	if err := json.Unmarshal(c.args, &ev.Parameters); err != nil || ev.Parameters == nil {
		ev.Parameters = map[string]any{"arguments": json.RawMessage(c.args)}
	}
	out := ""
	if output != nil {
		out = string(output)
	}
	ev.Output = &out
	return ev
}

// WriteLog writes the session as an execution log (NDJSON): the run, the
// server's initialize result and tool list as inputs, each call a step in
// the order it was asked.
func (s *Session) WriteLog(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return fmt.Errorf("mcp session spool: %w", s.err)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	mcpMeta := map[string]any{"session": s.kind, "calls": len(s.calls)}
	for k, v := range s.meta {
		mcpMeta[k] = v
	}
	d := describe(s.described, s.descReq)
	if d.ServerInfo != nil {
		mcpMeta["server"] = d.ServerInfo
	}
	if d.ProtocolVersion != "" {
		mcpMeta["protocol_version"] = d.ProtocolVersion
	}
	if d.ClientInfo != nil {
		mcpMeta["client"] = d.ClientInfo
	}
	if s.skipped > 0 {
		mcpMeta["unrecorded_messages"] = s.skipped
	}
	unanswered := 0
	for _, c := range s.calls {
		if !c.done {
			unanswered++
		}
	}
	if unanswered > 0 {
		mcpMeta["unanswered_calls"] = unanswered
	}
	run := pack.RunEvent{Event: "run", Created: s.start.UTC().Format(time.RFC3339Nano),
		Model: pack.LogModel{Identifier: "unknown"}, Metadata: map[string]any{"mcp": mcpMeta}, End: s.end}
	if err := enc.Encode(run); err != nil {
		return err
	}
	for _, name := range []string{InitializeInput, DiscoverInput} {
		if raw := s.described[name]; len(raw) > 0 {
			if err := writeInput(enc, name, raw); err != nil {
				return err
			}
		}
	}
	if len(s.tools) > 0 {
		if err := writeInput(enc, ToolsInput, mergeTools(s.tools)); err != nil {
			return err
		}
	}
	for _, c := range s.calls {
		if !c.done {
			if err := enc.Encode(s.step(c, nil)); err != nil {
				return err
			}
			continue
		}
		if _, err := io.Copy(bw, io.NewSectionReader(s.spool, c.line, c.size)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeInput(enc *json.Encoder, name string, raw []byte) error {
	canon, err := jcs.Canonicalize(raw)
	if err != nil {
		canon = raw
	}
	text := string(canon)
	return enc.Encode(pack.InputEvent{Event: "input", Name: name, Content: pack.Content{Content: &text}})
}

// mergeTools joins the pages of tools/list into one {"tools": [...]}.
func mergeTools(pages []json.RawMessage) []byte {
	all := []json.RawMessage{}
	for _, p := range pages {
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(p, &page) == nil {
			all = append(all, page.Tools...)
		}
	}
	b, _ := json.Marshal(map[string]any{"tools": all})
	return b
}

// description is what a session's describing answers say of the server
// and the client, in either protocol generation: initialize has them at
// the top; server/discover and its requests under _meta.
type description struct {
	ServerInfo      map[string]any
	ClientInfo      map[string]any
	ProtocolVersion string
	Instructions    string
}

const metaPrefix = "io.modelcontextprotocol/"

func describe(described map[string]json.RawMessage, req json.RawMessage) description {
	var d description
	var init struct {
		ProtocolVersion string         `json:"protocolVersion"`
		ServerInfo      map[string]any `json:"serverInfo"`
		Instructions    string         `json:"instructions"`
	}
	if raw := described[DiscoverInput]; len(raw) > 0 {
		var disc struct {
			Meta         map[string]json.RawMessage `json:"_meta"`
			Instructions string                     `json:"instructions"`
		}
		if json.Unmarshal(raw, &disc) == nil {
			_ = json.Unmarshal(disc.Meta[metaPrefix+"serverInfo"], &d.ServerInfo)
			d.Instructions = disc.Instructions
		}
	}
	if raw := described[InitializeInput]; len(raw) > 0 && json.Unmarshal(raw, &init) == nil {
		d.ServerInfo, d.ProtocolVersion, d.Instructions = init.ServerInfo, init.ProtocolVersion, init.Instructions
	}
	var p struct {
		ClientInfo      map[string]any             `json:"clientInfo"`
		ProtocolVersion string                     `json:"protocolVersion"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req, &p) == nil {
		d.ClientInfo = p.ClientInfo
		if d.ClientInfo == nil {
			_ = json.Unmarshal(p.Meta[metaPrefix+"clientInfo"], &d.ClientInfo)
		}
		if d.ProtocolVersion == "" {
			d.ProtocolVersion = p.ProtocolVersion
		}
		if d.ProtocolVersion == "" {
			_ = json.Unmarshal(p.Meta[metaPrefix+"protocolVersion"], &d.ProtocolVersion)
		}
	}
	return d
}

// UndecodedFromServerIn records a message of the server that the SDK
// could not decode (nested too deep, say) but that was relayed: when it
// answers a call, the call's output is the bytes of its result (or
// error) as they passed, noted with why.
func (s *Session) UndecodedFromServerIn(scope string, msg []byte, why string) {
	m := scanMembers(msg)
	sp, rpcError := m.answer(int64(len(msg)))
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.takePending(scope, m)
	if c == nil {
		s.other++
		return
	}
	c.undecoded = why
	s.finish(c, msg[sp.start:sp.end], rpcError, "")
}

// takePending counts a message of the server that answers a request of
// the client, and returns the call it answers, taken off the calls
// waiting for their answer (nil when it answers none); s.mu is held.
func (s *Session) takePending(scope string, m *members) *call {
	id := m.ID()
	if id == "" {
		return nil
	}
	key := scope + "\x00" + id
	if s.asked[key] == 0 {
		return nil
	}
	s.answer(key)
	c := s.pending[key]
	delete(s.pending, key)
	return c
}

// capture keeps a message over the bound as it passes, in a scratch file
// of the session (made on first need), and where its members are. One
// pump uses it, a message at a time (reset).
type capture struct {
	s    *Session
	f    *os.File
	size int64
	m    members
	err  error
}

func (c *capture) reset() { c.size, c.m, c.err = 0, members{}, nil }

func (c *capture) Write(p []byte) (int, error) {
	if c.f == nil && c.err == nil {
		c.f, c.err = c.s.scratchFile()
	}
	if c.err == nil {
		_, c.err = c.f.WriteAt(p, c.size)
	}
	c.size += int64(len(p))
	_, _ = c.m.Write(p)
	return len(p), nil
}

// scratchFile is where messages over the bound are kept as they pass,
// unlinked at once like the spool.
func (s *Session) scratchFile() (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.scratch == nil {
		f, err := os.CreateTemp("", "ctx-mcp-*.raw")
		if err != nil {
			return nil, err
		}
		_ = os.Remove(f.Name())
		s.scratch = f
	}
	return s.scratch, nil
}

// OverFromServer records a message of the server over the bound, caught
// by c as it was relayed: when it answers a call, the call's output is
// the bytes of its result (or error), copied from the scratch file into
// the spool, never held whole. Anything else is counted as unrecorded.
func (s *Session) OverFromServer(c *capture, max int64) {
	c.m.end()
	s.mu.Lock()
	defer s.mu.Unlock()
	call := s.takePending("", &c.m)
	if call == nil || c.err != nil {
		s.skipped++
		return
	}
	size := c.size
	for size > 0 && isLineEnd(c.f, size-1) {
		size--
	}
	sp, rpcError := c.m.answer(size)
	call.undecoded = overNote(size, max)
	call.dur = s.now().Sub(call.start)
	call.done, call.rpcError = true, rpcError
	ev := s.step(call, nil)
	ev.Output = nil
	head, err := json.Marshal(ev)
	if err != nil {
		s.err = err
		return
	}
	w := &offsetWriter{f: s.spool, off: s.spoolSize}
	_, _ = w.Write(head[:len(head)-1])
	_, _ = w.Write([]byte(`,"output":"`))
	sw := &stringWriter{w: w}
	_, _ = io.Copy(sw, io.NewSectionReader(c.f, sp.start, sp.end-sp.start))
	_ = sw.Close()
	_, _ = w.Write([]byte("\"}\n"))
	if w.err != nil {
		if s.err == nil {
			s.err = w.err
		}
		return
	}
	call.line, call.size = s.spoolSize, w.off-s.spoolSize
	s.spoolSize = w.off
}

func isLineEnd(f *os.File, off int64) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], off)
	return err == nil && (b[0] == '\n' || b[0] == '\r')
}

// offsetWriter writes to f from off on, keeping the first error.
type offsetWriter struct {
	f   *os.File
	off int64
	err error
}

func (w *offsetWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.f.WriteAt(p, w.off)
	w.off += int64(n)
	w.err = err
	return n, err
}
