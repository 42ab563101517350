// Command ctx is the dispatcher: 'ctx VERB' runs ctx-VERB; see 'ctx help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx/ctxcmd"
)

func main() { os.Exit(ctxcmd.Main()) }
