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
	// ServerFirst is set when the server ended before the client left.
	ServerFirst bool
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
// byte for byte, showing a decoded copy of each to the session. It returns
// when the client has gone (its input ended) and the server has exited, or
// when the server has ended and its last output is passed on.
func Relay(ctx context.Context, cfg RelayConfig) (RelayResult, error) {
	if len(cfg.Command) == 0 {
		return RelayResult{}, errors.New("no server command")
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 5 * time.Second
	}
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
	server, err := child.Start(cmd, child.Options{})
	inR.Close()
	outW.Close()
	if err != nil {
		toServer.Close()
		return RelayResult{}, &NotFoundError{Command: cfg.Command[0], Err: unwrapExec(err)}
	}
	s := cfg.Session
	s.SetMeta("command", cfg.Command)

	serverDone := pump(fromServer, cfg.Out, cfg.MaxMessage, s, s.FromServer)
	clientDone := pump(cfg.In, toServer, cfg.MaxMessage, s, s.FromClient)

	var res RelayResult
	select {
	case <-clientDone:
		// The client has gone: the server's input ends, as the stdio
		// transport says a client ends a session.
		_ = toServer.Close()
		select {
		case <-serverDone:
		case <-time.After(cfg.Grace):
			server.Stop(cfg.Grace)
			lastWords(serverDone, cfg.Grace)
		}
		_, _ = server.Wait()
		s.End("finished", "")
	case <-serverDone:
		res.ServerFirst = true
		code, werr := server.Wait()
		_ = toServer.Close()
		res.ExitCode = code
		msg := "the server ended before the client"
		switch {
		case werr != nil:
			msg += ": " + werr.Error()
		case code > 128:
			msg += fmt.Sprintf(": killed by signal %d", code-128)
		case code != 0:
			msg += fmt.Sprintf(": exit status %d", code)
		}
		s.End("error", msg)
	case <-ctx.Done():
		_ = toServer.Close()
		server.Stop(cfg.Grace)
		lastWords(serverDone, cfg.Grace)
		s.End("error", "interrupted")
	}
	return res, nil
}

// lastWords waits, once the server has exited, for what it wrote last to
// be relayed (its output's end), at most grace: a program it left behind
// may hold the pipe open.
func lastWords(serverDone <-chan struct{}, grace time.Duration) {
	select {
	case <-serverDone:
	case <-time.After(grace):
	}
}

// pump passes each message of src on to dst unchanged, showing a decoded
// copy to seen first; a message over the bound is passed on as a stream
// and counted. The channel closes when src ends or dst fails.
func pump(src io.Reader, dst io.Writer, max int64, s *Session, seen func(jsonrpc.Message)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		lr := newLineReader(src, max)
		for {
			line, err := lr.next(dst)
			var big *TooLargeError
			if errors.As(err, &big) {
				s.Skipped()
				continue
			}
			if err != nil {
				return
			}
			observe(line, seen)
			if _, err := dst.Write(append(line, '\n')); err != nil {
				return
			}
		}
	}()
	return done
}

// observe decodes a message (or a batch) with the SDK and shows it to f;
// what does not decode was still relayed, and is not a call.
func observe(line []byte, f func(jsonrpc.Message)) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return
		}
		for _, m := range batch {
			if msg, err := jsonrpc.DecodeMessage(m); err == nil {
				f(msg)
			}
		}
		return
	}
	if msg, err := jsonrpc.DecodeMessage(line); err == nil {
		f(msg)
	}
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
