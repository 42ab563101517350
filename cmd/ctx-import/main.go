// Command ctx-import stores the packs of a tar stream; see 'ctx import --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-import/importcmd"
)

func main() { os.Exit(importcmd.Main()) }
