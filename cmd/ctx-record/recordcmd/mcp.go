package recordcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/mcp"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/record"
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
	if err := packSession(cfg, st, sess, stderr, map[string]any{"server_ended_first": res.ServerFirst}); err != nil {
		return err
	}
	if res.ServerFirst {
		msg.Warnf("%s ended before the client disconnected; the calls so far are packed", args[0])
		if res.ExitCode != 0 {
			return cli.Exit(res.ExitCode)
		}
	}
	return nil
}

// packSession packs a session and says so on standard error: a note, or
// with --json one line of JSON with more.
func packSession(cfg *config, st *store.Store, sess *mcp.Session, stderr io.Writer, more map[string]any) error {
	msg := cli.Messenger{Name: name, W: stderr}
	pub, err := mcp.Save(st, sess, pack.SaveOptions{Tags: cfg.tags, Source: "the MCP session",
		Options: pack.Options{Root: ".", Store: st, Warn: msg.Warn}})
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, fmt.Errorf("cannot pack the MCP session: %w", err))
	}
	calls := sess.Calls()
	if cfg.out.Human() {
		msg.Notef("packed the MCP session (%s) as %s", text.Plural(calls, "tool call"), pub.Hash.URI())
		return nil
	}
	rec := map[string]any{"pack": pub.Hash.URI(), "calls": calls}
	for k, v := range more {
		rec[k] = v
	}
	b, _ := json.Marshal(rec)
	fmt.Fprintf(stderr, "%s\n", b)
	return nil
}

// recordMCPHTTP is ctx record --mcp-url: the HTTP relay, until CMD exits
// or a signal comes, then the pack of its session.
func recordMCPHTTP(ctx context.Context, cfg *config, args []string, st *store.Store, stdin io.Reader, stdout, stderr io.Writer) error {
	msg := cli.Messenger{Name: name, W: stderr}
	target, _ := url.Parse(cfg.mcpURL)
	addr, public, err := record.ListenAddr(cfg.listen)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if public {
		msg.Warnf("--listen %s: other machines can reach the relay", cfg.listen)
	}
	now, err := cli.Clock()
	if err != nil {
		return cli.Usagef("%v", err)
	}
	sess, err := mcp.NewSession("record", now)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	defer sess.Close()
	relay := &mcp.HTTPRelay{Target: target, MaxMessage: cfg.maxMessage << 20, Session: sess}
	if err := relay.Listen(addr); err != nil {
		return cli.Errorf(cli.ExitTrouble, "cannot listen on %s: %v", addr, err).WithHint("name another address with --listen")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := 0
	if len(args) > 0 {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		cmd.Env = append(os.Environ(), "CTX_MCP_URL="+relay.URL())
		if err := cmd.Start(); err != nil {
			return cli.Errorf(cli.ExitTrouble, "cannot run %s: %v", args[0], err)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		go func() {
			code = exitStatus(cmd.Wait())
			cancel()
		}()
	} else {
		msg.Notef("relaying %s to %s; SIGINT or SIGTERM packs and stops", relay.URL(), target)
	}
	if err := relay.RunHTTP(ctx, 5*time.Second); err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if err := packSession(cfg, st, sess, stderr, map[string]any{"url": cfg.mcpURL}); err != nil {
		return err
	}
	if code != 0 {
		return cli.Exit(code)
	}
	return nil
}

// exitStatus is a command's exit status, 128+N for signal N.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 127
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
