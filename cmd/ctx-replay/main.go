// Command ctx-replay re-executes a pack's steps; see 'ctx replay --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-replay/replaycmd"
)

func main() { os.Exit(replaycmd.Main()) }
