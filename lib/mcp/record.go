package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// RecordConfig is one ctx record --mcp (the server Command on stdio) or
// --mcp-url (the server at URL, relayed on Listen; Command, when given,
// the client run against the relay).
type RecordConfig struct {
	Command    []string
	URL        *url.URL // nil: stdio
	Listen     string   // HOST:PORT of the relay (HTTP)
	MaxMessage int64
	Stdin      io.Reader
	Stdout     io.Writer
	Stderr     io.Writer
	// Interactive says standard input is a terminal: the client shares
	// it (Client).
	Interactive bool
	Now         func() time.Time
	Save        pack.SaveOptions
	// Relaying is told the relay's URL when it runs without a client.
	Relaying func(url string)
}

// Recorded is a session recorded and packed: ctx record's JSON line.
type Recorded struct {
	Pack  string `json:"pack"` // ctx://<hex>
	Calls int    `json:"calls"`
	// ServerEndedFirst (stdio) says the server ended before the client
	// left; URL (HTTP) is the server's.
	ServerEndedFirst *bool  `json:"server_ended_first,omitempty"`
	URL              string `json:"url,omitempty"`
	// ExitCode is the server's exit status when it ended first with a
	// failure (stdio), or the client's (HTTP); 128+N for signal N.
	ExitCode int `json:"-"`
}

// Report says what was recorded: with asJSON the JSON line on w, else a
// note; and a warning when the server ended before the client left.
func (r Recorded) Report(w io.Writer, asJSON bool, command []string, note, warn func(string)) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		note(fmt.Sprintf("packed the MCP session (%s) as %s", text.Plural(r.Calls, "tool call"), r.Pack))
	}
	if r.ServerEndedFirst != nil && *r.ServerEndedFirst {
		warn(command[0] + " ended before the client disconnected; the calls so far are packed")
	}
	return nil
}

// ListenError is an address the relay cannot listen on.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string { return fmt.Sprintf("cannot listen on %s: %v", e.Addr, e.Err) }
func (e *ListenError) Unwrap() error { return e.Err }

// ErrorHints says what to do.
func (e *ListenError) ErrorHints() []string { return []string{"name another address with --listen"} }

// Record relays one session, then packs it into st (Save): on stdio until
// the client disconnects, the server ends, or SIGINT or SIGTERM comes;
// over HTTP as HTTPRelay.Record does.
func Record(ctx context.Context, st *store.Store, cfg RecordConfig) (Recorded, error) {
	var rec Recorded
	sess, err := NewSession("record", cfg.Now)
	if err != nil {
		return rec, err
	}
	defer sess.Close()
	if cfg.URL == nil {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		res, err := Relay(ctx, RelayConfig{Command: cfg.Command, In: cfg.Stdin, Out: cfg.Stdout, Stderr: cfg.Stderr,
			MaxMessage: cfg.MaxMessage, Session: sess})
		if err != nil {
			return rec, err
		}
		rec.ServerEndedFirst, rec.ExitCode = &res.ServerFirst, res.ExitCode
	} else {
		relay := &HTTPRelay{Target: cfg.URL, MaxMessage: cfg.MaxMessage, Session: sess}
		if err := relay.Listen(cfg.Listen); err != nil {
			return rec, &ListenError{Addr: cfg.Listen, Err: err}
		}
		if len(cfg.Command) == 0 && cfg.Relaying != nil {
			cfg.Relaying(relay.URL())
		}
		client := Client{Command: cfg.Command, Stdin: cfg.Stdin, Stdout: cfg.Stdout, Stderr: cfg.Stderr, Interactive: cfg.Interactive}
		if rec.ExitCode, err = relay.Record(ctx, client, 5*time.Second); err != nil {
			return rec, err
		}
		rec.URL = cfg.URL.String()
	}
	if cfg.Save.Source == "" {
		cfg.Save.Source = "the MCP session"
	}
	pub, err := Save(st, sess, cfg.Save)
	if err != nil {
		return rec, fmt.Errorf("cannot pack the MCP session: %w", err)
	}
	rec.Pack, rec.Calls = pub.Hash.URI(), sess.Calls()
	return rec, nil
}
