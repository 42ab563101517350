package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/sandbox"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Options control a replay. The zero value replays with the built-ins only,
// no shell, no time limit, on this machine's platform.
type Options struct {
	// AllowExec lets the shell built-ins (bash, shell, execute_command...)
	// run their commands.
	AllowExec bool
	// StepTimeout bounds each program a step runs (0: no limit).
	StepTimeout time.Duration
	// LookupDirs are searched for ctx-tool-NAME programs (execpath.Dirs).
	LookupDirs []string
	// Tools are the tools of .ctx/config.json; ConfigDir is where their
	// relative commands resolve (the directory holding .ctx).
	Tools     map[string]ConfigTool
	ConfigDir string
	// Sandbox confines every program the replay starts (shell steps,
	// ctx-tool-NAME programs, config tools); nil runs them with the
	// user's rights and environment.
	Sandbox *sandbox.Sandbox
	// Repo is the clone the workspace was checked out from (--repo), for
	// the report.
	Repo string
	// Unconfined says why programs run without a sandbox ("--no-sandbox"),
	// for the report.
	Unconfined string
	// BuiltinVersion is the version the built-ins report ("ctx v1.2.0").
	BuiltinVersion string
	// Platform is what the recorded os and arch are compared with; empty
	// fields are this machine's.
	Platform Platform
	// RunVersion runs the fixed program that reports a runtime's version
	// (python3 --version), for the runtime drift; nil is RunVersion.
	RunVersion func(ctx context.Context, argv []string) (string, error)
	// Save stores the replay as a new pack whose parent is the original,
	// tagged with Tags.
	Save bool
	Tags []string
	// Now is the clock of a saved pack's times (SOURCE_DATE_EPOCH).
	Now func() time.Time
	// Warn receives warnings; Progress is called after each step.
	Warn     func(string)
	Progress func(done, total int)
}

func (o *Options) warn(s string) {
	if o.Warn != nil {
		o.Warn(s)
	}
}

// Platform is the os and arch a replay runs on. The runtime is not part
// of it: a recorded runtime is compared with the same runtime on this
// machine (runtimeDrift), never with the Go that runs ctx.
type Platform struct{ OS, Arch string }

