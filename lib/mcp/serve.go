package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// The policies of a tool under ctx serve.
const (
	PolicyHistory     = "history"     // answer from the recording; a miss goes by OnMiss
	PolicyPassthrough = "passthrough" // always ask the real server
	PolicyFail        = "fail"        // answer an error, even when recorded
)

// ServeConfig is ctx serve --mcp: a server on In and Out answering from
// a recording.
type ServeConfig struct {
	Recording *Recording
	In        io.Reader
	Out       io.Writer
	// OnMiss is what a call with no recorded match gets: PolicyFail (an
	// error result naming the miss) or PolicyPassthrough.
	OnMiss string
	// Policy sets a tool's policy; a tool not named has PolicyHistory.
	Policy map[string]string
	// Server is the real server's command, for passthrough.
	Server     []string
	ServerErr  io.Writer // the real server's standard error
	MaxMessage int64
	Session    *Session
	// Refused is told of each message answered with a JSON-RPC error
	// before it reached the server (not JSON, too large).
	Refused func(reason string)
	Now     func() time.Time
	// Interactive says In is a terminal: Waiting is then told that ctx
	// serve waits for a client there, and how to connect one.
	Interactive bool
	Waiting     func(note, hint string)
}

// Policies reads ctx serve's --on-miss and --policy TOOL=P values: each
// tool's policy, and whether any answer may need the real server.
func Policies(onMiss string, specs []string) (map[string]string, bool, error) {
	if onMiss != PolicyFail && onMiss != PolicyPassthrough {
		return nil, false, fmt.Errorf("--on-miss %q: want fail or passthrough", onMiss)
	}
	policy := map[string]string{}
	needServer := onMiss == PolicyPassthrough
	for _, p := range specs {
		tool, pol, ok := strings.Cut(p, "=")
		switch {
		case !ok || tool == "" || (pol != PolicyHistory && pol != PolicyFail && pol != PolicyPassthrough):
			return nil, false, fmt.Errorf("--policy %q: want TOOL=history|passthrough|fail", p)
		case pol == PolicyPassthrough:
			needServer = true
		}
		policy[tool] = pol
	}
	return policy, needServer, nil
}

// Served is a session served from a recording and packed: what ctx serve
// --json prints.
type Served struct {
	Pack string `json:"pack"` // ctx://<hex> of the session served
	ServeSummary
}

// ServeRecorded answers the client from the session recorded in pack h
// (LoadRecording) as Serve does, with cfg's Recording and Session made
// here, then packs the session served into st (Save). An error that ends
// the session is told to warn and kept as the session's end. A session
// in which the client sent no message is not packed: a
// *NothingServedError.
func ServeRecorded(ctx context.Context, st *store.Store, h store.Hash, m *pack.Manifest, cfg ServeConfig, save pack.SaveOptions, warn func(string)) (Served, error) {
	var out Served
	rec, err := LoadRecording(st, h, m)
	if err != nil {
		return out, err
	}
	sess, err := NewSession("serve", cfg.Now)
	if err != nil {
		return out, err
	}
	defer sess.Close()
	cfg.Recording, cfg.Session = rec, sess
	out.ServeSummary, err = Serve(ctx, cfg)
	switch {
	case out.Messages == 0 && err != nil:
		return out, err
	case out.Messages == 0:
		return out, &NothingServedError{Ended: out.Ended}
	case err != nil:
		warn(fmt.Sprintf("the session ended: %v", err))
		sess.End("error", err.Error())
	}
	if save.Source == "" {
		save.Source = "the served session"
	}
	pub, err := Save(st, sess, save)
	if err != nil {
		return out, fmt.Errorf("cannot pack the served session: %w", err)
	}
	out.Pack = pub.Hash.URI()
	return out, nil
}

// NothingServedError is a session of ctx serve in which the client sent
// no message: nothing is packed.
type NothingServedError struct{ Ended string }

func (e *NothingServedError) Error() string {
	return "nothing was served: no MCP message came from the client (" + endedSentence(e.Ended) + "); nothing was packed"
}

// Report says what was served: with asJSON the JSON line on w, else a
// note, and a warning when the client stopped reading with answers not
// delivered.
func (s Served) Report(w io.Writer, asJSON bool, note, warn func(string)) error {
	if s.Undelivered > 0 {
		warn(fmt.Sprintf("the client stopped reading: %d of its requests got no answer it read", s.Undelivered))
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(s)
	}
	note(fmt.Sprintf("served %s (%d from the recording, %d missed, %d passed through, %d refused by policy); the session is %s; %s",
		text.Plural(s.Calls, "call"), s.Recorded, s.Misses, s.Passthrough, s.Refused, s.Pack, endedSentence(s.Ended)))
	return nil
}

