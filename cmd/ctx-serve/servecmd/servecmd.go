// Package servecmd is ctx serve: a recorded MCP session served back as an
// MCP server, so an agent can be tested against the same world again.
package servecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/mcp"
	"github.com/contextsubstrate/ctx/lib/pack"
)

const name = "ctx-serve"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx serve --mcp [flags] PACK [-- SERVER_CMD [ARGS...]]",
		Summary:  "Serve a recorded MCP session back to a client, from its pack.",
		Exits:    []string{"0 the session served is packed", "2 the client sent no message, PACK holds no MCP session, or another error"},
		Args:     cli.MinArgs(1, "ctx serve takes the pack of a recorded MCP session (ctx record --mcp)"),
		Help: `An MCP server on standard input and output (newline-delimited JSON-RPC,
the stdio transport) that answers from PACK, a session recorded with
'ctx record --mcp': initialize and tools/list as recorded, and each
tools/call with the recorded result of the same call: the same tool with
the same arguments, compared as RFC 8785 canonical JSON (key order and
number spelling do not matter). Repeated identical calls get the recorded
answers in recorded order, then the last one again.

A call with no recorded match gets an error result (isError) that names
the miss, never an invented answer; with --on-miss passthrough it goes to
the real server given after --, started on first need. --policy sets one
tool's policy: history (the default), passthrough (always the real
server) or fail (an error result even when recorded).

A line that is not JSON gets a -32700 error, a JSON value that is not a
message or a line over --max-message a -32600 error, and the session
goes on; an unknown method gets -32601.

Every request read is answered, even when the client closes its output
at once (printf ... | ctx serve); a batch is answered as one array under
the protocol versions that have batches, refused from 2025-06-18 on.

When the client disconnects or stops reading, or on SIGINT or SIGTERM,
the session served is itself packed (its name and why it ended on
standard error; --tag names it), so 'ctx diff RECORDED SERVED' shows
where the agent went another way; a session in which the client sent no
message is not. Standard output is the protocol: every message of ctx
serve goes to standard error.`,
		Examples: `ctx serve --mcp recorded                          # in a client's server config
ctx serve --mcp --tag served recorded && ctx diff recorded served
ctx serve --mcp --on-miss passthrough recorded -- npx -y @modelcontextprotocol/server-filesystem .
ctx serve --mcp --policy write_file=fail recorded`,
	}
}

type config struct {
	store, onMiss string
	mcp           bool
	out           cli.Output
	tags          cli.Strings
	policy        cli.Strings
	maxMessage    int64
	policies      map[string]string
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.BoolVar(&c.mcp, "mcp", false, "serve the Model Context Protocol (the only protocol served today)")
	fs.StringVar(&c.onMiss, "on-miss", mcp.PolicyFail, "what a call with no recorded match gets (`MODE`): fail (an error result) or passthrough")
	fs.Var(&c.policy, "policy", "give TOOL the policy history, passthrough or fail (`TOOL=POLICY`, repeatable)")
	fs.Var(&c.tags, "tag", "name the served session's pack refs/tags/`NAME` (repeatable)")
	c.out.Register(fs, cli.Human, cli.Formats{
		cli.JSON:  "at the end, print on standard error {pack, calls, answered_from_recording, misses, passthrough, failed_by_policy}",
		cli.Human: "at the end, print on standard error a note of what was served and the session's pack",
	})
	fs.Int64Var(&c.maxMessage, "max-message", mcp.DefaultMaxMessage>>20, "refuse messages over `MiB` (-32600), in bounded memory")
}

func (c *config) Check(args []string) error {
	if !c.mcp {
		return cli.Usagef("ctx serve needs --mcp (the protocol to serve)")
	}
	policies, needServer, err := mcp.Policies(c.onMiss, c.policy)
	switch {
	case err != nil:
		return cli.Usagef("%v", err)
	case c.maxMessage <= 0:
		return cli.Usagef("--max-message %d: want a positive number of MiB", c.maxMessage)
	case needServer && len(args) < 2:
		return cli.Usagef("passthrough needs the real server: ctx serve --mcp PACK -- SERVER_CMD [ARGS...]")
	}
	c.policies = policies
	return cli.CheckTags(c.tags)
}

// Main runs ctx serve with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx serve. Standard output is the protocol: every word goes to
// standard error.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	// SIGINT or SIGTERM ends the session and packs what was served.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := st.ResolvePack(args[0])
	if err != nil {
		return cli.NameError(err)
	}
	m, err := pack.Load(st, h)
	if err != nil {
		return cli.NameError(err)
	}
	now, err := cli.Clock()
	if err != nil {
		return cli.Usagef("%v", err)
	}
	f, isFile := stdin.(*os.File)
	served, err := mcp.ServeRecorded(ctx, st, h, m, mcp.ServeConfig{In: stdin, Out: stdout, OnMiss: cfg.onMiss, Policy: cfg.policies,
		Server: args[1:], ServerErr: stderr, MaxMessage: cfg.maxMessage << 20, Refused: msg.Warn, Now: now,
		Interactive: isFile && cli.IsTerminal(f), Waiting: func(n, h string) { msg.Note(n); msg.Hintf("%s", h) }},
		pack.SaveOptions{Tags: cfg.tags, Options: pack.Options{Root: ".", Store: st, Warn: msg.Warn}}, msg.Warn)
	if errors.Is(err, mcp.ErrNoSession) {
		return cli.Wrap(cli.ExitTrouble, fmt.Errorf("%s: %w", args[0], err))
	} else if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	return served.Report(stderr, !cfg.out.Human(), msg.Note, msg.Warn)
}
