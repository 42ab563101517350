// Command ctx-restore writes a pack into a coding agent's own store, so
// that the agent resumes it; see 'ctx restore --help'.
package main

import (
	"os"

	"github.com/contextsubstrate/ctx/cmd/ctx-restore/restorecmd"
)

func main() { os.Exit(restorecmd.Main()) }