// CurrentPlatform is this machine's: GOOS and GOARCH.
func CurrentPlatform() Platform {
	return Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// runner is one replay in progress.
type runner struct {
	ctx   context.Context
	st    *store.Store
	m     *pack.Manifest
	ws    *Workspace
	opts  Options
	ex    *executors
	rec   pack.Environment
	buf   []byte
	sum   hash.Hash
	head  []byte       // a capture's kept start of an output, reused
	tail  []byte       // and its end
	batch *store.Batch // only when saving
	env   []string     // the environment of programs, without the per-step part
	ran   bool         // a program was started
	wd    workdirMap   // the recorded working directory and the workspace

	objects  map[store.Hash]error    // objects found damaged
	verified map[store.Hash]struct{} // objects found intact (a bounded memo)
	versions map[string]bool         // tools whose version was compared
	drift    struct{ env, versions, tools, inputs, objects []replaystream.Drift }
	missing  map[string]int      // tool -> index in drift.tools
	blockers []string            // why the replay cannot be saved
	steps    []replaystream.Step // the stream's step lines, for Save
	ranAt    []time.Time         // when each executed step ran, for Save
}

// Step is a step as Run emits it: the line of the replay stream, and, for
// a step whose output is not the recorded one, where the two texts first
// differ (Differs: for --human, never part of the stream; nil when it
// cannot be shown: no recorded output, or the difference lies beyond
// what the replay keeps of an output).
type Step struct {
	replaystream.Step
	Differs *text.LineDiff `json:"-"`
}

// Run replays m in ws: each step in order through its executor, one step
// line of the replay stream to emit as each finishes, and the report at
// the end. A step that fails does not stop the run. Run returns an error
// only when the replay itself cannot go on (emit failed, the context
// ended, the store cannot be written); with Save, a replay that cannot be
// saved returns its report and the error.
func Run(ctx context.Context, st *store.Store, m *pack.Manifest, ws *Workspace, opts Options, emit func(*Step) error) (*replaystream.Report, error) {
	return RunSteps(ctx, st, m, pack.StepsOf(m), ws, opts, emit)
}

// RunSteps is Run with m's steps read from steps (m.Steps is not looked
// at): a stored pack replays a step at a time (pack.Head,
// pack.StoredSteps), in the memory of one step. Save loads the whole
// manifest for the new pack.
func RunSteps(ctx context.Context, st *store.Store, m *pack.Manifest, steps pack.Steps, ws *Workspace, opts Options, emit func(*Step) error) (*replaystream.Report, error) {
	orig, err := store.ParseRef(m.Hash)
	if err != nil {
		return nil, errors.New("the manifest has no hash (load it with pack.Load)")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cur := CurrentPlatform()
	if opts.Platform.OS == "" {
		opts.Platform.OS = cur.OS
	}
	if opts.Platform.Arch == "" {
		opts.Platform.Arch = cur.Arch
	}
	if opts.RunVersion == nil {
		opts.RunVersion = RunVersion
	}
	r := &runner{
		ctx: ctx, st: st, m: m, ws: ws, opts: opts,
		rec:     m.Env(),
		buf:     make([]byte, 64<<10),
		head:    make([]byte, 0, keptHead),
		tail:    make([]byte, 0, keptTail),
		sum:     sha256.New(),
		objects: map[store.Hash]error{}, verified: map[store.Hash]struct{}{}, versions: map[string]bool{}, missing: map[string]int{},
	}
	r.env = append(os.Environ(), "CTX_WORKSPACE="+ws.dir, "CTX_PACK="+orig.String())
	if opts.Sandbox != nil {
		r.env = opts.Sandbox.Env(os.Environ(), "CTX_WORKSPACE="+ws.dir, "CTX_PACK="+orig.String())
	}
	r.ex = newExecutors(&r.opts, ws, sourceAgent(m.Metadata))
	r.ex.env = r.env
	r.wd = newWorkdirMap(r.rec.WorkingDir, ws.dir)
	if opts.Save {
		// The saved pack names objects of the original: until it is
		// indexed, ctx gc deletes nothing (store.LockWrites).
		unlock, err := st.LockWrites()
		if err != nil {
			return nil, fmt.Errorf("cannot save the replay: %w", err)
		}
		defer unlock()
		r.batch = st.NewBatch()
		r.ranAt = make([]time.Time, steps.N)
		defer r.batch.Abort() // after Publish there is nothing left to abort
	}

	r.environment()
	if err := r.inputs(); err != nil {
		return nil, err
	}
	rep := &replaystream.Report{Event: "report", Pack: orig, Diverged: []int{}, Failed: []int{}}
	it := steps.Open()
	defer it.Close()
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		res := r.step(i, s)
		rep.Counts.Add(res.Status)
		switch res.Status {
		case replaystream.Diverged:
			rep.Diverged = append(rep.Diverged, res.Index)
		case replaystream.Failed:
			rep.Failed = append(rep.Failed, res.Index)
		}
		if err := emit(&res); err != nil {
			return nil, err
		}
		if opts.Save {
			r.steps = append(r.steps, res.Step)
		}
		if opts.Progress != nil {
			opts.Progress(i+1, steps.N)
		}
	}
	r.closure()
	if r.ran {
		rep.Sandbox = "none"
		if opts.Unconfined != "" {
			rep.Sandbox = "none (" + opts.Unconfined + ")"
		}
		if opts.Sandbox != nil {
			rep.Sandbox = opts.Sandbox.Name()
		}
	}
	rep.Repository = repositoryNote(r.rec, opts.Repo)
	rep.Status = rep.Counts.Fidelity()
	if rep.Status == replaystream.Unverified {
		rep.Reason = rep.Counts.Unreproduced()
	}
	rep.Drift = r.driftList()
	if opts.Save {
		h, err := r.save(rep)
		if err != nil {
			return rep, err
		}
		rep.Saved = h.URI()
	}
	return rep, nil
}

// sourceAgent is the agent that made the run, as converters record it
// (metadata.source_format), or "".
func sourceAgent(meta json.RawMessage) string {
	var m struct {
		SourceFormat string `json:"source_format"`
	}
	_ = json.Unmarshal(meta, &m)
	return m.SourceFormat
}

// step replays step i. The recorded output it is compared with is the
// normalised one when the step has it (the plain result an executor
// gives, where the agent showed it in its own form), else the output.
func (r *runner) step(i int, s *pack.Step) Step {
	expected := s.OutputRef
	if s.NormalizedOutputRef != nil {
		expected = s.NormalizedOutputRef
	}
	res := replaystream.Step{Event: "step", Index: s.Index, Tool: s.Tool, Deterministic: s.Deterministic, Expected: expected}
	var recordedErr error
	if s.OutputRef != nil {
		recordedErr = r.object(*s.OutputRef, func() string { return fmt.Sprintf("steps[%d].output_ref", i) })
	}
	if s.NormalizedOutputRef != nil {
		if err := r.object(*s.NormalizedOutputRef, func() string { return fmt.Sprintf("steps[%d].normalized_output_ref", i) }); recordedErr == nil {
			recordedErr = err
		}
	}
	if s.Outcome == pack.OutcomeRejected {
		// Refused in the recorded run: it never ran, so it never runs
		// here, whatever executor or flag there is. The refusal stands in.
		if recordedErr != nil {
			r.blockers = append(r.blockers, fmt.Sprintf("steps[%d]: the recorded refusal cannot stand in: %v", i, recordedErr))
		}
		res.Status, res.Actual, res.ActualSize = replaystream.SkippedRejected, expected, r.recordedSize(s, expected)
		return Step{Step: res}
	}
	ex, gate := r.ex.forStep(s)
	if ex == nil {
		switch {
		case !s.Deterministic && recordedErr != nil:
			return Step{Step: r.fail(res, fmt.Sprintf("the recorded output %s cannot stand in: %v", expected, recordedErr))}
		case !s.Deterministic:
			res.Status, res.Actual, res.ActualSize = replaystream.Recorded, expected, r.recordedSize(s, expected)
			return Step{Step: res}
		case gate != "":
			// Held back by a flag: nothing was tried, so nothing failed;
			// the replayed run keeps the recording, which must be there.
			if recordedErr != nil {
				r.blockers = append(r.blockers, fmt.Sprintf("steps[%d]: the recorded output cannot stand in: %v", i, recordedErr))
			}
			res.Status, res.Reason = replaystream.NotAllowed, gate
			return Step{Step: res}
		}
		r.missingTool(r.ex.missingName(s), s.Index)
		return Step{Step: r.fail(res, r.ex.noExecutor(s))}
	}
	r.toolVersion(s.Tool, ex)

	at := r.opts.Now()
	out := r.capture(true)
	var err error
	if r.wd.rec != "" {
		om := r.wd.output(out)
		if err = r.execute(ex, s, om); err == nil {
			err = om.flush()
		}
	} else {
		err = r.execute(ex, s, out)
	}
	h, n, err := out.finish(err)
	forks := 0
	if r.opts.Sandbox != nil && isProgram(ex) {
		forks = r.opts.Sandbox.RefusedForks()
	}
	if err != nil {
		res = r.fail(res, err.Error())
		res.Note = r.note(ex, out, err.Error(), forks)
		return Step{Step: res}
	}
	res.Actual, res.ActualSize = &h, &n
	switch {
	case expected != nil && h == *expected:
		res.Status = replaystream.Matched
	case s.Deterministic:
		res.Status = replaystream.Diverged
	default:
		res.Status = replaystream.DivergedExpected
	}
	if r.ranAt != nil {
		r.ranAt[i] = at
	}
	if res.Status == replaystream.Matched {
		return Step{Step: res}
	}
	res.Note = r.note(ex, out, "", forks)
	return Step{Step: res, Differs: r.differs(expected, out)}
}

// isProgram says whether ex starts a program: a ctx-tool-NAME program, a
// config tool, a shell built-in.
func isProgram(ex executor) bool {
	b, builtin := ex.(builtinExec)
	return !builtin || b.kind == agenttool.Shell
}

// note is what the sandbox may have done to the program of a step that
// did not match: Explain of what it printed (the start and end of its
// output, and the reason it failed).
func (r *runner) note(ex executor, out *capture, reason string, forks int) string {
	if r.opts.Sandbox == nil || !isProgram(ex) {
		return ""
	}
	printed := string(out.head)
	if out.n > int64(len(out.head)) {
		printed += "\n" + string(out.tail.b)
	}
	return r.opts.Sandbox.Explain(printed+"\n"+reason, forks)
}

// differs is where the output a step produced (what the capture kept of
// it) first differs from the recorded one, or nil when that cannot be
// said: no recorded output, or one the store cannot give, or a first
// difference beyond what was kept.
func (r *runner) differs(expected *store.Hash, out *capture) *text.LineDiff {
	if expected == nil {
		return nil
	}
	rec, err := r.st.Open(*expected)
	if err != nil {
		return nil
	}
	defer rec.Close()
	var actual io.Reader = bytes.NewReader(out.head)
	if out.n > int64(len(out.head)) {
		actual = io.MultiReader(actual, errReader{errCut})
	}
	d, found, err := text.FirstDiff(rec, actual)
	if err != nil || !found {
		return nil
	}
	return &d
}

// errCut ends what a capture kept of an output longer than that.
var errCut = errors.New("the output was longer than what the replay keeps of it")

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func (r *runner) execute(ex executor, s *pack.Step, out io.Writer) error {
	raw := r.wd.params(s.Parameters)
	p, err := parseParams(raw)
	if err != nil {
		return err
	}
	c := &call{ctx: r.ctx, ws: r.ws, p: p, out: out, buf: r.buf, timeout: r.opts.StepTimeout, plain: s.NormalizedOutputRef != nil, sb: r.opts.Sandbox}
	// Programs (plugins, config tools, the shell) get the parameters on
	// stdin and the step in their environment; file built-ins need neither.
	if isProgram(ex) {
		c.env = append(r.env[:len(r.env):len(r.env)], "CTX_STEP_INDEX="+strconv.Itoa(s.Index), "CTX_TOOL="+s.Tool)
		c.stdin = append(append(make([]byte, 0, len(raw)+1), raw...), '\n')
		r.ran = true
	}
	return ex.run(c)
}

func (r *runner) fail(res replaystream.Step, reason string) replaystream.Step {
	res.Status, res.Actual, res.ActualSize, res.Reason = replaystream.Failed, nil, nil, reason
	return res
}

// recordedSize is the size of the recorded object h of step s (its output
// or its normalised output), from the manifest or the store.
func (r *runner) recordedSize(s *pack.Step, h *store.Hash) *int64 {
	switch {
	case h == nil:
		return nil
	case s.OutputSize != nil && s.OutputRef != nil && *s.OutputRef == *h:
		return s.OutputSize
	}
	if n, err := r.st.Stat(*h); err == nil {
		return &n
	}
	return nil
}

// toolVersion compares, once per tool, the version recorded in
// environment.tool_versions with what the executor reports.
func (r *runner) toolVersion(tool string, ex executor) {
	if r.versions[tool] {
		return
	}
	r.versions[tool] = true
	rec, ok := r.rec.ToolVersions[tool]
	if !ok {
		return
	}
	cur, has := ex.version(r.ctx)
	if has && cur == rec {
		return
	}
	d := replaystream.Drift{Kind: replaystream.DriftToolVersion, Tool: tool, Recorded: rec}
	if has {
		d.Current = &cur
	}
	r.drift.versions = append(r.drift.versions, d)
}

func (r *runner) missingTool(tool string, index int) {
	if i, ok := r.missing[tool]; ok {
		r.drift.tools[i].Steps = append(r.drift.tools[i].Steps, index)
		return
	}
	r.missing[tool] = len(r.drift.tools)
	r.drift.tools = append(r.drift.tools, replaystream.Drift{Kind: replaystream.DriftMissingTool, Tool: tool, Steps: []int{index}})
}

// environment compares the recorded os, arch and runtime with the
// platform the replay runs on.
func (r *runner) environment() {
	cmp := func(field, recorded, current string, same bool) {
		if recorded != "" && !same {
			r.drift.env = append(r.drift.env, replaystream.Drift{Kind: replaystream.DriftEnvironment, Field: field, Recorded: recorded, Current: &current})
		}
	}
	p := r.opts.Platform
	cmp("os", r.rec.OS, p.OS, normalOS(r.rec.OS) == p.OS)
	cmp("arch", r.rec.Arch, p.Arch, normalArch(r.rec.Arch) == p.Arch)
	if d := runtimeDrift(r.ctx, r.rec.Runtime, r.opts.RunVersion); d != nil {
		r.drift.env = append(r.drift.env, replaystream.Drift{Kind: replaystream.DriftEnvironment, Field: "runtime", Recorded: r.rec.Runtime, Current: d.current, Reason: d.reason})
	}
}

// normalOS maps the names runs record for an os to Go's (macOS is darwin).
func normalOS(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "macos", "mac", "osx", "mac os x", "macosx":
		return "darwin"
	case "win32", "win64", "win", "cygwin", "msys":
		return "windows"
	}
	return s
}

