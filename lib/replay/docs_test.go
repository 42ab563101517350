package replay

import (
	"os"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// docs/REPLAY.md lists every built-in tool name and every parameter name;
// this keeps the table honest when one is added here.
func TestDocsListEveryBuiltin(t *testing.T) {
	b, err := os.ReadFile("../../docs/REPLAY.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var names []string
	for name := range agenttool.Builtins() {
		names = append(names, name)
	}
	for _, keys := range [][]string{agenttool.FilePathKeys(), agenttool.DirPathKeys(), agenttool.ContentKeys(), agenttool.OldKeys(), agenttool.NewKeys(), agenttool.PatternKeys(), agenttool.CommandKeys(), agenttool.InsertKeys()} {
		names = append(names, keys...)
	}
	// SWE-agent's commands and their parameters.
	for name := range sweCommands() {
		names = append(names, name)
	}
	for name := range sweMissing() {
		names = append(names, name)
	}
	for cmd := range agenttool.SWESignatures() {
		names = append(names, agenttool.SWEArgNames(cmd)...)
	}
	start, end, text := agenttool.SWELineEditArgs()
	names = append(names, start, end, text)
	for _, name := range names {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/REPLAY.md does not name `%s`", name)
		}
	}
}
