// Package recordcmd is ctx record: an agent's OpenTelemetry traces in,
// packs out, while it runs; or an MCP session relayed and packed.
package recordcmd

import (
	"cmp"
	"context"
	"flag"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/mcp"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/record"
)

const name = "ctx-record"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx record [flags] -- CMD [ARGS...]\n       ctx record --listen ADDR [flags]\n       ctx record --mcp [flags] -- SERVER_CMD [ARGS...]\n       ctx record --mcp-url URL [--listen ADDR] [flags] [-- CMD [ARGS...]]",
		Summary:  "Run an agent with an OTLP receiver and pack each GenAI trace it exports.",
		Exits:    []string{"0", "2 nothing could be recorded: no GenAI trace, no MCP answer, CMD not found, a port in use", "N CMD's (or the server's) own status when it fails, 128+N for signal N"},
		Help: `Starts an OTLP/HTTP receiver on 127.0.0.1, a free port, and runs CMD with
OTEL_EXPORTER_OTLP_ENDPOINT (and _TRACES_ENDPOINT, _LOGS_ENDPOINT,
_PROTOCOL) and OTEL_TRACES_EXPORTER=otlp pointing at it, its streams
untouched and signals passed on. When CMD exits, each trace with GenAI
spans is mapped as 'ctx convert --from otel' maps it and packed: one
ctx://<hex> per pack. With --listen and no CMD, it runs until SIGINT or
SIGTERM. See docs/RECORD.md.

With --mcp, an MCP client on standard input and output is relayed to the
server SERVER_CMD on stdio; with --mcp-url, to the server at URL over
streamable HTTP, served on --listen for CMD (which gets CTX_MCP_URL).
The session is packed when the client leaves, and its pack named on
stderr; 'ctx serve --mcp' serves it back (docs/MCP.md).`,
		Examples: `ctx record -- python agent.py --task fix-bug
ctx record --json --tag baseline -- ./run-agent.sh | jq -r .pack
ctx record --listen :4318          # a collector for any instrumented agent
ctx record --mcp --tag fs -- npx -y @modelcontextprotocol/server-filesystem .
ctx record --mcp-url http://127.0.0.1:8080/mcp --tag web -- ./agent.sh   # the agent reads $CTX_MCP_URL`,
	}
}

type config struct {
	store, listen, model, mcpURL string
	out                          cli.Output
	tags                         cli.Strings
	idle, drain                  time.Duration
	maxBody, maxMessage          int64
	mcp                          bool
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print one JSON line per pack: {trace_id, pack, steps, model, spans, incomplete} (an MCP session's on stderr)",
		cli.Human: "print ctx://<hex> per pack (an MCP session's as a note on stderr)"})
	fs.Var(&c.tags, "tag", "also name each pack refs/tags/`NAME` (repeatable; with several packs, the last)")
	fs.StringVar(&c.listen, "listen", "", "listen on `ADDR` (HOST:PORT, :PORT or PORT); without CMD, run until SIGINT or SIGTERM")
	fs.DurationVar(&c.idle, "idle", 3*time.Second, "pack a trace whose root span ended once no span came for `DURATION`")
	fs.DurationVar(&c.drain, "drain", 2*time.Second, "after CMD exits, wait at most `DURATION` for exports still under way")
	fs.Int64Var(&c.maxBody, "max-body", record.DefaultMaxBody>>20, "refuse export requests over `MiB` (413)")
	fs.StringVar(&c.model, "model", "", "model identifier `ID` for traces that name none")
	fs.BoolVar(&c.mcp, "mcp", false, "relay an MCP client on stdio to the server SERVER_CMD and pack the session")
	fs.StringVar(&c.mcpURL, "mcp-url", "", "relay the MCP server at `URL` (streamable HTTP) on a local port and pack the session")
	fs.Int64Var(&c.maxMessage, "max-message", mcp.DefaultMaxMessage>>20, "with --mcp, record messages up to `MiB`; longer ones are relayed unrecorded")
}