// normalArch maps the names runs record for an architecture to Go's.
func normalArch(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "x86_64", "x64", "x86-64":
		return "amd64"
	case "aarch64", "arm64e":
		return "arm64"
	case "i386", "i686", "x86":
		return "386"
	}
	return s
}

// inputs puts the pack's inputs in a temporary workspace, or, against a
// --workdir tree, compares the tree's files with them.
func (r *runner) inputs() error {
	if !r.ws.temp {
		for _, f := range r.m.Inputs {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			r.treeInput(f)
		}
		return nil
	}
	for _, f := range r.m.Inputs {
		r.ws.prepareDir(f.Name)
	}
	// Creating files is most of the cost of a replay with many inputs and
	// few steps; a few copies at once hide some of the file system's
	// latency. The results are taken in order, so the drift is the same
	// whatever the schedule.
	type staged struct {
		d   *replaystream.Drift
		why string
	}
	results := make([]staged, len(r.m.Inputs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(stageWorkers, len(r.m.Inputs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 64<<10)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(r.m.Inputs) || r.ctx.Err() != nil {
					return
				}
				d, why := r.ws.stage(r.st, r.m.Inputs[i], buf)
				results[i] = staged{d, why}
			}
		}()
	}
	wg.Wait()
	if err := r.ctx.Err(); err != nil {
		return err
	}
	for i, f := range r.m.Inputs {
		res := results[i]
		if res.d == nil {
			r.objects[f.ContentRef] = nil
			continue
		}
		r.ws.unavailable[f.Name] = res.why
		r.drift.inputs = append(r.drift.inputs, *res.d)
		if res.d.Kind == replaystream.DriftCorruptInput || res.d.Reason == "" {
			// The blob itself is damaged or gone; a name that could not be
			// placed says nothing about it.
			r.objects[f.ContentRef] = errors.New(res.why)
		}
		r.blockers = append(r.blockers, fmt.Sprintf("input %s is not available (expected %s)", f.Name, f.ContentRef))
	}
	return nil
}

