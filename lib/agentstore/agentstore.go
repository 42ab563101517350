// Package agentstore is what ctx knows of the coding agents' own stores of
// sessions: where each agent keeps them and which environment variables
// move them, how a working directory names its project folder, which
// files make one session, and the few fields a resume reads. ctx capture,
// ctx restore and the tests that run the real agents (internal/agenttest)
// share it, so the rules docs/RESTORE.md gives, found by experiment with
// the real programs, are written once.
//
// It reads the stores and names paths in them; it never writes a session
// (lib/session does) and knows nothing of packs.
package agentstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The agents, by the names ctx gives them (ctx capture --from, ctx restore
// --to, the first part of a captured session's tag).
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Gemini     = "gemini"
)

// The versions of the agents the rules were checked against (the
// versions testdata/npm pins); written into the records restore renders
// where an agent records its own version.
const (
	ClaudeCodeVersion = "2.1.328"
	CodexVersion      = "0.169.0"
	GeminiCLIVersion  = "0.61.0"
)

// The environment variables that move an agent's store.
const (
	// ClaudeConfigEnv replaces ~/.claude.
	ClaudeConfigEnv = "CLAUDE_CONFIG_DIR"
	// ClaudeProjectNameEnv, when ClaudeConfigEnv is set too and it is 1 to
	// 64 of [A-Za-z0-9_-], names the project folder instead of the rule.
	ClaudeProjectNameEnv = "CLAUDE_CODE_PROJECT_DIR_NAME"
	// CodexHomeEnv replaces ~/.codex.
	CodexHomeEnv = "CODEX_HOME"
	// GeminiHomeEnv replaces the home under which ~/.gemini lies.
	GeminiHomeEnv = "GEMINI_CLI_HOME"
)

// Agent is one agent ctx reads and writes the store of.
type Agent struct {
	Name    string // ctx's name: "claude-code"
	Program string // the program a user runs: "claude"
	Format  string // the ctx convert format of its session files
}

// Agents lists the agents, in the order capture visits them.
func Agents() []Agent {
	return []Agent{
		{Name: ClaudeCode, Program: "claude", Format: "claude-code"},
		{Name: Codex, Program: "codex", Format: "codex"},
		{Name: Gemini, Program: "gemini", Format: "gemini-cli"},
	}
}

// Names lists the agents' names.
func Names() []string {
	var out []string
	for _, a := range Agents() {
		out = append(out, a.Name)
	}
	return out
}

// Lookup returns the agent named name: ctx's name of it, or the ctx
// convert format of its sessions ("gemini-cli" is Gemini's), so that a
// name ctx convert takes names the same agent here.
func Lookup(name string) (Agent, error) {
	for _, a := range Agents() {
		if a.Name == name || a.Format == name {
			return a, nil
		}
	}
	return Agent{}, &UnknownAgentError{Name: name}
}

// ByFormat returns the agent whose session files are of the ctx convert
// format f ("gemini-cli" is Gemini's).
func ByFormat(f string) (Agent, bool) {
	for _, a := range Agents() {
		if a.Format == f {
			return a, true
		}
	}
	return Agent{}, false
}

// UnknownAgentError is an agent name ctx does not know.
type UnknownAgentError struct {
	Name string
	// All says that "all" is a name too (ctx capture --from).
	All bool
}

func (e *UnknownAgentError) Error() string {
	var known []string
	for _, a := range Agents() {
		n := a.Name
		if a.Format != a.Name {
			n += " (or " + a.Format + ")"
		}
		known = append(known, n)
	}
	if e.All {
		known = append(known, "all")
	}
	return fmt.Sprintf("unknown agent %q (known: %s)", e.Name, strings.Join(known, ", "))
}

// Getenv reads the environment: os.Getenv, or a test's map.
type Getenv func(string) string

// home is $HOME, which every store without its own variable lies under.
func home(env Getenv) (string, error) {
	h := env("HOME")
	if h == "" {
		return "", errors.New("HOME is not set: cannot tell where the agents keep their sessions")
	}
	return filepath.Clean(h), nil
}

// Dir is where agent keeps its configuration and sessions:
// $CLAUDE_CONFIG_DIR or ~/.claude; $CODEX_HOME or ~/.codex;
// $GEMINI_CLI_HOME/.gemini or ~/.gemini.
func Dir(agent string, env Getenv) (string, error) {
	switch agent {
	case ClaudeCode:
		if d := env(ClaudeConfigEnv); d != "" {
			return filepath.Clean(d), nil
		}
	case Codex:
		if d := env(CodexHomeEnv); d != "" {
			return filepath.Clean(d), nil
		}
	case Gemini:
		if d := env(GeminiHomeEnv); d != "" {
			return filepath.Join(filepath.Clean(d), ".gemini"), nil
		}
	default:
		return "", &UnknownAgentError{Name: agent}
	}
	h, err := home(env)
	if err != nil {
		return "", err
	}
	switch agent {
	case ClaudeCode:
		return filepath.Join(h, ".claude"), nil
	case Codex:
		return filepath.Join(h, ".codex"), nil
	}
	return filepath.Join(h, ".gemini"), nil
}

// WorkingDir is dir as the agents record it: absolute, cleaned, with
// symbolic links resolved (each agent takes its directory from getcwd).
func WorkingDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	return real, nil
}

// isDir reports whether p is a directory (not through a final symlink).
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
