package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
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
//
// Between the client and the SDK's connection it also keeps what the
// SDK's connection does not (lineConn): every request read is answered
// before the session ends, whatever id it has, and a batch is answered
// as one.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	max int64
	// refused is told of each message answered with an error here.
	refused func(reason string)
	raw     *rawAnswers
	conn    *lineConn
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	t.conn = &lineConn{out: t.out, raw: t.raw, incoming: make(chan jsonrpc.Message), ended: make(chan struct{}),
		stop: make(chan struct{}), closed: make(chan struct{}), inflight: map[string]*inflight{}, latest: map[string]string{}}
	go t.conn.readLoop(newLineReader(t.in, t.max), t.refused)
	return t.conn, nil
}

// lineConn is the connection of a lineTransport.
//
// The SDK's connection stops writing answers as soon as its reader ends:
// a client that writes its requests and closes its output at once (echo
// ... | ctx serve) would get none. So the end of the input is passed on
// only once every request read has been answered.
//
// The SDK's connection answers a request whose id is that of a request
// still in flight with an error it cannot address (the id is dropped). So
// each request is given an id of ctx's own on its way in, and its answer
// gets the client's id back, spelled as the client spelled it: requests
// that share an id are each answered.
//
// The SDK's connection answers the messages of a batch one by one; JSON-RPC
// asks for one array of the answers, which is written here once the last
// is in. A batch is refused (-32600) once a protocol version without
// batches (2025-06-18 and later) is negotiated.
type lineConn struct {
	out      io.Writer
	raw      *rawAnswers
	incoming chan jsonrpc.Message
	ended    chan struct{} // closed once the input ended and every request read is answered
	stop     chan struct{} // closed to end the session at once (a signal, a write that failed)
	stopErr  error
	closed   chan struct{}

	wmu sync.Mutex // writing to out

	mu          sync.Mutex
	next        int64
	inflight    map[string]*inflight // by the id given
	latest      map[string]string    // the client's id -> the id given to the latest request with it
	open        int                  // requests read and not answered yet
	inputEnded  bool
	version     string // the protocol version initialize negotiated
	received    int    // messages of the client
	undelivered int    // answers not written: the client stopped reading
	writeErr    error
	stopOnce    sync.Once
	closeOnce   sync.Once
	endedOnce   sync.Once
}

// inflight is a request read and not answered yet.
type inflight struct {
	id     json.RawMessage // the client's, as it wrote it
	method string
	batch  *batch
	slot   int
}

// batch is a batch read: the answers of its requests, and the errors of
// its elements that are none, in its order.
type batch struct {
	slots             [][]byte
	pending, requests int
}

func (c *lineConn) readLoop(lr *lineReader, refused func(string)) {
	for {
		select {
		case <-c.stop:
			return
		default:
		}
		line, err := lr.next(nil)
		var big *TooLargeError
		switch {
		case errors.As(err, &big):
			c.refuse(jsonrpc.CodeInvalidRequest, big.Error(), refused)
			continue
		case err != nil:
			c.mu.Lock()
			c.inputEnded = true
			c.mu.Unlock()
			c.answered(0)
			return
		}
		if !c.accept(line, refused) {
			return
		}
	}
}

// accept passes on the message (or batch) of one line; false once the
// session is over.
func (c *lineConn) accept(line []byte, refused func(string)) bool {
	elems, isBatch, code, reason := decodeLine(line)
	if code == 0 && isBatch {
		c.mu.Lock()
		v := c.version
		c.mu.Unlock()
		if v >= "2025-06-18" {
			code, reason = jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches were removed in protocol version 2025-06-18; this session speaks "+v
		}
	}
	if code != 0 {
		c.refuse(code, reason, refused)
		return true
	}
	var b *batch
	if isBatch {
		b = &batch{slots: make([][]byte, 0, len(elems))}
	}
	// Every request of the line is registered before any is passed on:
	// the SDK may answer the first before it reads the second.
	msgs := make([]jsonrpc.Message, 0, len(elems))
	var bad []string
	c.mu.Lock()
	for _, e := range elems {
		if e.err != "" {
			bad = append(bad, e.err)
			b.slots = append(b.slots, errorLine(jsonrpc.CodeInvalidRequest, e.err))
			continue
		}
		c.received++
		msgs = append(msgs, c.register(e, b))
	}
	answered := b != nil && b.pending == 0 && len(b.slots) > 0
	c.mu.Unlock()
	for _, reason := range bad {
		if refused != nil {
			refused(reason)
		}
	}
	if answered { // a batch of errors and notifications only
		_ = c.write(joinBatch(b.slots), len(b.slots))
	}
	for _, m := range msgs {
		select {
		case c.incoming <- m:
		case <-c.stop:
			return false
		case <-c.closed:
			return false
		}
	}
	return true
}

