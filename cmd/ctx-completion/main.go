// Command ctx-completion prints shell completion scripts; see 'ctx
// completion --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-completion/completioncmd"
)

func main() { os.Exit(completioncmd.Main()) }
