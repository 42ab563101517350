// Command ctx-verify checks artifacts against the packs that produced them;
// see 'ctx verify --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-verify/verifycmd"
)

func main() { os.Exit(verifycmd.Main()) }
