package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// The agents, by their program's name (internal/interop's components).
const (
	ClaudeCode = "claude"
	Codex      = "codex"
	Gemini     = "gemini"
	OpenCode   = "opencode"
)

// Agents lists the agents this package runs.
func Agents() []string { return []string{ClaudeCode, Codex, Gemini, OpenCode} }

// StubKey is the placeholder API key every agent sends the stand-in.
const StubKey = "stub-key"

// CodexModel is the model Codex is told to use: a name its own model list
// knows, so that it offers its apply_patch tool (for a name it does not
// know it falls back to metadata without one).
const CodexModel = "gpt-5.5"

// Timeout bounds one run of an agent.
const Timeout = 5 * time.Minute

// Home is an agent's home of its own: HOME, and the agent's configuration
// in it, pointing at the stand-in.
type Home struct {
	Agent string
	Dir   string // HOME
	Stub  *Stub
	bin   string
}

// RunsEnv is the variable that lets tests run the agents. Each run takes
// seconds, so they belong to make interop, which sets it, and not to
// make test.
const RunsEnv = "CTX_RUN_AGENTS"

// Need skips the test unless RunsEnv is set, and returns the agent's
// program; when the agent is not installed it skips the test, or fails it
// under CTX_REQUIRE_INTEROP. Call it first, before anything costly.
func Need(t testing.TB, agent string) string {
	t.Helper()
	if os.Getenv(RunsEnv) == "" {
		t.Skipf("a run of a real agent takes seconds: set %s=1 to run it (make interop does)", RunsEnv)
	}
	return interop.Need(t, agent)
}

// NewHome makes a fresh home for agent (ClaudeCode, Codex, Gemini or
// OpenCode) talking to stub (Need's conditions apply).
func NewHome(t testing.TB, agent string, stub *Stub) *Home {
	t.Helper()
	return NewHomeAt(t, agent, stub, t.TempDir())
}

// NewHomeAt is NewHome in the directory dir (made if missing), for homes
// whose path must stay the same from run to run (the corpus).
func NewHomeAt(t testing.TB, agent string, stub *Stub, dir string) *Home {
	t.Helper()
	h := &Home{Agent: agent, Dir: dir, Stub: stub}
	h.bin = Need(t, agent)
	if err := h.configure(); err != nil {
		t.Fatal(err)
	}
	return h
}

// ConfigDir is where the agent keeps its configuration and sessions in
// this home: $CLAUDE_CONFIG_DIR, $CODEX_HOME, ~/.gemini (the variables and
// the rules of lib/agentstore, which ctx capture and ctx restore read), or
// OpenCode's data directory ($XDG_DATA_HOME/opencode).
func (h *Home) ConfigDir() string {
	switch h.Agent {
	case ClaudeCode:
		return filepath.Join(h.Dir, ".claude")
	case Codex:
		return filepath.Join(h.Dir, ".codex")
	case Gemini:
		return filepath.Join(h.Dir, ".gemini")
	default:
		return filepath.Join(h.Dir, ".local", "share", "opencode")
	}
}

// configure writes the agent's configuration: its model API is the
// stand-in's, and its update checks, telemetry and downloads are off.
func (h *Home) configure() error {
	write := func(path, text string) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(text), 0o600)
	}
	switch h.Agent {
	case ClaudeCode:
		return os.MkdirAll(h.ConfigDir(), 0o700)
	case Codex:
		return write(filepath.Join(h.ConfigDir(), "config.toml"), CodexConfig(h.Stub.URL))
	case Gemini:
		return write(filepath.Join(h.ConfigDir(), "settings.json"), GeminiSettings)
	case OpenCode:
		return write(filepath.Join(h.Dir, ".config", "opencode", "opencode.json"), OpenCodeConfig(h.Stub.URL))
	}
	return fmt.Errorf("agenttest: unknown agent %q (known: %s)", h.Agent, strings.Join(Agents(), ", "))
}

// CodexConfig is Codex's config.toml for the stand-in at url: the model
// provider "stub" (Responses API, key from $STUB_KEY) and its model; no
// update check, no analytics, no plugins or apps (both fetch from
// outside).
func CodexConfig(url string) string {
	return `model = "` + CodexModel + `"
model_provider = "stub"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
apps = false

[model_providers.stub]
name = "stub"
base_url = "` + url + `/v1"
wire_api = "responses"
env_key = "STUB_KEY"
`
}

