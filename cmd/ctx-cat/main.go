// Command ctx-cat prints the raw bytes of an object or of a part of a pack;
// see 'ctx cat --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-cat/catcmd"
)

func main() { os.Exit(catcmd.Main()) }
