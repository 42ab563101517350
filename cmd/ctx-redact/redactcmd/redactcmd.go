// Package redactcmd is ctx redact: a copy of a pack without its secrets.
package redactcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/redact"
)

const name = "ctx-redact"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx redact [flags] PACK",
		Summary:  "Make a new pack with every match of the rules replaced by a marker; the original stays.",
		Exits:    []string{"0", "2"},
		Args:     cli.ExactArgs(1, "ctx redact takes one pack name"),
		Help: `Replaces every match of each --pattern (Go's RE2 syntax), and with
--secrets every credential the detectors of 'ctx push' find, by
[REDACTED:<first 12 hex digits of the SHA-256 of the matched text>], so two
redacted packs show the same value in the same places. It looks in the
system prompt, the prompts, the text inputs, the steps' parameters and
outputs, the outputs and their notes, the model's parameters, the
environment and every metadata (string values; keys are kept). --input
NAME replaces that input whole by the marker of its content. Binary
content (a NUL byte in its first 8 KiB) is never edited: when it matches
it is replaced whole by its marker, with a warning.

The new pack's parent is the original, which is not changed; its
metadata records the rules under "ctx_redactions" (a pattern that is plain
text is recorded as its marker), never what they matched. 'ctx diff
ORIGINAL REDACTED' shows exactly the places redacted. Outputs whose bytes
changed no longer match the original's artifacts; the others verify
against both packs.

RE2 runs in time linear in the text: no pattern can backtrack
catastrophically. A pattern that does not compile is an error (exit 2)
naming it; one that matches any text is allowed, with a warning. Contents
are streamed; a match is found whole up to 64 KiB long.

Prints ctx://<hex> of the new pack; --json prints {"hash", "uri",
"parent", "redacted", "places": [{"part", "field", "redacted",
"dropped"}]}.`,
		Examples: `ctx redact --secrets latest
ctx redact --pattern 'cust-[0-9]{6}' --input .env --tag shareable latest
ctx redact --secrets --json latest | jq '.places'
ctx diff latest $(ctx redact --secrets latest) --human
ctx push $(ctx redact --secrets run1) registry.example.com/runs:v1`,
	}
}

type config struct {
	store    string
	out      cli.Output
	patterns cli.Strings
	secrets  bool
	inputs   cli.Strings
	tags     cli.Strings
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print {hash, uri, parent, redacted, places}", cli.Human: "print ctx://<hex> of the redacted pack"})
	fs.Var(&c.patterns, "pattern", "redact every match of `REGEX` (repeatable)")
	fs.BoolVar(&c.secrets, "secrets", false, "redact what the secret detectors of ctx push find")
	fs.Var(&c.inputs, "input", "replace the input `NAME` whole (repeatable)")
	fs.Var(&c.tags, "tag", "also name the new pack refs/tags/`NAME` (repeatable)")
}

// Check wants a rule, and patterns that compile.
func (c *config) Check([]string) error {
	if len(c.patterns) == 0 && !c.secrets && len(c.inputs) == 0 {
		return cli.Usagef("give what to redact: --pattern REGEX, --secrets or --input NAME")
	}
	if err := cli.CheckTags(c.tags); err != nil {
		return err
	}
	if _, err := redact.Check(c.rules()); err != nil {
		var pe *redact.PatternError
		if errors.As(err, &pe) {
			return cli.Usagef("%v", err)
		}
		return err
	}
	return nil
}

func (c *config) rules() redact.Rules {
	return redact.Rules{Patterns: c.patterns, Secrets: c.secrets, Inputs: c.inputs}
}

// Main runs ctx redact with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx redact.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	_, st, m, err := cli.ParsePack(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	warnings, _ := redact.Check(cfg.rules())
	for _, w := range warnings {
		msg.Warnf("%s", w)
	}
	res, err := redact.Redact(st, m, redact.Options{Rules: cfg.rules(), Tags: cfg.tags,
		Warn: func(w string) { msg.Warnf("%s", w) }})
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if len(res.Places) == 0 {
		msg.Notef("nothing matched: the new pack differs from %s only by its parent and the record of the rules", res.Parent)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, res)
	}
	_, err = fmt.Fprintln(stdout, res.URI)
	return err
}
