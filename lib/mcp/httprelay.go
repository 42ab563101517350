package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/contextsubstrate/ctx/lib/child"
)

// HTTPRelay is ctx record --mcp-url: a local endpoint of the streamable
// HTTP transport that passes every request to the real server's URL and
// every response back, unchanged, showing a decoded copy of each message
// to the session. Bodies stream: server-sent events are passed on as they
// come.
type HTTPRelay struct {
	Target     *url.URL
	MaxMessage int64
	Session    *Session
	srv        *http.Server
	ln         net.Listener
}

// Listen opens the local endpoint on addr (HOST:PORT); URL is then where
// a client connects: the target's path on the local address.
func (h *HTTPRelay) Listen(addr string) error {
	if h.MaxMessage <= 0 {
		h.MaxMessage = DefaultMaxMessage
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h.ln = ln
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = h.Target.Scheme, h.Target.Host
			r.Out.Host = h.Target.Host
			r.SetXForwarded()
		},
		FlushInterval:  -1, // server-sent events pass at once
		ModifyResponse: h.response,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "ctx record: the server at "+h.Target.String()+" cannot be reached: "+err.Error(), http.StatusBadGateway)
		},
	}
	h.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			r.Body = h.request(r)
		}
		proxy.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	h.Session.SetMeta("url", h.Target.String())
	return nil
}

// URL is the local endpoint a client connects to.
func (h *HTTPRelay) URL() string {
	u := *h.Target
	u.Scheme, u.Host = "http", h.ln.Addr().String()
	return u.String()
}

// Serve relays until Shutdown.
func (h *HTTPRelay) Serve() error {
	if err := h.srv.Serve(h.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown stops taking requests and waits (at most until ctx ends) for
// those under way, streams included.
func (h *HTTPRelay) Shutdown(ctx context.Context) error { return h.srv.Shutdown(ctx) }

// request reads a POSTed body (a message or a batch), shows it to the
// session, and gives the bytes back to be sent on unchanged. A body over
// the bound goes on as a stream, unrecorded.
func (h *HTTPRelay) request(r *http.Request) io.ReadCloser {
	scope := r.Header.Get("Mcp-Session-Id")
	body := r.Body
	head, err := io.ReadAll(io.LimitReader(body, h.MaxMessage+1))
	if int64(len(head)) > h.MaxMessage {
		h.Session.Message(false)
		h.Session.Skipped()
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), body), body}
	}
	_ = body.Close()
	h.Session.Message(false)
	if err == nil {
		observe(head, func(m jsonrpc.Message) { h.Session.FromClientIn(scope, m) })
	}
	return io.NopCloser(bytes.NewReader(head))
}

// response shows the messages of a response to the session as they pass:
// one JSON body, or the data of each server-sent event.
func (h *HTTPRelay) response(resp *http.Response) error {
	scope := resp.Request.Header.Get("Mcp-Session-Id")
	seen := func(m jsonrpc.Message) { h.Session.FromServerIn(scope, m) }
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		resp.Body = &jsonTee{body: resp.Body, max: h.MaxMessage, seen: seen, s: h.Session, scope: scope}
	case "text/event-stream":
		pr, pw := io.Pipe()
		resp.Body = &sseTee{body: resp.Body, pw: pw, done: h.events(pr, scope, seen)}
	}
	return nil
}

// jsonTee passes a JSON body on and decodes it at its end.
type jsonTee struct {
	body  io.ReadCloser
	buf   bytes.Buffer
	max   int64
	over  bool
	seen  func(jsonrpc.Message)
	s     *Session
	scope string
	once  bool
}

func (j *jsonTee) Read(p []byte) (int, error) {
	n, err := j.body.Read(p)
	if !j.over {
		if int64(j.buf.Len()+n) > j.max {
			j.over = true
			j.buf = bytes.Buffer{}
		} else {
			j.buf.Write(p[:n])
		}
	}
	if err == io.EOF && !j.once {
		j.once = true
		j.s.Message(true)
		if j.over {
			j.s.Skipped()
		} else if why := observe(j.buf.Bytes(), j.seen); why != "" {
			j.s.UndecodedFromServerIn(j.scope, j.buf.Bytes(), why)
		}
	}
	return n, err
}