// stageWorkers is how many inputs are copied into a workspace at once.
const stageWorkers = 4

// treeInput checks one input against the --workdir tree.
func (r *runner) treeInput(f pack.File) {
	if err := pack.CheckName(f.Name); err != nil {
		r.drift.inputs = append(r.drift.inputs, replaystream.Drift{Kind: replaystream.DriftMissingInput, Name: f.Name, Expected: f.ContentRef, Reason: err.Error()})
		return
	}
	c := r.capture(false)
	h, _, err := c.finish(r.ws.hashFile(f.Name, c, r.buf))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.drift.inputs = append(r.drift.inputs, replaystream.Drift{Kind: replaystream.DriftMissingInput, Name: f.Name, Expected: f.ContentRef, Reason: "not in the working tree"})
		return
	case err != nil:
		r.drift.inputs = append(r.drift.inputs, replaystream.Drift{Kind: replaystream.DriftMissingInput, Name: f.Name, Expected: f.ContentRef, Reason: err.Error()})
		return
	case h != f.ContentRef:
		r.drift.inputs = append(r.drift.inputs, replaystream.Drift{Kind: replaystream.DriftChangedInput, Name: f.Name, Expected: f.ContentRef, Actual: &h})
	}
}

// object verifies object h of the pack once, recording the drift the first
// time it is found missing or damaged, and returns what is wrong with it.
// where names the manifest field for the drift; it is only formatted when
// needed, the cached path being the hot one.
func (r *runner) object(h store.Hash, whereFn func() string) error {
	if err, ok := r.objects[h]; ok {
		return err
	}
	if _, ok := r.verified[h]; ok {
		return nil
	}
	_, err := r.st.Verify(h)
	where := ""
	if err != nil {
		where = whereFn()
	}
	var ce *store.CorruptError
	switch {
	case err == nil:
	case errors.As(err, &ce):
		r.drift.objects = append(r.drift.objects, replaystream.Drift{Kind: replaystream.DriftCorruptObject, Where: where, Expected: h, Actual: ce.Actual})
		err = errors.New("it is corrupt in the store")
	case errors.Is(err, store.ErrNotFound):
		r.drift.objects = append(r.drift.objects, replaystream.Drift{Kind: replaystream.DriftMissingObject, Where: where, Expected: h})
		err = errors.New("it is missing from the store")
	default:
		r.drift.objects = append(r.drift.objects, replaystream.Drift{Kind: replaystream.DriftMissingObject, Where: where, Expected: h})
	}
	if err == nil {
		if len(r.verified) >= maxVerified {
			clear(r.verified) // verified again if met again: memory stays flat
		}
		r.verified[h] = struct{}{}
		return nil
	}
	r.objects[h] = err
	return err
}

