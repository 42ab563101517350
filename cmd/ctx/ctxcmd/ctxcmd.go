// Package ctxcmd is the ctx dispatcher: 'ctx VERB ARGS...' finds the
// program ctx-VERB on the lookup path and runs it in its place, and 'ctx
// help' lists the verbs it can find.
//
// It must never read a verb's arguments, never look up a verb name that
// could leave the lookup directories (a path separator, "..", a leading
// dash), and never stand between a verb and its streams, signals or exit
// status.
package ctxcmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/execpath"
	"github.com/contextsubstrate/ctx/lib/text"
)

const name = "ctx"

// verbPrefix and toolPrefix are the file name prefixes of verbs and of
// replay's tool executors.
const (
	verbPrefix = "ctx-"
	toolPrefix = "ctx-tool-"
)

// Main runs ctx with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx: help and version itself, anything else runs ctx-VERB with
// the remaining arguments. When the streams are the process's own it
// replaces the process with the verb (on Unix); otherwise it runs the verb as
// a child on the given streams and returns its exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return help(stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help":
		switch len(args) {
		case 1:
			return help(stdout, stderr)
		case 2:
			if builtin(args[1]) {
				return help(stdout, stderr)
			}
			return dispatch(ctx, args[1], []string{"--help"}, stdin, stdout, stderr)
		}
		return cli.Usagef("ctx help takes at most one verb")
	case "version", "--version":
		if len(args) > 1 {
			return cli.Usagef("ctx %s takes no arguments", args[0])
		}
		_, err := fmt.Fprintf(stdout, "ctx %s\n", cli.Version())
		return err
	}
	return dispatch(ctx, args[0], args[1:], stdin, stdout, stderr)
}

// dispatch runs ctx-VERB with args, or says why it cannot.
func dispatch(ctx context.Context, verb string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := checkVerb(verb); err != nil {
		return err
	}
	dirs := execpath.Dirs()
	prog := verbPrefix + verb
	path, ok := execpath.Lookup(prog, dirs)
	if !ok {
		return notFound(verb, dirs, stderr)
	}
	return run(ctx, path, prog, args, stdin, stdout, stderr)
}

// checkVerb refuses a verb name before any lookup: a name that could point
// outside the lookup directories, a flag given before the verb, and the
// names of replay executors.
func checkVerb(verb string) error {
	switch {
	case verb == "":
		return cli.Errorf(cli.ExitTrouble, "an empty verb name is not a ctx command").
			WithHint("'ctx help' lists the verbs")
	case verb == "-":
		return cli.Errorf(cli.ExitTrouble, "'-' is not a ctx command").
			WithHint("'ctx help' lists the verbs")
	case strings.HasPrefix(verb, "-"):
		return cli.Errorf(cli.ExitTrouble, "unknown flag %s: ctx takes no flags before the verb", plain(verb)).
			WithHint("put it after the verb: ctx VERB %s ...", plain(verb))
	}
	if err := execpath.CheckName(verb); err != nil {
		return cli.Errorf(cli.ExitTrouble, "%s is not a ctx command: a verb is a plain name, never a path", quote(verb)).
			WithHint("'ctx help' lists the verbs")
	}
	if strings.HasPrefix(verbPrefix+verb, toolPrefix) {
		return cli.Errorf(cli.ExitTrouble, "%s is a replay executor, not a ctx command", quote(verb)).
			WithHint("'ctx replay' runs ctx-tool-* programs; run %s%s directly to try one", verbPrefix, verb)
	}
	return nil
}

// notFound explains why no ctx-VERB runs: one of our verbs that is not
// installed, a file that is there but not executable, or an unknown verb
// in the contract's words, with the verbs it might have meant.
func notFound(verb string, dirs []string, stderr io.Writer) error {
	if summary(verb) != "" {
		return cli.Errorf(cli.ExitTrouble, "'%s' is a ctx verb, but no ctx-%s program was found", verb, verb).
			WithHint("ctx looks in CTX_EXEC_PATH, then the directory of ctx, then PATH; install ctx-%s in one of them", verb)
	}
	progs := execpath.List(verbPrefix, dirs)
	fmt.Fprintf(stderr, "ctx: %s is not a ctx command; see 'ctx help'\n", quote(verb))
	msg := cli.Messenger{Name: name, W: stderr}
	for _, p := range progs {
		if p.Name == verbPrefix+verb && !p.Executable {
			msg.Hintf("%s is there but is not executable", p.Path)
		}
	}
	candidates := []string{"help", "version"}
	for _, p := range progs {
		v := strings.TrimPrefix(p.Name, verbPrefix)
		if p.Runs() && listable(v) == nil {
			candidates = append(candidates, v)
		}
	}
	if hint := text.DidYouMean(verb, candidates); hint != "" {
		msg.Hintf("%s", hint)
	}
	return cli.Exit(cli.ExitTrouble)
}

// listable says why a ctx-NAME program is not a verb 'ctx NAME' can run,
// or nil when it is.
func listable(verb string) error {
	if builtin(verb) {
		return fmt.Errorf("'ctx %s' is built into ctx", verb)
	}
	if strings.HasPrefix(verbPrefix+verb, toolPrefix) {
		return fmt.Errorf("it is a replay executor")
	}
	if err := checkVerb(verb); err != nil {
		return fmt.Errorf("%s is not a verb name", quote(verb))
	}
	return nil
}

// quote puts a name from the command line in single quotes, or in Go
// quotes when it holds anything unprintable, so a crafted name can never
// forge a line of the message.
func quote(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return "'" + s + "'"
}

// plain is quote without the single quotes, for flags.
func plain(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return s
}
