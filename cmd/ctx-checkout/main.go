// Command ctx-checkout writes a pack's files into a directory; see
// 'ctx checkout --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-checkout/checkoutcmd"
)

func main() { os.Exit(checkoutcmd.Main()) }