// maxVerified bounds the memo of intact objects (about 3 MiB).
const maxVerified = 1 << 16

// closure checks the objects no step reads: the system prompt, the prompts
// and the outputs. A saved replay would reference the prompts, so a damaged
// one keeps it from being saved.
func (r *runner) closure() {
	block := func(h store.Hash, where string) {
		if err := r.object(h, func() string { return where }); err != nil {
			r.blockers = append(r.blockers, fmt.Sprintf("%s %s: %v", where, h, err))
		}
	}
	if r.m.SystemPrompt != nil {
		block(*r.m.SystemPrompt, "system_prompt")
	}
	for i, p := range r.m.Prompts {
		block(p.ContentRef, fmt.Sprintf("prompts[%d]", i))
	}
	for i, o := range r.m.Outputs {
		r.object(o.ContentRef, func() string { return fmt.Sprintf("outputs[%d]", i) })
	}
}

// driftList orders the drift: environment, tool versions, missing tools,
// inputs, then objects, each in the order found.
func (r *runner) driftList() []replaystream.Drift {
	d := r.drift
	out := make([]replaystream.Drift, 0, len(d.env)+len(d.versions)+len(d.tools)+len(d.inputs)+len(d.objects))
	for _, part := range [][]replaystream.Drift{d.env, d.versions, d.tools, d.inputs, d.objects} {
		out = append(out, part...)
	}
	return out
}