// GeminiSettings is Gemini CLI's settings.json: an API key's
// authentication (GEMINI_API_KEY, sent to GOOGLE_GEMINI_BASE_URL), no
// usage statistics, telemetry or update checks.
const GeminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}
`

// OpenCodeConfig is OpenCode's opencode.json for the stand-in at url: a
// provider "stub" on the AI SDK's OpenAI-compatible package (Chat
// Completions), its model "stub-model" for the main and the small model
// (titles), no automatic update, no sharing.
func OpenCodeConfig(url string) string {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"stub": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Stub",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": StubKey},
			"models":  map[string]any{"stub-model": map[string]any{"name": "Stub model", "tool_call": true}},
		}},
		"model": "stub/stub-model", "small_model": "stub/stub-model",
		"autoupdate": false, "share": "disabled",
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return string(b) + "\n"
}

// Env is the environment the agent runs in: nothing of the test's but
// PATH, the home, the stand-in as its model API and as the proxy of
// everything else (so a request meant for elsewhere is refused and logged,
// never sent), and the switches that turn off updates and telemetry.
func (h *Home) Env() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + h.Dir,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"XDG_CONFIG_HOME=" + filepath.Join(h.Dir, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(h.Dir, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(h.Dir, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(h.Dir, ".cache"),
		"HTTPS_PROXY=" + h.Stub.URL, "HTTP_PROXY=" + h.Stub.URL, "ALL_PROXY=" + h.Stub.URL,
		"https_proxy=" + h.Stub.URL, "http_proxy=" + h.Stub.URL, "all_proxy=" + h.Stub.URL,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"npm_config_offline=true",
	}
	switch h.Agent {
	case ClaudeCode:
		env = append(env,
			agentstore.ClaudeConfigEnv+"="+h.ConfigDir(),
			"ANTHROPIC_BASE_URL="+h.Stub.URL,
			"ANTHROPIC_API_KEY="+StubKey,
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_TELEMETRY=1",
			"DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	case Codex:
		env = append(env, agentstore.CodexHomeEnv+"="+h.ConfigDir(), "STUB_KEY="+StubKey)
	case Gemini:
		env = append(env,
			"GEMINI_API_KEY="+StubKey,
			"GOOGLE_GEMINI_BASE_URL="+h.Stub.URL,
			"GEMINI_CLI_TRUST_WORKSPACE=true",
			"GEMINI_CLI_NO_RELAUNCH=true")
	case OpenCode:
		env = append(env,
			"OPENCODE_DISABLE_AUTOUPDATE=1",
			"OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
			"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
			"OPENCODE_DISABLE_SHARE=1")
	}
	return env
}

// Headless is the agent's arguments for a new session that runs prompt
// without asking anything and prints JSON lines on standard output:
//
//	claude -p PROMPT --output-format stream-json --verbose --allowedTools ...
//	codex exec --json --skip-git-repo-check -s danger-full-access PROMPT
//	gemini --yolo -o stream-json -p PROMPT
//	opencode run --format json PROMPT
func (h *Home) Headless(prompt string) []string {
	switch h.Agent {
	case ClaudeCode:
		return []string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", claudeTools}
	case Codex:
		return []string{"exec", "--json", "--skip-git-repo-check", "-s", "danger-full-access", prompt}
	case Gemini:
		return []string{"--yolo", "-o", "stream-json", "-p", prompt}
	default:
		return []string{"run", "--format", "json", prompt}
	}
}

// ResumeArgs is the agent's arguments to continue a session headless with
// prompt: the session id, or with id "" the project's latest session.
//
//	claude -p PROMPT ... --resume ID | --continue
//	codex exec resume --json ... ID | --last PROMPT
//	gemini --yolo -o stream-json --resume ID | latest -p PROMPT
//	opencode run --format json --session ID | --continue PROMPT
func (h *Home) ResumeArgs(id, prompt string) []string {
	switch h.Agent {
	case ClaudeCode:
		if id == "" {
			return append(h.Headless(prompt), "--continue")
		}
		return append(h.Headless(prompt), "--resume", id)
	case Codex:
		args := []string{"exec", "resume", "--json", "--skip-git-repo-check"}
		if id == "" {
			return append(args, "--last", prompt)
		}
		return append(args, id, prompt)
	case Gemini:
		if id == "" {
			id = "latest"
		}
		return []string{"--yolo", "-o", "stream-json", "--resume", id, "-p", prompt}
	default:
		if id == "" {
			return []string{"run", "--format", "json", "--continue", prompt}
		}
		return []string{"run", "--format", "json", "--session", id, prompt}
	}
}

// claudeTools are the tools Claude Code may use without asking in -p mode
// (root may not bypass its permissions).
const claudeTools = "Read,Write,Edit,Bash,Glob,Grep,Task,Agent"

// Result is what one run of an agent gave.
type Result struct {
	Args    []string
	Stdout  []byte
	Stderr  []byte
	Elapsed time.Duration
	Err     error // nil when it exited 0
}

// Lines decodes the JSON lines of standard output (lines that are not JSON
// objects are left out).
func (r Result) Lines() []map[string]any {
	var out []map[string]any
	for _, line := range bytes.Split(r.Stdout, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// Prompt runs a new headless session of prompt in dir (Headless), with
// extra arguments after, and fails the test unless it exits 0.
func (h *Home) Prompt(t testing.TB, dir, prompt string, extra ...string) Result {
	t.Helper()
	return h.Run(t, dir, append(h.Headless(prompt), extra...)...)
}

// Run runs the agent with args in dir and fails the test unless it exits 0.
func (h *Home) Run(t testing.TB, dir string, args ...string) Result {
	t.Helper()
	r := h.Try(t, dir, args...)
	if r.Err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s\nstdout:\n%s", h.Agent, strings.Join(args, " "), r.Err, tail(r.Stderr), tail(r.Stdout))
	}
	return r
}

// Try runs the agent with args in dir, within Timeout, and returns what it
// gave whatever its exit status. The run's time is logged.
func (h *Home) Try(t testing.TB, dir string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Dir = dir
	cmd.Env = h.Env()
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := Result{Args: args, Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Elapsed: time.Since(start), Err: err}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("timed out after %v: %w", Timeout, err)
	}
	t.Logf("%s %s: %v in %.1fs", h.Agent, strings.Join(args, " "), exitText(r.Err), r.Elapsed.Seconds())
	return r
}

func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("exit %d", ee.ExitCode())
	}
	if err != nil {
		return err.Error()
	}
	return "exit 0"
}

// Version runs the agent's --version and returns its first line.
func (h *Home) Version(t testing.TB) string {
	t.Helper()
	r := h.Run(t, h.Dir, "--version")
	for _, line := range strings.Split(string(r.Stdout), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

func tail(b []byte) string {
	const max = 4000
	if len(b) > max {
		return "..." + string(b[len(b)-max:])
	}
	return string(b)
}
