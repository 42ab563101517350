// Command ctx-diff reports the drift between two runs; see 'ctx diff --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-diff/diffcmd"
)

func main() { os.Exit(diffcmd.Main()) }