// capture hashes what is written to it and, when saving and keep is set
// (a step's output), streams it into the store. It keeps the output's
// first keptHead bytes and its last keptTail, to show where a diverged
// output differs and what a program said of a refusal.
type capture struct {
	h    hash.Hash
	n    int64
	pw   *io.PipeWriter
	done chan store.Result
	head []byte
	tail *tail
}

// keptHead and keptTail bound what a capture keeps of an output.
const (
	keptHead = 256 << 10
	keptTail = 4 << 10
)

func (r *runner) capture(keep bool) *capture {
	r.sum.Reset()
	c := &capture{h: r.sum, head: r.head[:0], tail: &tail{b: r.tail[:0], max: keptTail}}
	if r.batch != nil && keep {
		pr, pw := io.Pipe()
		c.pw, c.done = pw, make(chan store.Result, 1)
		go func() {
			h, n, err := r.batch.PutReader(pr)
			pr.CloseWithError(err)
			c.done <- store.Result{Hash: h, Size: n, Err: err}
		}()
	}
	return c
}

func (c *capture) Write(p []byte) (int, error) {
	c.h.Write(p)
	c.n += int64(len(p))
	room := min(keptHead-len(c.head), len(p))
	c.head = append(c.head, p[:room]...)
	if room < len(p) {
		c.tail.Write(p[room:])
	}
	if c.pw != nil {
		return c.pw.Write(p)
	}
	return len(p), nil
}

