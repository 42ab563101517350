// Package recordcmd is ctx record: an agent's OpenTelemetry traces in,
// packs out, while it runs.
package recordcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
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
		Help: `Starts an OTLP/HTTP receiver (POST /v1/traces and /v1/logs, protobuf or
JSON, gzip or not) on 127.0.0.1, a free port, and runs CMD with
OTEL_EXPORTER_OTLP_ENDPOINT (and _TRACES_ENDPOINT, _LOGS_ENDPOINT,
_PROTOCOL) and OTEL_TRACES_EXPORTER=otlp pointing its exporter at it.
CMD's streams pass through untouched; signals are passed on to it (SIGINT
and SIGQUIT only when not typed on a terminal, which sends them to CMD
itself). When CMD exits, exports under way are waited for (at most
--drain), and each trace with GenAI spans (gen_ai.*, old and new, or
OpenInference) is mapped as 'ctx convert --from otel' maps it and packed:
one ctx://<hex> per pack. Traces without GenAI spans are ignored and
counted on stderr. Spans wait in a temporary file, not in memory.

With --listen and no CMD, the receiver runs until SIGINT or SIGTERM, which
pack the open traces; a trace is packed once its root span has ended and
no span came for --idle. An address without a host is the loopback; any
other interface is only used when named (with a warning).

A trace packed without its root span, or after the receiver refused
requests, says so in the pack's metadata and on stderr.

With --mcp, ctx record stands between an MCP client (on its standard
input and output) and the real MCP server SERVER_CMD, started on stdio:
every message is relayed both ways unchanged, byte for byte, and when the
client disconnects the session is packed: the server's initialize result
and tool list as inputs (mcp/initialize.json, mcp/tools.json), each
tools/call a step (the tool's name, its arguments, its result; isError
results and JSON-RPC errors kept as such; the time of each call). The
pack's name goes to standard error, which is also the server's. A server
that ends mid-session leaves the calls so far packed, and its end in the
pack's metadata. Serve the pack back with 'ctx serve --mcp'. See
docs/MCP.md.

With --mcp-url, the server speaks the streamable HTTP transport at URL:
ctx record serves the same path on --listen (127.0.0.1, a free port, by
default; its URL on standard error) and relays every request and response
unchanged, server-sent events as they come. With CMD, CMD runs with
CTX_MCP_URL set to that URL and the session is packed when it exits;
without, when SIGINT or SIGTERM comes.
Exit status: CMD's when it fails (128+N for signal N); else 0, or 2 when
nothing could be recorded (no GenAI trace, CMD not found, a port in use).`,
		Examples: `ctx record -- python agent.py --task fix-bug
ctx record --json --tag baseline -- ./run-agent.sh | jq -r .pack
ctx record --listen :4318          # a collector for any instrumented agent
OTEL_EXPORTER_OTLP_PROTOCOL=http/json ctx record -- node agent.js
ctx record --mcp --tag fs -- npx -y @modelcontextprotocol/server-filesystem .
ctx record --mcp-url http://127.0.0.1:8080/mcp --tag web -- ./agent.sh   # the agent reads $CTX_MCP_URL`,
	}
}

type config struct {
	store, listen, model string
	out                  cli.Output
	tags                 cli.Strings
	idle, drain          time.Duration
	maxBody              int64
	mcp                  bool
	mcpURL               string
	maxMessage           int64
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print one JSON line per pack: {trace_id, pack, steps, model, spans, incomplete}", cli.Human: "print ctx://<hex> per pack"})
	fs.Var(&c.tags, "tag", "also name each pack refs/tags/`NAME` (repeatable; with several packs, the last)")
	fs.StringVar(&c.listen, "listen", "", "listen on `ADDR` (HOST:PORT, :PORT or PORT); without CMD, run until SIGINT or SIGTERM")
	fs.DurationVar(&c.idle, "idle", 3*time.Second, "pack a trace whose root span ended once no span came for this `long`")
	fs.DurationVar(&c.drain, "drain", 2*time.Second, "after CMD exits, wait at most this `long` for exports still under way")
	fs.Int64Var(&c.maxBody, "max-body", record.DefaultMaxBody>>20, "refuse export requests over `MiB` (413)")
	fs.StringVar(&c.model, "model", "", "model identifier `ID` for traces that name none")
	fs.BoolVar(&c.mcp, "mcp", false, "relay an MCP client on stdio to the server SERVER_CMD and pack the session")
	fs.StringVar(&c.mcpURL, "mcp-url", "", "relay the MCP server at `URL` (streamable HTTP) on a local port and pack the session")
	fs.Int64Var(&c.maxMessage, "max-message", mcp.DefaultMaxMessage>>20, "with --mcp, record messages up to `MiB`; longer ones are relayed unrecorded")
}