func (j *jsonTee) Close() error { return j.body.Close() }

// sseTee passes an event stream on and copies it to the parser of events.
type sseTee struct {
	body io.ReadCloser
	pw   *io.PipeWriter
	done <-chan struct{}
}

func (t *sseTee) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if n > 0 {
		_, _ = t.pw.Write(p[:n])
	}
	if err != nil {
		t.pw.CloseWithError(err)
		<-t.done
	}
	return n, err
}

func (t *sseTee) Close() error {
	t.pw.Close()
	return t.body.Close()
}

// events parses server-sent events (the data lines of each, joined) and
// shows each event's message to seen; an event over the bound is counted
// and skipped.
func (h *HTTPRelay) events(r io.Reader, scope string, seen func(jsonrpc.Message)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _, _ = io.Copy(io.Discard, r) }()
		lr := newLineReader(r, h.MaxMessage)
		lr.blank = true
		var data bytes.Buffer
		over := false
		for {
			line, err := lr.next(nil)
			var big *TooLargeError
			if errors.As(err, &big) {
				over = true
				continue
			}
			if err != nil {
				return
			}
			if len(bytes.TrimRight(line, "\r")) == 0 {
				if over || data.Len() > 0 {
					h.Session.Message(true)
				}
				switch {
				case over:
					h.Session.Skipped()
				case data.Len() > 0:
					if why := observe(data.Bytes(), seen); why != "" {
						h.Session.UndecodedFromServerIn(scope, data.Bytes(), why)
					}
				}
				data.Reset()
				over = false
				continue
			}
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				v = bytes.TrimPrefix(bytes.TrimRight(v, "\r"), []byte(" "))
				if int64(data.Len()+len(v)) > h.MaxMessage {
					over = true
				} else if !over {
					if data.Len() > 0 {
						data.WriteByte('\n')
					}
					data.Write(v)
				}
			}
		}
	}()
	return done
}

// RunHTTP relays until ctx ends (SIGINT, SIGTERM, or the client command
// given to ctx record exiting), then waits at most grace for the requests
// under way.
func (h *HTTPRelay) RunHTTP(ctx context.Context, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- h.Serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := h.Shutdown(sctx); err != nil {
		_ = h.srv.Close()
	}
	h.Session.End("finished", "")
	return nil
}

// Client is the program ctx record --mcp-url runs against the relay: its
// command and streams; it runs with CTX_MCP_URL set to the relay's URL.
type Client struct {
	Command        []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interactive says standard input is a terminal (child.Options).
	Interactive bool
}

// Record relays until the client program exits, passing on to it the
// signals ctx record gets (lib/child), and returns its exit status and
// why the session ended (EndedClientExited, EndedSignal); without a
// program, until SIGINT or SIGTERM. Either way it also ends with ctx, and
// then waits at most grace for the requests under way.
func (h *HTTPRelay) Record(ctx context.Context, c Client, grace time.Duration) (int, string, error) {
	if len(c.Command) == 0 {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		h.Session.SetMeta("ended", EndedSignal)
		return 0, EndedSignal, h.RunHTTP(ctx, grace)
	}
	cmd := exec.Command(c.Command[0], c.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.Env = append(os.Environ(), "CTX_MCP_URL="+h.URL())
	prog, err := child.Start(cmd, child.Options{Forward: true, Interactive: c.Interactive})
	if err != nil {
		return 0, "", &NotFoundError{Command: c.Command[0], Err: unwrapExec(err)}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-prog.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	err = h.RunHTTP(ctx, grace)
	ended := EndedClientExited
	select {
	case <-prog.Done():
	default:
		ended = EndedSignal
	}
	h.Session.SetMeta("ended", ended)
	prog.Stop(grace) // when the relay ended first
	code, werr := prog.Wait()
	if err == nil {
		err = werr
	}
	return code, ended, err
}
