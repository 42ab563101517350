package replay

import (
	"os"
	"strings"
	"testing"
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
	for name := range builtinTools() {
		names = append(names, name)
	}
	for _, keys := range [][]string{filePathKeys(), dirPathKeys(), contentKeys(), oldKeys(), newKeys(), patternKeys(), commandKeys()} {
		names = append(names, keys...)
	}
	for _, name := range names {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/REPLAY.md does not name `%s`", name)
		}
	}
}