func (c *config) Check(args []string) error {
	if c.mcpURL != "" {
		u, err := url.Parse(c.mcpURL)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return cli.Usagef("--mcp-url %q: want an http or https URL", c.mcpURL)
		case c.mcp:
			return cli.Usagef("--mcp (stdio) and --mcp-url (HTTP) do not go together")
		case c.maxMessage <= 0:
			return cli.Usagef("--max-message %d: want a positive number of MiB", c.maxMessage)
		}
		return cli.CheckTags(c.tags)
	}
	if c.mcp {
		switch {
		case len(args) == 0:
			return cli.Usagef("ctx record --mcp takes the server to run: -- SERVER_CMD [ARGS...]")
		case c.listen != "":
			return cli.Usagef("--mcp and --listen do not go together")
		case c.maxMessage <= 0:
			return cli.Usagef("--max-message %d: want a positive number of MiB", c.maxMessage)
		}
		return cli.CheckTags(c.tags)
	}
	if len(args) == 0 && c.listen == "" {
		return cli.Usagef("ctx record takes a command to run (-- CMD [ARGS...]) or --listen ADDR")
	}
	return cli.CheckTags(c.tags)
}

// Main runs ctx record with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx record.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	if cfg.mcp {
		return recordMCP(ctx, &cfg, args, st, stdin, stdout, stderr)
	}
	if cfg.mcpURL != "" {
		return recordMCPHTTP(ctx, &cfg, args, st, stdin, stdout, stderr)
	}
	if _, public, err := record.ListenAddr(cfg.listen); err != nil {
		return cli.Usagef("%v", err)
	} else if public {
		msg.Warnf("--listen %s: other machines can send traces to this receiver", cfg.listen)
	}
	out := cli.NewNDJSON(stdout)
	f, isFile := stdin.(*os.File)
	rc := record.Config{
		Options: record.Options{
			Store: st, Idle: cfg.idle, MaxBody: cfg.maxBody << 20, Model: cfg.model,
			Save: pack.SaveOptions{Tags: cfg.tags, Options: pack.Options{Root: ".", Store: st,
				Warn: msg.Warn}},
			Packed: func(p record.Packed) {
				if !cfg.out.Human() {
					_ = out.Encode(p)
				} else {
					fmt.Fprintln(stdout, p.Pack)
				}
			},
			Warn: msg.Warn, Note: msg.Note,
		},
		Command: args, Listen: cfg.listen, Drain: cfg.drain,
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
		Interactive: isFile && cli.IsTerminal(f),
	}
	if len(args) == 0 {
		rc.Listening = func(url string) { msg.Notef("listening on %s; SIGINT or SIGTERM packs and stops", url) }
	}
	res, err := record.Run(ctx, rc)
	if err != nil {
		return runError(err)
	}
	res.Report(msg.Note, msg.Warn)
	switch {
	case res.ExitCode != 0:
		return cli.Exit(res.ExitCode)
	case res.Failed > 0:
		return cli.Errorf(cli.ExitTrouble, "%d of %d traces could not be packed", res.Failed, res.Failed+res.Packs)
	case res.Packs == 0 && len(args) > 0 && res.ReceivedSpans:
		return cli.Errorf(cli.ExitTrouble, "nothing recorded: %s sent no trace with GenAI spans", args[0])
	case res.Packs == 0 && len(args) > 0:
		return cli.Errorf(cli.ExitTrouble, "nothing recorded: %s sent no span", args[0]).WithHint("is it instrumented, exporting OTLP over HTTP?")
	}
	return nil
}

// runError puts what stopped the recording in the message format.
func runError(err error) error {
	var nf *record.NotFoundError
	var le *record.ListenError
	switch {
	case errors.As(err, &nf):
		return cli.Errorf(cli.ExitTrouble, "cannot run %v", nf)
	case errors.As(err, &le):
		return cli.Errorf(cli.ExitTrouble, "%v", le).WithHint("another receiver (a collector?) may have the port; name another with --listen")
	}
	return cli.Wrap(cli.ExitTrouble, err)
}
