// Command ctx-pack turns an execution log into a pack; see 'ctx pack --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-pack/packcmd"
)

func main() { os.Exit(packcmd.Main()) }