// ServeSummary counts how ctx serve answered.
type ServeSummary struct {
	Calls       int `json:"calls"`
	Recorded    int `json:"answered_from_recording"`
	Misses      int `json:"misses"`
	Passthrough int `json:"passthrough"`
	Refused     int `json:"failed_by_policy"`
	// Ended says why the session ended: EndedClientClosed,
	// EndedClientStoppedReading or EndedSignal.
	Ended string `json:"ended"`
	// Messages counts the client's messages; Undelivered its requests
	// whose answer it did not read, having stopped reading (answers that
	// could not be written, and requests in flight then).
	Messages    int `json:"-"`
	Undelivered int `json:"undelivered,omitempty"`
}

type server struct {
	cfg     ServeConfig
	raw     *rawAnswers
	mu      sync.Mutex
	sum     ServeSummary
	real    *mcp.ClientSession
	realErr error
}

// Serve answers the client until it disconnects.
func Serve(ctx context.Context, cfg ServeConfig) (ServeSummary, error) {
	rec := cfg.Recording
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	info, instructions := rec.Server()
	impl := new(mcp.Implementation)
	if b, err := json.Marshal(info); err == nil {
		_ = json.Unmarshal(b, impl)
	}
	if impl.Name == "" {
		impl.Name = "ctx-serve"
	}
	srv := &server{cfg: cfg, raw: &rawAnswers{}}
	sdk := mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: instructions, HasTools: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	// tools/list and tools/call are answered here, not by the SDK's tool
	// registry: the SDK lists tools by name where a recording lists them as
	// the server did, and a call of a tool the recording never saw is a
	// miss like any other (passed through with --on-miss passthrough).
	recorded := make([]*mcp.Tool, 0, len(rec.Tools))
	for i, raw := range rec.Tools {
		t := new(mcp.Tool)
		if err := json.Unmarshal(raw, t); err != nil || t.Name == "" {
			return ServeSummary{}, fmt.Errorf("input %s: tool %d: not a tool", ToolsInput, i)
		}
		recorded = append(recorded, t)
	}
	sdk.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/list":
				return &mcp.ListToolsResult{Tools: recorded}, nil
			case "tools/call":
				if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
					res, err := srv.call(ctx, call.Params.Name, call.Params.Arguments)
					if err != nil {
						return nil, err
					}
					return res, nil
				}
			}
			return next(ctx, method, req)
		}
	})
	toolsPage, _ := json.Marshal(map[string]any{"tools": rec.Tools})
	cfg.Session.SetServer(rec.Described, []json.RawMessage{toolsPage})
	cfg.Session.SetMeta("recording", rec.Pack.URI())
	if len(cfg.Server) > 0 {
		cfg.Session.SetMeta("command", cfg.Server)
	}
	ignoreSIGPIPE()
	if cfg.Interactive && cfg.Waiting != nil {
		cfg.Waiting("waiting for an MCP client's messages on standard input (the answers go to standard output)",
			"an MCP client starts its server itself: name 'ctx serve --mcp "+rec.Pack.Short()+"' as the server's command in the client's configuration (docs/MCP.md); Ctrl-D or Ctrl-C ends")
	}
	t := &lineTransport{in: cfg.In, out: cfg.Out, max: cfg.MaxMessage, refused: cfg.Refused, raw: srv.raw}
	ss, err := sdk.Connect(ctx, t, nil)
	if err != nil {
		return ServeSummary{}, err
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			// The requests in flight are cancelled (a passthrough call
			// included), then the session closes.
			t.conn.end(ctx.Err())
			_ = ss.Close()
		case <-stopped:
		}
	}()
	err = ss.Wait()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.real != nil {
		_ = srv.real.Close()
	}
	received, undelivered, writeErr := t.conn.state()
	sum := srv.sum
	sum.Messages = received
	switch {
	case ctx.Err() != nil:
		sum.Ended = EndedSignal
		cfg.Session.End("error", "interrupted")
	case writeErr != nil:
		sum.Ended, sum.Undelivered = EndedClientStoppedReading, undelivered
		cfg.Session.End("finished", "")
	default:
		sum.Ended = EndedClientClosed
		cfg.Session.End("finished", "")
	}
	cfg.Session.SetMeta("ended", sum.Ended)
	if ctx.Err() != nil || writeErr != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		err = nil
	}
	return sum, err
}

