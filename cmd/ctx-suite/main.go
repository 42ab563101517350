// Command ctx-suite stores and compares the runs of an evaluation task by
// task; see 'ctx suite --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd"
)

func main() { os.Exit(suitecmd.Main()) }
