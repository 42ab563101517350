// Command ctx-convert turns an agent transcript into an execution log; see
// 'ctx convert --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-convert/convertcmd"
)

func main() { os.Exit(convertcmd.Main()) }
