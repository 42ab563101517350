package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is the stdio transport of ctx serve. The SDK's own
// (mcp.StdioTransport) ends the session at the first line that is not
// JSON; a server that answers from a recording should say so and go on,
// as JSON-RPC asks: a line that is not JSON gets -32700, a JSON value
// that is not a message -32600, a line over the bound -32600, and the
// session continues. Messages are decoded and encoded by the SDK.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	max int64
	// Refused counts the messages answered with an error here.
	refused func(reason string)
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, incoming: make(chan msgOrErr), closed: make(chan struct{})}
	go c.readLoop(newLineReader(t.in, t.max), t.refused)
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	out       io.Writer
	wmu       sync.Mutex
	incoming  chan msgOrErr
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *lineConn) readLoop(lr *lineReader, refused func(string)) {
	for {
		line, err := lr.next(nil)
		var big *TooLargeError
		switch {
		case errors.As(err, &big):
			c.refuse(jsonrpc.CodeInvalidRequest, big.Error(), refused)
			continue
		case err != nil:
			c.deliver(msgOrErr{err: err})
			return
		}
		msgs, code, reason := decodeLine(line)
		if code != 0 {
			c.refuse(code, reason, refused)
			continue
		}
		for _, m := range msgs {
			if !c.deliver(msgOrErr{msg: m}) {
				return
			}
		}
	}
}

// decodeLine decodes a message or a batch of them with the SDK; code is
// the JSON-RPC error code when the line is not one.
func decodeLine(line []byte) ([]jsonrpc.Message, int64, string) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "parse error: the message is not JSON"
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		_ = json.Unmarshal(line, &batch)
		if len(batch) == 0 {
			return nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch"
		}
		var msgs []jsonrpc.Message
		for _, raw := range batch {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
			}
			msgs = append(msgs, m)
		}
		return msgs, 0, ""
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return []jsonrpc.Message{m}, 0, ""
}

func (c *lineConn) deliver(m msgOrErr) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// refuse answers a message that could not be read, with a null id as
// JSON-RPC asks when the id cannot be known.
func (c *lineConn) refuse(code int64, reason string, refused func(string)) {
	if refused != nil {
		refused(reason)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": reason}})
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.out.Write(append(b, '\n'))
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	_, err = c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
