// Command ctx-export writes packs as a tar stream; see 'ctx export --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-export/exportcmd"
)

func main() { os.Exit(exportcmd.Main()) }
