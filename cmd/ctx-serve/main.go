// Command ctx-serve answers a client from a recorded session; see
// 'ctx serve --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-serve/servecmd"
)

func main() { os.Exit(servecmd.Main()) }
