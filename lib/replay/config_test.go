package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	good := []struct {
		doc  string
		want map[string]ConfigTool
	}{
		{`{"version": 1}`, map[string]ConfigTool{}},
		{`{"version": 1, "other": {"x": 1}, "tools": null}`, map[string]ConfigTool{}},
		{`{"version":1,"tools":{"grep":{"command":["rg","--json"],"version":"14.1"}}}`,
			map[string]ConfigTool{"grep": {Command: []string{"rg", "--json"}, Version: "14.1"}}},
		{`{"tools":{"my tool":{"command":["./bin/t"]}}}`,
			map[string]ConfigTool{"my tool": {Command: []string{"./bin/t"}}}},
	}
	for _, tt := range good {
		got, err := ParseConfig([]byte(tt.doc))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseConfig(%s) = %v, %v; want %v", tt.doc, got, err, tt.want)
		}
	}
	bad := map[string]string{
		``:                                      "not a JSON object",
		`[]`:                                    "not a JSON object",
		`null`:                                  "not a JSON object",
		`{} {}`:                                 "after the JSON object",
		`{"version": 2}`:                        "version: 2 is not supported",
		`{"tools": []}`:                         "tools: must be an object",
		`{"tools": {"x": "prog"}}`:              "tools.x: must be an object",
		`{"tools": {"x": {}}}`:                  "tools.x.command: missing",
		`{"tools": {"x": {"command": []}}}`:     "tools.x.command: must be a non-empty array",
		`{"tools": {"x": {"command": "prog"}}}`: "tools.x.command: must be a non-empty array",
		`{"tools": {"x": {"command": [""]}}}`:   "tools.x.command: the program name is empty",
		`{"tools": {"x": {"command": ["p"], "cmd": ["p"]}}}`:   "tools.x.cmd: unknown field",
		`{"tools": {"a-b": {"command": ["p"], "version": 1}}}`: `tools["a-b"].version: must be a string`,
		`{"tools": {"": {"command": ["p"]}}}`:                  "is not a tool name",
	}
	for doc, want := range bad {
		if _, err := ParseConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConfig(%s) = %v; want an error with %q", doc, err, want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	tools, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil || len(tools) != 0 {
		t.Errorf("a missing config.json: %v, %v; want no tools", tools, err)
	}
	p := filepath.Join(dir, "config.json")
	os.WriteFile(p, []byte(`{"tools": 3}`), 0o644)
	if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("a bad config.json: %v; want an error naming the file", err)
	}
}

func TestCommandPathIsNeverRelative(t *testing.T) {
	wd, _ := os.Getwd()
	if got := commandPath([]string{"./bin/t"}, "."); got[0] != filepath.Join(wd, "bin", "t") {
		t.Errorf("commandPath(./bin/t, .) = %q", got[0])
	}
}

func TestCommandPath(t *testing.T) {
	for in, want := range map[string]string{"prog": "prog", "./bin/t": "/base/bin/t", "bin/t": "/base/bin/t", "/usr/bin/t": "/usr/bin/t"} {
		if got := commandPath([]string{in, "x"}, "/base"); got[0] != want || got[1] != "x" {
			t.Errorf("commandPath(%q) = %v; want %q", in, got, want)
		}
	}
}