func (c *config) Check(args []string) error {
	u, err := url.Parse(c.mcpURL)
	switch {
	case c.mcpURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""):
		return cli.Usagef("--mcp-url %q: want an http or https URL", c.mcpURL)
	case c.mcp && c.mcpURL != "":
		return cli.Usagef("--mcp (stdio) and --mcp-url (HTTP) do not go together")
	case c.mcp && len(args) == 0:
		return cli.Usagef("ctx record --mcp takes the server to run: -- SERVER_CMD [ARGS...]")
	case c.mcp && c.listen != "":
		return cli.Usagef("--mcp and --listen do not go together")
	case (c.mcp || c.mcpURL != "") && c.maxMessage <= 0:
		return cli.Usagef("--max-message %d: want a positive number of MiB", c.maxMessage)
	case !c.mcp && c.mcpURL == "" && len(args) == 0 && c.listen == "":
		return cli.Usagef("ctx record takes a command to run (-- CMD [ARGS...]) or --listen ADDR")
	}
	return cli.CheckTags(c.tags)
}

// Main runs ctx record with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx record. Standard output is CMD's (or the MCP protocol), so
// a session's words go to standard error.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	addr, public, err := record.ListenAddr(cfg.listen)
	if err != nil {
		return cli.Usagef("%v", err)
	} else if public {
		msg.Warnf("--listen %s: other machines can %s", cfg.listen, map[bool]string{true: "reach the relay", false: "send traces to this receiver"}[cfg.mcpURL != ""])
	}
	now, err := cli.Clock()
	if err != nil {
		return cli.Usagef("%v", err)
	}
	f, isFile := stdin.(*os.File)
	interactive := isFile && cli.IsTerminal(f)
	save := pack.SaveOptions{Tags: cfg.tags, Options: pack.Options{Root: ".", Store: st, Warn: msg.Warn}}
	if cfg.mcp || cfg.mcpURL != "" {
		rc := mcp.RecordConfig{Command: args, Listen: addr, MaxMessage: cfg.maxMessage << 20, Stdin: stdin, Stdout: stdout, Stderr: stderr,
			Interactive: interactive, Now: now, Save: save, Waiting: func(n, h string) { msg.Note(n); msg.Hintf("%s", h) },
			Relaying: func(u string) { msg.Notef("relaying %s to %s; SIGINT or SIGTERM packs and stops", u, cfg.mcpURL) }}
		if cfg.mcpURL != "" {
			rc.URL, _ = url.Parse(cfg.mcpURL)
		}
		rec, err := mcp.Record(ctx, st, rc)
		if err != nil { // the server's status when it failed, else 2
			return cli.Wrap(cmp.Or(rec.ExitCode, cli.ExitTrouble), err)
		}
		if err := rec.Report(stderr, !cfg.out.Human(), args, msg.Note, msg.Warn); err != nil {
			return err
		}
		return cli.Exit(rec.ExitCode)
	}
	rc := record.Config{Options: record.Options{Store: st, Idle: cfg.idle, MaxBody: cfg.maxBody << 20, Model: cfg.model, Save: save,
		Packed: record.Printer(stdout, !cfg.out.Human()), Warn: msg.Warn, Note: msg.Note},
		Command: args, Listen: cfg.listen, Drain: cfg.drain, Stdin: stdin, Stdout: stdout, Stderr: stderr, Interactive: interactive}
	if len(args) == 0 {
		rc.Listening = func(url string) { msg.Notef("listening on %s; SIGINT or SIGTERM packs and stops", url) }
	}
	res, err := record.Run(ctx, rc)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	res.Report(msg.Note, msg.Warn)
	if res.ExitCode != 0 {
		return cli.Exit(res.ExitCode)
	}
	return cli.Wrap(cli.ExitTrouble, res.Err(args))
}