// register gives a request an id of ctx's own (a notification that
// cancels one names it by that id); c.mu is held.
func (c *lineConn) register(e element, b *batch) jsonrpc.Message {
	req, ok := e.msg.(*jsonrpc.Request)
	if !ok {
		return e.msg // an answer to a request of the server
	}
	if !req.ID.IsValid() {
		if req.Method == "notifications/cancelled" {
			req.Params = c.cancelled(req.Params)
		}
		return req
	}
	if req.Method == "initialize" {
		// The version the client asks for is the one negotiated when
		// the server has it; its answer, when written, says for sure.
		// A batch read before then is judged by this one.
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			c.version = p.ProtocolVersion
		}
	}
	c.next++
	given := "ctx-" + strconv.FormatInt(c.next, 10)
	f := &inflight{id: e.id, method: req.Method}
	if b != nil {
		f.batch, f.slot = b, len(b.slots)
		b.slots = append(b.slots, nil)
		b.pending++
		b.requests++
	}
	c.inflight[given] = f
	c.latest[string(e.id)] = given
	c.open++
	id, _ := jsonrpc.MakeID(given)
	return &jsonrpc.Request{ID: id, Method: req.Method, Params: req.Params}
}

// cancelled rewrites the requestId of notifications/cancelled to the id
// given to the latest request of that id.
func (c *lineConn) cancelled(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	given, ok := c.latest[string(bytes.TrimSpace(p["requestId"]))]
	if !ok {
		return params
	}
	p["requestId"], _ = json.Marshal(given)
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}

// element is one message of a line (a batch has several), or why it is
// none.
type element struct {
	msg jsonrpc.Message
	id  json.RawMessage // as the client wrote it
	err string
}

// decodeLine decodes a message or a batch of them with the SDK; code is
// the JSON-RPC error code when the line is none. An element of a batch
// that is no message gets its own error in the batch's answer.
func decodeLine(line []byte) (elems []element, isBatch bool, code int64, reason string) {
	if !json.Valid(line) {
		return nil, false, jsonrpc.CodeParseError, "parse error: the message is not JSON"
	}
	if line[0] != '[' {
		e := decodeElement(line)
		if e.err != "" {
			return nil, false, jsonrpc.CodeInvalidRequest, e.err
		}
		return []element{e}, false, 0, ""
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(line, &raws)
	if len(raws) == 0 {
		return nil, true, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch"
	}
	for _, raw := range raws {
		elems = append(elems, decodeElement(raw))
	}
	return elems, true, 0, ""
}

func decodeElement(raw []byte) element {
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return element{err: "invalid request: " + err.Error()}
	}
	var id struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(raw, &id)
	return element{msg: m, id: bytes.TrimSpace(id.ID)}
}

// refuse answers a message that could not be read, with a null id as
// JSON-RPC asks when the id cannot be known.
func (c *lineConn) refuse(code int64, reason string, refused func(string)) {
	if refused != nil {
		refused(reason)
	}
	_ = c.write(errorLine(code, reason), 1)
}

func errorLine(code int64, reason string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": reason}})
	return b
}

func joinBatch(slots [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(slots, []byte{','})...), ']')
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.stop:
		return nil, c.stopErr
	case <-c.ended:
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok { // a request or notification of the server
		b, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		return c.write(b, 0)
	}
	given, _ := resp.ID.Raw().(string)
	c.mu.Lock()
	f := c.inflight[given]
	if f == nil { // not the answer to a request read: written as it is
		c.mu.Unlock()
		b, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			return err
		}
		return c.write(b, 1)
	}
	delete(c.inflight, given)
	if c.latest[string(f.id)] == given {
		delete(c.latest, string(f.id))
	}
	if f.method == "initialize" && resp.Error == nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			c.version = r.ProtocolVersion
		}
	}
	c.mu.Unlock()
	b, err := c.encode(resp, given, f.id)
	if err != nil {
		b = errorLineID(f.id, jsonrpc.CodeInternalError, "ctx serve: "+err.Error())
	}
	if f.batch == nil {
		err := c.write(b, 1)
		c.answered(1)
		return err
	}
	c.mu.Lock()
	f.batch.slots[f.slot] = b
	f.batch.pending--
	done := f.batch.pending == 0
	c.mu.Unlock()
	if !done {
		return nil
	}
	err = c.write(joinBatch(f.batch.slots), len(f.batch.slots))
	c.answered(f.batch.requests)
	return err
}

