// Command ctx-fork makes an editable draft from a pack; see 'ctx fork --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-fork/forkcmd"
)

func main() { os.Exit(forkcmd.Main()) }
