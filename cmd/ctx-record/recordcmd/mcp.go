package recordcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/mcp"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// recordMCP is ctx record --mcp: the relay, then the pack of its session.
// Standard output is the protocol, so every word goes to standard error.
func recordMCP(ctx context.Context, cfg *config, args []string, st *store.Store, stdin io.Reader, stdout, stderr io.Writer) error {
	msg := cli.Messenger{Name: name, W: stderr}
	// SIGINT or SIGTERM ends the session and packs what came.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	now, err := cli.Clock()
	if err != nil {
		return cli.Usagef("%v", err)
	}
	sess, err := mcp.NewSession("record", now)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	defer sess.Close()
	res, err := mcp.Relay(ctx, mcp.RelayConfig{Command: args, In: stdin, Out: stdout, Stderr: stderr,
		MaxMessage: cfg.maxMessage << 20, Session: sess})
	if err != nil {
		var nf *mcp.NotFoundError
		if errors.As(err, &nf) {
			return cli.Errorf(cli.ExitTrouble, "cannot run %v", nf)
		}
		return cli.Wrap(cli.ExitTrouble, err)
	}
	pub, err := mcp.Save(st, sess, pack.SaveOptions{Tags: cfg.tags, Source: "the MCP session",
		Options: pack.Options{Root: ".", Store: st, Warn: func(s string) { msg.Warnf("%s", s) }}})
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, fmt.Errorf("cannot pack the MCP session: %w", err))
	}
	calls := sess.Calls()
	if !cfg.out.Human() {
		b, _ := json.Marshal(map[string]any{"pack": pub.Hash.URI(), "calls": calls, "server_ended_first": res.ServerFirst})
		fmt.Fprintf(stderr, "%s\n", b)
	} else {
		msg.Notef("packed the MCP session (%s) as %s", text.Plural(calls, "tool call"), pub.Hash.URI())
	}
	if res.ServerFirst {
		msg.Warnf("%s ended before the client disconnected; the calls so far are packed", args[0])
		if res.ExitCode != 0 {
			return cli.Exit(res.ExitCode)
		}
	}
	return nil
}