// call answers one tools/call by the tool's policy.
func (s *server) call(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	start := s.cfg.Now()
	policy := s.cfg.Policy[tool]
	if policy == "" {
		policy = PolicyHistory
	}
	s.count(func(sum *ServeSummary) { sum.Calls++ })
	switch policy {
	case PolicyFail:
		s.count(func(sum *ServeSummary) { sum.Refused++ })
		return s.errorResult(tool, args, start, FromPolicy,
			fmt.Sprintf("ctx serve: tool %q is refused by --policy %s=fail", tool, tool))
	case PolicyPassthrough:
		return s.passthrough(ctx, tool, args, start)
	}
	out, rpcError, undecoded, ok, err := s.cfg.Recording.Answer(tool, args)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "ctx serve: " + err.Error()}
	}
	if !ok {
		s.count(func(sum *ServeSummary) { sum.Misses++ })
		if s.cfg.OnMiss == PolicyPassthrough {
			return s.passthrough(ctx, tool, args, start)
		}
		return s.errorResult(tool, args, start, FromMiss, fmt.Sprintf(
			"ctx serve: no recorded call of %q with these arguments in %s (arguments: %s)",
			tool, s.cfg.Recording.Pack.URI(), clip(args, 200)))
	}
	s.count(func(sum *ServeSummary) { sum.Recorded++ })
	s.cfg.Session.Answered(tool, args, start, out, rpcError, FromRecording)
	if undecoded {
		// The bytes the client got when it was recorded, which no
		// decoder reads: given back as they are (lineConn).
		return s.raw.put(out, rpcError), nil
	}
	if rpcError {
		we := new(jsonrpc.Error)
		if json.Unmarshal(out, we) != nil {
			return s.raw.put(out, rpcError), nil
		}
		return nil, we
	}
	res := new(mcp.CallToolResult)
	if err := json.Unmarshal(out, res); err != nil {
		// Not a tool result as the SDK reads one: given back as recorded.
		return s.raw.put(out, rpcError), nil
	}
	return res, nil
}

func (s *server) count(f func(*ServeSummary)) {
	s.mu.Lock()
	f(&s.sum)
	s.mu.Unlock()
}

// errorResult answers a call with an error result (isError), never an
// invented answer, and records it.
func (s *server) errorResult(tool string, args json.RawMessage, start time.Time, served, msg string) (*mcp.CallToolResult, error) {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
	b, _ := json.Marshal(res)
	s.cfg.Session.Answered(tool, args, start, b, false, served)
	return res, nil
}

// passthrough asks the real server, started on first need.
func (s *server) passthrough(ctx context.Context, tool string, args json.RawMessage, start time.Time) (*mcp.CallToolResult, error) {
	s.count(func(sum *ServeSummary) { sum.Passthrough++ })
	cs, err := s.realServer(ctx)
	if err != nil {
		return s.errorResult(tool, args, start, FromPassthrough, "ctx serve: passthrough: "+err.Error())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			b, _ := json.Marshal(we)
			s.cfg.Session.Answered(tool, args, start, b, true, FromPassthrough)
			return nil, we
		}
		return s.errorResult(tool, args, start, FromPassthrough, "ctx serve: passthrough: "+err.Error())
	}
	b, _ := json.Marshal(res)
	s.cfg.Session.Answered(tool, args, start, b, false, FromPassthrough)
	return res, nil
}

func (s *server) realServer(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.real != nil || s.realErr != nil {
		return s.real, s.realErr
	}
	if len(s.cfg.Server) == 0 {
		s.realErr = errors.New("no real server was given (ctx serve --mcp PACK -- SERVER_CMD ...)")
		return nil, s.realErr
	}
	cmd := exec.Command(s.cfg.Server[0], s.cfg.Server[1:]...)
	cmd.Stderr = s.cfg.ServerErr
	client := mcp.NewClient(&mcp.Implementation{Name: "ctx-serve", Version: "1"}, nil)
	s.real, s.realErr = client.Connect(context.WithoutCancel(ctx), &mcp.CommandTransport{Command: cmd}, nil)
	if s.realErr != nil {
		s.realErr = fmt.Errorf("cannot start %s: %v", s.cfg.Server[0], s.realErr)
	}
	return s.real, s.realErr
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}
