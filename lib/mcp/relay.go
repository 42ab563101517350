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
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s: %v", e.Command, e.Err) }

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
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return RelayResult{}, err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return RelayResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return RelayResult{}, &NotFoundError{Command: cfg.Command[0], Err: unwrapExec(err)}
	}
	s := cfg.Session
	s.SetMeta("command", cfg.Command)

	var outMu sync.Mutex
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		lr := newLineReader(fromServer, cfg.MaxMessage)
		over := lockedWriter{mu: &outMu, w: cfg.Out}
		for {
			line, err := lr.next(over)
			var big *TooLargeError
			if errors.As(err, &big) {
				s.Skipped()
				continue
			}
			if err != nil {
				return
			}
			outMu.Lock()
			_, werr := cfg.Out.Write(append(line, '\n'))
			outMu.Unlock()
			observe(line, s.FromServer)
			if werr != nil {
				return
			}
		}
	}()

	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		lr := newLineReader(cfg.In, cfg.MaxMessage)
		for {
			line, err := lr.next(toServer)
			var big *TooLargeError
			if errors.As(err, &big) {
				s.Skipped()
				continue
			}
			if err != nil {
				return
			}
			observe(line, s.FromClient)
			if _, err := toServer.Write(append(line, '\n')); err != nil {
				return
			}
		}
	}()

	var res RelayResult
	select {
	case <-clientDone:
		// The client has gone: the server's input ends, as the stdio
		// transport says a client ends a session.
		_ = toServer.Close()
		select {
		case <-serverDone:
		case <-time.After(cfg.Grace):
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-serverDone:
			case <-time.After(cfg.Grace):
				_ = cmd.Process.Kill()
				<-serverDone
			}
		}
		_ = cmd.Wait()
		s.End("finished", "")
	case <-serverDone:
		res.ServerFirst = true
		werr := cmd.Wait()
		_ = toServer.Close()
		res.ExitCode = exitCode(werr)
		msg := "the server ended before the client"
		if werr != nil {
			msg = fmt.Sprintf("the server ended before the client: %v", werr)
		}
		s.End("error", msg)
	case <-ctx.Done():
		_ = toServer.Close()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-serverDone
		_ = cmd.Wait()
		s.End("error", "interrupted")
	}
	return res, nil
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

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
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
