// Package interop finds the real third-party programs some tests run against
// (the CNCF distribution registry, headless Chromium, the oras and cosign
// CLIs, the coding agents from npm). It never installs anything: .ci/run
// does that.
//
// The policy is one for every test: a program that is present is used; a
// program that is absent skips the test with how to install it, unless
// CTX_REQUIRE_INTEROP is set (as .ci/run sets it), in which case its absence
// fails the test. So `make test` works on a machine with only Go, and CI
// never passes by skipping.
package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Component is a program a test can need, with how a person installs it.
type Component struct {
	Name    string // the program's name on PATH
	Install string // the command that installs it
	// Modules are npm packages the component also needs, installed in
	// testdata/npm (NPMDir) from its package.json.
	Modules []string
	// NPMBin, when set, is where the program is instead of PATH: the
	// name of a program an npm package of testdata/npm installs in
	// node_modules/.bin.
	NPMBin string
}

// npmInstall is how a person installs the npm packages tests use.
const npmInstall = "npm install --prefix testdata/npm"

// Components lists the programs tests may require, by the name tests use.
func Components() map[string]Component {
	return map[string]Component{
		"docker-registry": {"docker-registry", "apt-get install docker-registry", nil, ""},
		"chromium":        {"chromium", "apt-get install chromium", nil, ""},
		"oras":            {"oras", "go install oras.land/oras/cmd/oras@" + OrasVersion, nil, ""},
		"cosign":          {"cosign", "go install github.com/sigstore/cosign/v2/cmd/cosign@" + CosignVersion, nil, ""},
		// The MCP TypeScript SDK's client and the reference filesystem
		// server, run by node.
		"node-mcp": {"node", npmInstall, []string{"@modelcontextprotocol/sdk", "@modelcontextprotocol/server-filesystem"}, ""},
		// DuckDB's Node.js client, which reads ctx suite's Parquet files.
		"duckdb-node": {"node", npmInstall, []string{"@duckdb/node-api"}, ""},
		// The coding agents, each a native program (Claude Code's and
		// OpenCode's put in place by their postinstall scripts, which
		// .ci/run runs) or node's (Codex's launcher of its native
		// program, Gemini CLI). internal/agenttest runs them.
		"claude":   {"claude", npmInstall + " (then node install.cjs in node_modules/@anthropic-ai/claude-code)", []string{"@anthropic-ai/claude-code"}, "claude"},
		"codex":    {"codex", npmInstall, []string{"@openai/codex"}, "codex"},
		"gemini":   {"gemini", npmInstall, []string{"@google/gemini-cli"}, "gemini"},
		"opencode": {"opencode", npmInstall + " (then node postinstall.mjs in node_modules/opencode-ai)", []string{"opencode-ai"}, "opencode"},
	}
}

// The pinned versions of the coding agents, as each one's --version
// prints them (testdata/npm/package.json pins the same).
const (
	ClaudeCodeVersion = "2.1.328"
	CodexVersion      = "0.169.0"
	GeminiCLIVersion  = "0.61.0"
	OpenCodeVersion   = "1.18.33"
)

// The pinned versions of the Go-built clients, installed by .ci/run.
const (
	OrasVersion   = "v1.3.6"
	CosignVersion = "v2.6.5"
)

// Required reports whether a missing component fails a test instead of
// skipping it.
func Required() bool { return os.Getenv("CTX_REQUIRE_INTEROP") != "" }

// Look returns the path of the named component, or an error saying how to
// install it.
func Look(name string) (string, error) {
	c, ok := Components()[name]
	if !ok {
		return "", fmt.Errorf("interop: unknown component %q", name)
	}
	var p string
	if c.NPMBin == "" {
		var err error
		if p, err = exec.LookPath(c.Name); err != nil {
			return "", fmt.Errorf("%s is not installed (install it with: %s)", c.Name, c.Install)
		}
	}
	if len(c.Modules) > 0 {
		dir, err := NPMDir()
		if err != nil {
			return "", err
		}
		for _, m := range c.Modules {
			if _, err := os.Stat(filepath.Join(dir, "node_modules", m, "package.json")); err != nil {
				return "", fmt.Errorf("the npm package %s is not installed (install it with: %s)", m, c.Install)
			}
		}
		if c.NPMBin != "" {
			p = filepath.Join(dir, "node_modules", ".bin", c.NPMBin)
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%s is not installed (install it with: %s)", p, c.Install)
			}
		}
	}
	return p, nil
}

// NPMDir is the absolute path of testdata/npm, where the npm packages that
// tests run are installed (its package.json pins them).
func NPMDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "npm"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("interop: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Need returns the path of the named component; when it is absent, the test
// is skipped, or failed under CTX_REQUIRE_INTEROP.
func Need(t testing.TB, name string) string {
	t.Helper()
	p, err := Look(name)
	if err == nil {
		return p
	}
	if Required() {
		t.Fatalf("%v; CTX_REQUIRE_INTEROP is set, so this test may not skip", err)
	}
	t.Skipf("%v; set CTX_REQUIRE_INTEROP=1 to make its absence a failure", err)
	return ""
}

// Condition evaluates the testscript condition [interop:NAME]: true when the
// component is present; when it is absent, false (the script skips itself
// with `[!interop:NAME] skip`), or an error under CTX_REQUIRE_INTEROP.
func Condition(name string) (bool, error) {
	_, err := Look(name)
	if err == nil {
		return true, nil
	}
	if Required() {
		return false, fmt.Errorf("%v; CTX_REQUIRE_INTEROP is set", err)
	}
	return false, nil
}