// encode is the answer as the client gets it: the SDK's, with the
// client's id, or the recorded bytes of an answer no decoder could read.
func (c *lineConn) encode(resp *jsonrpc.Response, given string, id json.RawMessage) ([]byte, error) {
	if raw, rpcError, ok := c.raw.take(resp.Result); ok {
		key := `,"result":`
		if rpcError {
			key = `,"error":`
		}
		b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
		b = append(append(append(b, key...), raw...), '}')
		return b, nil
	}
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil, err
	}
	// The SDK writes "jsonrpc" first, then the id: put the client's there.
	prefix := []byte(`{"jsonrpc":"2.0","id":"` + given + `"`)
	if !bytes.HasPrefix(b, prefix) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		m["id"] = id
		return json.Marshal(m)
	}
	return append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), b[len(prefix):]...), nil
}

func errorLineID(id json.RawMessage, code int64, reason string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": reason}})
	return b
}

// write writes a line holding n answers. The first write that fails ends
// the session: the client stopped reading.
func (c *lineConn) write(b []byte, n int) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	failed := c.writeErr
	c.mu.Unlock()
	if failed == nil {
		_, failed = c.out.Write(append(b, '\n'))
		if failed == nil {
			return nil
		}
	}
	c.mu.Lock()
	if c.writeErr == nil {
		c.writeErr = failed
	}
	c.undelivered += n
	c.mu.Unlock()
	c.end(failed)
	return failed
}

// answered counts n requests answered; the input's end is passed on once
// every request read is.
func (c *lineConn) answered(n int) {
	c.mu.Lock()
	c.open -= n
	done := c.inputEnded && c.open <= 0
	c.mu.Unlock()
	if done {
		c.endedOnce.Do(func() { close(c.ended) })
	}
}

// end ends the session at once: the reader of the SDK's connection gets
// err, and the requests in flight are cancelled.
func (c *lineConn) end(err error) {
	c.stopOnce.Do(func() {
		c.stopErr = err
		close(c.stop)
	})
}

// state says what became of the session: how many messages the client
// sent, and how many answers it did not get when it stopped reading
// (writeErr set).
func (c *lineConn) state() (received, undelivered int, writeErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.received, c.undelivered + len(c.inflight), c.writeErr
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// rawAnswers are recorded answers no JSON decoder could read (nested
// deeper than Go's decoder goes): the tool's handler answers a marker
// that names one, and lineConn writes its bytes in the marker's place.
type rawAnswers struct {
	mu   sync.Mutex
	next int
	m    map[string]rawAnswer
}

type rawAnswer struct {
	b        []byte
	rpcError bool
}

// rawMarker is the key of the marker in a result's _meta.
const rawMarker = "ctx-serve/raw"

// put keeps b and returns the result that stands for it.
func (r *rawAnswers) put(b []byte, rpcError bool) *mcp.CallToolResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]rawAnswer{}
	}
	r.next++
	token := strconv.Itoa(r.next)
	r.m[token] = rawAnswer{b, rpcError}
	return &mcp.CallToolResult{Meta: mcp.Meta{rawMarker: token}, Content: []mcp.Content{}}
}

// take gives back the answer a result stands for, if it is a marker.
func (r *rawAnswers) take(result json.RawMessage) ([]byte, bool, bool) {
	if r == nil || !bytes.Contains(result, []byte(rawMarker)) {
		return nil, false, false
	}
	var m struct {
		Meta map[string]any `json:"_meta"`
	}
	if json.Unmarshal(result, &m) != nil {
		return nil, false, false
	}
	token, _ := m.Meta[rawMarker].(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.m[token]
	delete(r.m, token)
	return a.b, a.rpcError, ok
}
