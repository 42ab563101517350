package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/contextsubstrate/ctx/lib/execpath"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
	"github.com/contextsubstrate/ctx/lib/sandbox"
)

// executor runs the steps of one tool.
type executor interface {
	// version returns what the executor says its version is; ok is false
	// when it says nothing.
	version(ctx context.Context) (v string, ok bool)
	run(c *call) error
}

// builtinExec is a built-in tool. Built-ins are part of ctx, so their
// version is ctx's.
type builtinExec struct {
	kind agenttool.Kind
	ver  string
}

func (b builtinExec) version(context.Context) (string, bool) { return b.ver, b.ver != "" }
func (b builtinExec) run(c *call) error                      { return runBuiltin(b.kind, c) }

// programExec is a ctx-tool-NAME program or a config tool: the step's
// parameters as JSON on stdin, the output on stdout, exit status 0 when the
// tool could run. The label names it in reasons.
type programExec struct {
	label   string
	argv    []string
	dir     string // where --version runs: the workspace
	timeout time.Duration

	once    sync.Once
	ver     string
	hasVer  bool
	askVer  bool         // ask the program with --version (ctx-tool-NAME)
	warn    func(string) // told when --version fails
	verTime time.Duration
	sb      *sandbox.Sandbox // confines the program (nil: none)
	env     []string         // the environment of --version
}

func (p *programExec) version(ctx context.Context) (string, bool) {
	p.once.Do(func() {
		if !p.askVer {
			return
		}
		var out bytes.Buffer
		errs := &tail{max: 4 << 10}
		run := programRun{
			argv:    append(append([]string(nil), p.argv...), "--version"),
			dir:     p.dir,
			stdout:  &limitWriter{w: &out, n: 4 << 10},
			stderr:  errs,
			env:     p.env,
			timeout: p.verTime,
			sb:      p.sb,
		}
		code, err := run.run(ctx)
		switch {
		case err != nil:
			p.warn(fmt.Sprintf("%s --version: %v", p.label, err))
		case code != 0:
			p.warn(fmt.Sprintf("%s --version exited with status %d%s", p.label, code, colonLine(errs)))
		default:
			p.ver, p.hasVer = firstLine(out.Bytes()), true
		}
	})
	return p.ver, p.hasVer
}

func (p *programExec) run(c *call) error {
	errs := &tail{max: 4 << 10}
	run := programRun{
		argv:    p.argv,
		dir:     c.ws.dir,
		stdin:   c.stdin,
		stdout:  c.out,
		stderr:  errs,
		env:     c.env,
		timeout: c.timeout,
		sb:      c.sb,
	}
	code, err := run.run(c.ctx)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %v", p.label, err)
	case code != 0:
		return fmt.Errorf("%s exited with status %d%s", p.label, code, colonLine(errs))
	}
	return nil
}

// colonLine is ": <last line of stderr>" or nothing.
func colonLine(t *tail) string {
	if l := t.lastLine(); l != "" {
		return ": " + l
	}
	return ""
}

// limitWriter keeps the first n bytes and drops the rest without failing
// the writer, so a chatty --version cannot fill memory.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// executors finds and remembers the executor of each tool name, first match
// wins: a ctx-tool-NAME program on the lookup path, a tools entry of
// config.json, then a built-in: first those of the agent that made the
// run (metadata.source_format), which own their names, then the common
// ones. Built-ins run tool_call steps only: a model call that happens to
// share a tool's name is not that tool.
type executors struct {
	opts     *Options
	ws       *Workspace
	agent    string // the source agent: "swe-agent", ...
	builtins map[string]agenttool.Kind
	programs map[string]*programExec // nil value: looked up, none found
	swe      *sweState
	env      []string // the environment of programs
}

func newExecutors(opts *Options, ws *Workspace, agent string) *executors {
	return &executors{opts: opts, ws: ws, agent: agent, builtins: agenttool.Builtins(), programs: map[string]*programExec{}, swe: &sweState{}}
}

