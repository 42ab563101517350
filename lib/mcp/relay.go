package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/contextsubstrate/ctx/lib/child"
)

// RelayConfig is ctx record --mcp over stdio: the client on In and Out,
// the real server started from Command.
type RelayConfig struct {
	Command []string
	In      io.Reader // the client's messages
	Out     io.Writer // to the client
	Stderr  io.Writer // the server's standard error passes through here
	// MaxMessage bounds a message the relay records; a longer one is
	// relayed as a stream, unrecorded, and counted.
	MaxMessage int64
	// Grace is how long the server has to exit once the client has gone
	// and its standard input is closed, before SIGTERM (then SIGKILL).
	Grace   time.Duration
	Session *Session
}

// RelayResult says how the relay ended.
type RelayResult struct {
	// Ended says why: EndedClientClosed, EndedClientStoppedReading,
	// EndedServerExited or EndedSignal.
	Ended string
	// ExitCode is the server's exit status when it ended on its own with
	// a failure (128+N for signal N); 0 otherwise.
	ExitCode int
}

// NotFoundError is a server command that cannot be started.
type NotFoundError struct {
	Command string
	Err     error
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("cannot run %s: %v", e.Command, e.Err) }

// Relay starts the server and passes every message both ways unchanged,
// byte for byte, showing a decoded copy of each to the session. It ends
// when the client closes its output (the stdio transport's end of a
// session), stops reading, the server ends, or ctx ends (a signal); the
// server's input is then closed and it gets Grace to exit before it is
// stopped, with whatever it started (its process group). Its output is
// relayed and recorded to the end, waited for at most Grace once it has
// exited: a program it left behind may hold the pipe.
func Relay(ctx context.Context, cfg RelayConfig) (RelayResult, error) {
	if len(cfg.Command) == 0 {
		return RelayResult{}, errors.New("no server command")
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 5 * time.Second
	}
	ignoreSIGPIPE()
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Stderr = cfg.Stderr
	// The server's ends of two pipes; the relay keeps the others, which
	// the server's exit does not close.
	inR, toServer, err := os.Pipe()
	if err != nil {
		return RelayResult{}, err
	}
	fromServer, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		toServer.Close()
		return RelayResult{}, err
	}
	defer fromServer.Close()
	cmd.Stdin, cmd.Stdout = inR, outW
	server, err := child.Start(cmd, child.Options{Group: true})
	inR.Close()
	outW.Close()
	if err != nil {
		toServer.Close()
		return RelayResult{}, &NotFoundError{Command: cfg.Command[0], Err: unwrapExec(err)}
	}
	s := cfg.Session
	s.SetMeta("command", cfg.Command)

	out := pump(fromServer, cfg.Out, cfg.MaxMessage, s, true)
	in := pump(cfg.In, toServer, cfg.MaxMessage, s, false)

	var res RelayResult
	stillRunning := false
	select {
	case <-in.done:
		res.Ended = EndedClientClosed
	case <-out.failed:
		res.Ended = EndedClientStoppedReading
	case <-in.failed: // the server closed its input
		res.Ended = EndedServerExited
	case <-out.done:
		res.Ended = EndedServerExited
	case <-server.Done():
		res.Ended = EndedServerExited
	case <-ctx.Done():
		res.Ended = EndedSignal
	}
	if res.Ended == EndedClientClosed {
		// What the client asked before it left is answered before the
		// server's input ends: a server may drop the requests in
		// flight when it reads the end of its input.
		select {
		case <-s.AllAnswered():
		case <-out.done:
		case <-server.Done():
		case <-time.After(cfg.Grace):
		case <-ctx.Done():
		}
	}
	// The server's input ends, as the stdio transport says a client ends
	// a session; it has Grace to exit.
	_ = toServer.Close()
	if res.Ended != EndedSignal {
		select {
		case <-server.Done():
		case <-time.After(cfg.Grace):
		case <-ctx.Done():
		}
	}
	// A server that closed its output or input but still runs is
	// stopped here: its status is not its own.
	select {
	case <-server.Done():
	default:
		stillRunning = true
	}
	server.Stop(cfg.Grace)
	lastWords(out.done, cfg.Grace)
	code, werr := server.Wait()
	s.SetMeta("ended", res.Ended)
	switch res.Ended {
	case EndedSignal:
		s.End("error", "interrupted")
	case EndedServerExited:
		msg := "the server ended before the client"
		switch {
		case werr != nil:
			msg += ": " + werr.Error()
		case stillRunning:
			msg += ": it closed its standard output or input"
		case code > 128:
			msg += fmt.Sprintf(": killed by signal %d", code-128)
		case code != 0:
			msg += fmt.Sprintf(": exit status %d", code)
		}
		if !stillRunning {
			res.ExitCode = code
		}
		s.End("error", msg)
	default:
		s.End("finished", "")
	}
	return res, nil
}

