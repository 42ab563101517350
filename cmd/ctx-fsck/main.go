// Command ctx-fsck checks the integrity of a store; see 'ctx fsck --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-fsck/fsckcmd"
)

func main() { os.Exit(fsckcmd.Main()) }
