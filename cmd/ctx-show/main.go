// Command ctx-show prints a pack; see 'ctx show --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-show/showcmd"
)

func main() { os.Exit(showcmd.Main()) }
