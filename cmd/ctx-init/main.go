// Command ctx-init creates a ctx store; see 'ctx init --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-init/initcmd"
)

func main() { os.Exit(initcmd.Main()) }
