// Command ctx-log lists the packs of a store; see 'ctx log --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-log/logcmd"
)

func main() { os.Exit(logcmd.Main()) }