// lastWords waits, once the server has exited, for what it wrote last to
// be relayed (its output's end), at most grace: a program it left behind
// that escaped its group may hold the pipe open.
func lastWords(serverDone <-chan struct{}, grace time.Duration) {
	select {
	case <-serverDone:
	case <-time.After(grace):
	}
}

// pumped is the state of a pump: done when its source ended, failed
// when writing to its destination failed (the reader went away). The
// client's pump stops at a failure, and is then never done.
type pumped struct {
	done, failed chan struct{}
}

// pump passes each message of src on to dst unchanged, showing a decoded
// copy to the session first (fromServer says which side sent it). A
// message over the bound is passed on as a stream; one of the server's is
// kept as it passes, for the call it answers. Once dst fails, the
// server's messages are still read and recorded (what the server
// answered is part of the session, delivered or not); the client's are
// not.
func pump(src io.Reader, dst io.Writer, max int64, s *Session, fromServer bool) pumped {
	p := pumped{done: make(chan struct{}), failed: make(chan struct{})}
	w := &failWriter{w: dst, failed: p.failed}
	seen := s.FromClient
	if fromServer {
		seen = s.FromServer
	}
	go func() {
		lr := newLineReader(src, max)
		var over io.Writer = w
		c := &capture{s: s}
		if fromServer {
			over = io.MultiWriter(w, c)
		}
		for !w.broken || fromServer {
			c.reset()
			line, err := lr.next(over)
			if err == nil || errors.As(err, new(*TooLargeError)) {
				s.Message(fromServer)
			}
			var big *TooLargeError
			if errors.As(err, &big) {
				if fromServer {
					s.OverFromServer(c, lr.max)
				} else {
					s.Skipped()
				}
				continue
			}
			if err != nil {
				close(p.done)
				return
			}
			if why := observe(line, seen); why != "" && fromServer {
				s.UndecodedFromServerIn("", line, why)
			}
			_, _ = w.Write(append(line, '\n'))
		}
	}()
	return p
}

// failWriter writes to w until a write fails, then closes failed and
// takes what it is given without writing it.
type failWriter struct {
	w      io.Writer
	failed chan struct{}
	broken bool
}

func (f *failWriter) Write(p []byte) (int, error) {
	if !f.broken {
		if _, err := f.w.Write(p); err != nil {
			f.broken = true
			close(f.failed)
		}
	}
	return len(p), nil
}

// observe decodes a message (or a batch) with the SDK and shows it to f;
// what does not decode was still relayed, and is not a call. It returns
// why a message did not decode, "" when it did.
func observe(line []byte, f func(jsonrpc.Message)) (why string) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return "not decoded: " + err.Error()
		}
		for _, m := range batch {
			if msg, err := jsonrpc.DecodeMessage(m); err == nil {
				f(msg)
			}
		}
		return ""
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return "not decoded: " + err.Error()
	}
	f(msg)
	return ""
}

func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}
