// Package exportcmd is ctx suite export: suites as Parquet tables.
package exportcmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/suite"
	"github.com/contextsubstrate/ctx/lib/suite/tables"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx suite export --parquet DIR NAME...",
		Summary:  "Write suites as Parquet tables: tasks.parquet and steps.parquet.",
		Args:     cli.MinArgs(1, "ctx suite export takes at least one suite name"),
		Help: `Writes DIR/tasks.parquet, one row per run of every suite named (suite,
suite_hash, task, epoch, pack, passed, score, score_text, model, steps,
tool_calls, tokens, cost, duration_s, end, created), and DIR/steps.parquet,
one row per step of those runs (suite, task, epoch, pack, index, type,
tool, parameters as JSON text, output_ref, output_size, outcome, timestamp,
duration_s, tokens), for DuckDB, ClickHouse, Spark or BigQuery. Each file
is replaced whole or not at all. docs/SUITES.md shows DuckDB queries.`,
		Exits: []string{"0 the tables were written", "2"},
		Examples: `ctx suite export --parquet out/ baseline candidate
duckdb -c "SELECT suite, avg(passed::int) FROM 'out/tasks.parquet' GROUP BY suite"`,
	}
}

type config struct {
	store   string
	parquet string
	out     cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&c.parquet, "parquet", "", "write the Parquet tables into `DIR`")
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print {dir, files, runs, steps}", cli.Human: "print the files written"})
}

func (c *config) Check(args []string) error {
	if c.parquet == "" {
		return cli.Usagef("ctx suite export needs --parquet DIR (the one format it writes)")
	}
	return nil
}

// Run is ctx suite export, with the arguments after "export".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	var suites []*suite.Named
	for _, n := range args {
		s, err := suite.Resolve(st, n)
		if err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
		suites = append(suites, s)
	}
	rep, err := tables.Write(st, cfg.parquet, suites)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, rep)
	}
	for _, f := range rep.Files {
		if _, err := fmt.Fprintln(stdout, f); err != nil {
			return err
		}
	}
	cli.Messenger{Name: name, W: stderr}.Notef("%d runs, %d steps", rep.Runs, rep.Steps)
	return nil
}
