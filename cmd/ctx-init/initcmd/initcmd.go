// Package initcmd is ctx init: it creates the .ctx store layout.
package initcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-init"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx init [flags] [DIR]",
		Summary:  "Create an empty ctx store (.ctx/) in DIR or the current directory.",
		Exits:    []string{"0 the store was made, or is there already", "2"},
		Args:     cli.MaxArgs(1, "too many arguments: ctx init takes at most one directory"),
		Help: `The store holds objects/ (every blob and manifest, named by SHA-256),
packs/ (one index entry per pack), refs/ (latest and tags), drafts/ and
config.json. --store X (CTX_STORE=X), as for every verb, names the store
directory itself: X is created, with the directories above it. Where a
store already exists, ctx init says so on stderr, changes nothing and
exits 0; where a file is in the way, it exits 2.

Directories and files get the modes the umask leaves. --shared=group makes
a store a group of users writes to, like git's core.sharedRepository:
directories get the group's write and the set-group-ID bit, files the
group's read, and config.json says "shared": "group" so every later write
keeps it so (see docs/STORE.md).`,
		Examples: `ctx init
ctx init ~/runs
CTX_STORE=/data/team/.ctx ctx init --shared=group`,
	}
}

type config struct {
	store  string
	shared string
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.store, "store", "", "create the store at `DIR`, the .ctx directory itself")
	fs.StringVar(&c.shared, "shared", "", "who writes to the store (`MODE`): group, its group's users")
}

// Check refuses DIR with --store, and a --shared that is not group.
func (c *config) Check(args []string) error {
	switch {
	case c.store != "" && len(args) > 0:
		return cli.Usagef("give a directory or --store (CTX_STORE), not both")
	case c.shared != "" && c.shared != store.SharedGroup:
		return cli.Usagef("--shared: %q is not %q", c.shared, store.SharedGroup)
	}
	return nil
}

// Main runs ctx init with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx init.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	root := cfg.store
	if root == "" {
		root = filepath.Join(cli.First(args), store.Dir)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	created, err := store.InitShared(abs, cfg.shared)
	if err != nil {
		return cli.Errorf(cli.ExitTrouble, "cannot create a store at %s: %v", abs, err)
	}
	if !created {
		cli.Messenger{Name: name, W: stderr}.Notef("a ctx store already exists at %s; nothing changed", abs)
		return nil
	}
	_, err = fmt.Fprintf(stdout, "initialized empty ctx store in %s\n", abs)
	return err
}
