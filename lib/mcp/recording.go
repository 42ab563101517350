package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
)

// ErrNoSession is a pack that holds no MCP session: it was not made by
// ctx record --mcp or ctx serve --mcp.
var ErrNoSession = errors.New("the pack holds no MCP session")

// noSessionError is ErrNoSession, with what to do.
type noSessionError struct{ error }

func (e noSessionError) Unwrap() error { return e.error }

// ErrorHints says how a session is recorded.
func (e noSessionError) ErrorHints() []string {
	return []string{"record one with: ctx record --mcp -- SERVER_CMD [ARGS...]"}
}

// Recording is a recorded session, ready to answer calls: the server's
// initialize result and tools, and each call's answer by tool and
// canonical arguments.
type Recording struct {
	Pack store.Hash
	// Described holds the answers that describe the server, by input
	// name (InitializeInput, DiscoverInput).
	Described map[string]json.RawMessage
	Tools     []json.RawMessage // each tool of tools/list
	st        *store.Store
	mu        sync.Mutex
	calls     map[string][]answer
	next      map[string]int
	n         int
}

type answer struct {
	output    store.Hash
	rpcError  bool
	undecoded bool // the output is the bytes relayed, which no decoder read
}

// Server is what the recording says of the server: its name and version,
// and its instructions.
func (r *Recording) Server() (info map[string]any, instructions string) {
	d := describe(r.Described, nil)
	return d.ServerInfo, d.Instructions
}

// Calls is the number of recorded calls.
func (r *Recording) Calls() int { return r.n }

// LoadRecording reads the MCP session of the pack h.
func LoadRecording(st *store.Store, h store.Hash, m *pack.Manifest) (*Recording, error) {
	r := &Recording{Pack: h, st: st, Described: map[string]json.RawMessage{}, calls: map[string][]answer{}, next: map[string]int{}}
	var toolsRef *store.Hash
	for i := range m.Inputs {
		switch m.Inputs[i].Name {
		case InitializeInput, DiscoverInput:
			b, err := st.ReadAll(m.Inputs[i].ContentRef)
			if err != nil {
				return nil, err
			}
			r.Described[m.Inputs[i].Name] = b
		case ToolsInput:
			toolsRef = &m.Inputs[i].ContentRef
		}
	}
	if len(r.Described) == 0 {
		return nil, noSessionError{fmt.Errorf("%w (no input %s or %s)", ErrNoSession, InitializeInput, DiscoverInput)}
	}
	if toolsRef != nil {
		b, err := st.ReadAll(*toolsRef)
		if err != nil {
			return nil, err
		}
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("input %s: %v", ToolsInput, err)
		}
		r.Tools = list.Tools
	}
	for _, s := range m.Steps {
		var meta struct {
			MCP *struct {
				Answered  *bool  `json:"answered"`
				Error     bool   `json:"error"`
				Undecoded string `json:"undecoded"`
			} `json:"mcp"`
		}
		if s.Type != "tool_call" || json.Unmarshal(s.Metadata, &meta) != nil || meta.MCP == nil {
			continue
		}
		if (meta.MCP.Answered != nil && !*meta.MCP.Answered) || s.OutputRef == nil {
			continue // a call the server never answered gives no answer
		}
		key, err := callKey(s.Tool, s.Parameters)
		if err != nil {
			return nil, fmt.Errorf("step %d: %v", s.Index, err)
		}
		r.calls[key] = append(r.calls[key], answer{output: *s.OutputRef, rpcError: meta.MCP.Error, undecoded: meta.MCP.Undecoded != ""})
		r.n++
	}
	return r, nil
}

// callKey is what two calls must share to be the same call: the tool and
// the arguments as RFC 8785 canonical JSON (key order and number spelling
// do not matter).
func callKey(tool string, args json.RawMessage) (string, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	canon, err := jcs.Canonicalize(args)
	if err != nil {
		return "", err
	}
	return tool + "\x00" + string(canon), nil
}

// Answer returns the recorded answer to a call: repeated identical calls
// get the recorded answers in order, then the last one again. ok is false
// when the recording has no such call; undecoded says the answer is the
// bytes that were relayed, which no decoder read.
func (r *Recording) Answer(tool string, args json.RawMessage) (out []byte, rpcError, undecoded, ok bool, err error) {
	key, err := callKey(tool, args)
	if err != nil {
		return nil, false, false, false, nil // arguments that are not JSON match nothing
	}
	r.mu.Lock()
	list := r.calls[key]
	if len(list) == 0 {
		r.mu.Unlock()
		return nil, false, false, false, nil
	}
	i := r.next[key]
	if i >= len(list) {
		i = len(list) - 1
	} else {
		r.next[key] = i + 1
	}
	a := list[i]
	r.mu.Unlock()
	b, err := r.st.ReadAll(a.output)
	if err != nil {
		return nil, false, false, false, err
	}
	return b, a.rpcError, a.undecoded, true, nil
}
