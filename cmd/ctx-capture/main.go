// Command ctx-capture packs the sessions coding agents keep in their own
// stores; see 'ctx capture --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-capture/capturecmd"
)

func main() { os.Exit(capturecmd.Main()) }