// finish ends the capture: the hash and size of what was written, or err
// (the executor's) when there is one; what was stored for a failed step
// is dropped.
func (c *capture) finish(err error) (store.Hash, int64, error) {
	if c.pw != nil {
		if err != nil {
			c.pw.CloseWithError(err)
			<-c.done
			return store.Hash{}, 0, err
		}
		c.pw.Close()
		if res := <-c.done; res.Err != nil {
			return store.Hash{}, 0, fmt.Errorf("cannot store the output: %v", res.Err)
		}
	}
	if err != nil {
		return store.Hash{}, 0, err
	}
	var h store.Hash
	c.h.Sum(h[:0])
	return h, c.n, nil
}

// save stores the replayed run (replaystream.Replayed of the stream the
// replay wrote) as a new pack whose parent is the original, with the time
// of the replay as created and each executed step's time as its
// timestamp.
func (r *runner) save(rep *replaystream.Report) (store.Hash, error) {
	r.saveable()
	if len(r.blockers) > 0 {
		return store.Hash{}, fmt.Errorf("cannot save the replay: %s", strings.Join(r.blockers, "; "))
	}
	m := r.m
	if len(m.Steps) != len(r.steps) {
		// Replayed a step at a time: the new pack needs them all.
		full, err := pack.Load(r.st, rep.Pack)
		if err != nil {
			return store.Hash{}, fmt.Errorf("cannot save the replay: %v", err)
		}
		m = full
	}
	nm, warnings, err := replaystream.Replayed(m, &replaystream.Stream{Steps: r.steps, Report: *rep})
	if err != nil {
		return store.Hash{}, fmt.Errorf("cannot save the replay: %v", err)
	}
	for _, w := range warnings {
		r.opts.warn(w)
	}
	created := r.opts.Now().UTC().Format(time.RFC3339)
	nm.Created = &created
	for i, at := range r.ranAt {
		if !at.IsZero() {
			ts := at.UTC().Format(time.RFC3339)
			nm.Steps[i].Timestamp = &ts
		}
	}
	pub, err := pack.Publish(r.st, r.batch, nm, r.opts.Tags, time.Now())
	if err != nil {
		return store.Hash{}, fmt.Errorf("cannot save the replay: %v", err)
	}
	return pub.Hash, nil
}

// saveable adds to the blockers the objects a saved replay would name that
// the replay has not found intact: the recorded outputs, and with a
// --workdir tree the recorded inputs, which it did not copy out of the
// store. The system prompt and prompts are checked by closure, the
// inputs of a temporary workspace as they were copied.
func (r *runner) saveable() {
	check := func(h store.Hash, where string) {
		err, seen := r.objects[h]
		if _, ok := r.verified[h]; ok {
			seen = true
		}
		if !seen {
			_, err = r.st.Verify(h)
		}
		if err != nil {
			r.blockers = append(r.blockers, fmt.Sprintf("%s %s: %v", where, h, err))
		}
	}
	for i, o := range r.m.Outputs {
		check(o.ContentRef, fmt.Sprintf("outputs[%d]", i))
	}
	if !r.ws.temp {
		for i, f := range r.m.Inputs {
			check(f.ContentRef, fmt.Sprintf("inputs[%d]", i))
		}
	}
}