// forStep returns the executor of a step. With none, gate says why when a
// built-in exists but may not run (a shell tool without AllowExec).
func (e *executors) forStep(s *pack.Step) (ex executor, gate string) {
	tool := s.Tool
	p, looked := e.programs[tool]
	if !looked {
		p = e.program(tool)
		e.programs[tool] = p
	}
	if p != nil {
		return p, ""
	}
	if s.Type != "tool_call" {
		return nil, ""
	}
	k, ok := e.builtins[tool]
	if e.agent == "swe-agent" {
		if cmd, own := e.sweCommand(tool, k, s.Parameters); own {
			if !sweCommands()[cmd] {
				return nil, "" // known, with no executor: noExecutor says why
			}
			return sweExec{cmd: cmd, st: e.swe, ver: e.opts.BuiltinVersion}, ""
		}
	}
	if !ok {
		return nil, ""
	}
	if k == agenttool.Shell && !e.opts.AllowExec {
		return nil, fmt.Sprintf("tool %s runs shell commands, which replay runs only with --allow-exec", tool)
	}
	return builtinExec{kind: k, ver: e.opts.BuiltinVersion}, ""
}

// sweCommand says which SWE-agent command a step of a SWE-agent run is,
// if any: a step named after one, or a shell step whose command line
// starts with one (SWE-agent runs its commands in the task's shell, so
// a text action recorded as a shell step is that command, never a
// program of this machine that happens to share its name).
func (e *executors) sweCommand(tool string, k agenttool.Kind, raw json.RawMessage) (string, bool) {
	if sweCommands()[tool] || sweMissing()[tool] != "" {
		return tool, true
	}
	if k != agenttool.Shell {
		return "", false
	}
	p, err := parseParams(raw)
	if err != nil {
		return "", false
	}
	_, line, ok, err := p.str(agenttool.CommandKeys())
	if err != nil || !ok {
		return "", false
	}
	if name := sweCommandName(line); sweCommands()[name] || sweMissing()[name] != "" {
		return name, true
	}
	return "", false
}

// program looks tool up as a ctx-tool-NAME program, then in config.json.
// execpath.Lookup refuses a name with a path separator, so a tool name
// from a pack can never point at an arbitrary file.
func (e *executors) program(tool string) *programExec {
	if tool == "" {
		return nil // "ctx-tool-" is nobody's tool
	}
	verTime := 10 * time.Second
	if e.opts.StepTimeout > 0 {
		verTime = min(verTime, e.opts.StepTimeout)
	}
	if prog, ok := execpath.Lookup("ctx-tool-"+tool, e.opts.LookupDirs); ok {
		// Programs run in the workspace, where a relative path would name
		// whatever an earlier step put there: only an absolute one will do.
		if abs, err := filepath.Abs(prog); err == nil {
			prog = abs
		}
		return &programExec{label: "ctx-tool-" + tool, argv: []string{prog}, dir: e.ws.dir,
			askVer: true, warn: e.opts.warn, verTime: verTime, sb: e.opts.Sandbox, env: e.env}
	}
	if t, ok := e.opts.Tools[tool]; ok {
		return &programExec{label: "config tool " + tool, argv: commandPath(t.Command, e.opts.ConfigDir),
			dir: e.ws.dir, ver: t.Version, hasVer: t.Version != "", sb: e.opts.Sandbox}
	}
	return nil
}

// missingName is the tool a missing_tool drift names for a step: the
// SWE-agent command a shell step of a SWE-agent run holds, else its tool.
func (e *executors) missingName(s *pack.Step) string {
	if e.agent == "swe-agent" && s.Type == "tool_call" {
		if cmd, own := e.sweCommand(s.Tool, e.builtins[s.Tool], s.Parameters); own {
			return cmd
		}
	}
	return s.Tool
}

// noExecutor is the reason of a deterministic step nothing can run.
func (e *executors) noExecutor(s *pack.Step) string {
	tool, typ := s.Tool, s.Type
	if e.agent == "swe-agent" && typ == "tool_call" {
		if cmd, own := e.sweCommand(tool, e.builtins[tool], s.Parameters); own {
			return fmt.Sprintf("no executor for SWE-agent's %s: %s (a ctx-tool-%s program can run it)", cmd, sweMissing()[cmd], tool)
		}
	}
	if typ != "tool_call" {
		return fmt.Sprintf("no executor for %s step %q: no ctx-tool-%s on the lookup path and no tools entry in .ctx/config.json (built-ins run tool_call steps only)", typ, tool, tool)
	}
	return fmt.Sprintf("no executor for tool %q: no ctx-tool-%s on the lookup path, no tools entry in .ctx/config.json, and no built-in of that name", tool, tool)
}
