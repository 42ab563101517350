package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// Options control a conversion.
type Options struct {
	// From is the format name, or "" / "auto" to recognise it from the
	// content.
	From string
	// Model is the model identifier for transcripts that name none.
	Model string
	// Sample picks one sample of an Inspect log by id (or id:epoch); ""
	// or "all" converts every sample as one run.
	Sample string
	// Record picks one record of an OpenHands output.jsonl by its
	// instance_id; "" converts every record, each as a log of its own.
	Record string
	// Warn receives warnings: things the transcript lacks or that could
	// not be mapped.
	Warn func(msg string)
	// Note receives information that is no warning: how a log holding
	// several runs was read.
	Note func(msg string)
	// Detected is told the format auto-detection chose, as soon as it
	// has chosen.
	Detected func(format string)
	// MaxExpanded caps the bytes a gzip input, or one member of a zip,
	// may expand to (0: DefaultMaxExpanded).
	MaxExpanded int64
}

// Format describes one transcript format ctx convert reads.
type Format struct {
	Name    string // what --from takes: "claude-code"
	Summary string // one line for --help
	// stream formats are read line by line; the others are read whole.
	stream func(r *bufio.Reader, w *writer) error
	doc    func(d *document, w *writer) error
	// detect recognises the format from a document's first value;
	// detectLine, a line-based format from its first line.
	detect     func(v any) bool
	detectLine func(line []byte) bool
}

// Formats returns every format, in the order auto-detection tries them.
func Formats() []Format {
	return []Format{
		{Name: "claude-code", Summary: "Claude Code session transcript (JSONL)", stream: convertClaudeCode},
		{Name: "pi", Summary: "pi coding agent session (JSONL)", stream: convertPi},
		{Name: "codex", Summary: "OpenAI Codex CLI rollout (JSONL, ~/.codex/sessions)", stream: convertCodex, detectLine: isCodexLine},
		{Name: "gemini-cli", Summary: "Gemini CLI chat recording (session-*.json or .jsonl)", stream: convertGemini, doc: convertGeminiDoc, detect: isGemini, detectLine: isGeminiLine},
		{Name: "atif", Summary: "Agent Trajectory Interchange Format (Harbor, Terminal-Bench)", doc: convertATIF, detect: isATIF},
		{Name: "mini-swe-agent", Summary: "mini-SWE-agent trajectory (.traj.json)", doc: convertMiniSWE, detect: isMiniSWE},
		{Name: "openai-agents", Summary: "OpenAI Agents SDK exported traces and spans (trace.span)", doc: convertAgents, detect: isAgents},
		{Name: "responses", Summary: "OpenAI Responses API items (input/output arrays, a response)", doc: convertResponses, detect: isResponses},
		{Name: "cline", Summary: "Cline api_conversation_history.json (Anthropic messages)", doc: convertCline, detect: isCline},
		{Name: "inspect", Summary: "Inspect AI eval log (.json, or .eval zip)", doc: convertInspect, detect: isInspect},
		{Name: "swe-spans", Summary: "SWE-bench span export ({instance_id, session_id, trajectory: llm_call/tool_call/judge_call})", doc: convertSpanTrajectory, detect: isSpanTrajectory},
		{Name: "swe-agent", Summary: "SWE-agent trajectory (.traj)", doc: convertSWEAgent, detect: isSWEAgent},
		{Name: "otel", Summary: "OpenTelemetry spans with gen_ai.* attributes (OTLP JSON or SDK span list)", doc: convertOTel, detect: isOTel},
		{Name: "openhands", Summary: "OpenHands event stream (actions and observations)", doc: convertOpenHands, detect: isOpenHands},
		{Name: "anthropic", Summary: "Anthropic Messages (tool_use / tool_result blocks)", doc: convertAnthropic, detect: isAnthropic},
		{Name: "openai", Summary: "OpenAI Chat Completions messages (tool_calls, role tool), bare or in a record", doc: convertOpenAI, detect: isOpenAI},
	}
}

func (o Options) detected(format string) {
	if o.Detected != nil {
		o.Detected(format)
	}
}

// FormatNames returns the names --from accepts.
func FormatNames() []string {
	var names []string
	for _, f := range Formats() {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

func formatByName(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// UnknownFormatError is a --from that names no format.
type UnknownFormatError struct{ Name string }

// Error names the format asked for and the ones there are.
func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q (one of auto, %s)", e.Name, strings.Join(FormatNames(), ", "))
}

// UndetectedError is input whose format could not be recognised.
type UndetectedError struct {
	Why string
	// Log is set when the input is an execution log already, to be
	// packed as it is.
	Log bool
}

// Error says what the input looks like and how to choose a format.
func (e *UndetectedError) Error() string {
	return "cannot tell the transcript's format: " + e.Why
}

// document is a transcript read whole: its bytes and its JSON values (a
// document is usually one value; OpenTelemetry exporters write several).
type document struct {
	data   []byte
	values []any
	zip    *zipDoc // an Inspect .eval archive
	opts   Options
}

// first is the document's first value, as a node.
func (d *document) first() node { return root(d.values[0], 0) }

// Convert reads a transcript from in and writes its execution log to out,
// as NDJSON events. file, when not nil, is the open file in reads from
// (random access lets a zip archive be read without a copy). It returns the
// name of the format it read.
//
// The log is written while the transcript is read, so a transcript found
// malformed halfway has already produced part of a log: its output then
// ends with an "error" event, which ctx pack refuses, so a broken
// transcript never becomes a pack by way of a pipe.
func Convert(in io.Reader, file *os.File, out io.Writer, opts Options) (string, error) {
	w := newWriter(out, opts)
	format, err := convertTo(in, file, w, opts)
	if err != nil && !w.failed {
		w.fail(err)
	}
	return format, err
}

func convertTo(in io.Reader, file *os.File, w *writer, opts Options) (string, error) {
	from := opts.From
	if from == "" {
		from = "auto"
	}
	var f Format
	if from != "auto" {
		var ok bool
		if f, ok = formatByName(from); !ok {
			return "", &UnknownFormatError{Name: from}
		}
	}
	br := bufio.NewReaderSize(in, 1<<20)
	magic, _ := br.Peek(4)
	if bytes.HasPrefix(magic, []byte{0x1f, 0x8b}) {
		// gzip: the corpus and many archives keep transcripts compressed.
		gz, err := gzip.NewReader(br)
		if err != nil {
			return "", &InputError{Msg: "bad gzip data: " + err.Error()}
		}
		defer gz.Close()
		expanded := newBudget(opts.MaxExpanded)
		br, file = bufio.NewReaderSize(expanded.reader(gzipErrors{gz}, "the gzip stream"), 1<<20), nil
		magic, _ = br.Peek(4)
	}
	if bytes.HasPrefix(magic, []byte("PK\x03\x04")) {
		if from != "auto" && from != "inspect" {
			return "", &InputError{Msg: fmt.Sprintf("the input is a zip archive, not a %s transcript (an Inspect .eval log is one: --from inspect)", from)}
		}
		if from == "auto" {
			opts.detected("inspect")
		}
		z, err := openZip(br, file, opts.MaxExpanded)
		if err != nil {
			return "inspect", err
		}
		defer z.close()
		return "inspect", convertInspect(&document{zip: z, opts: opts}, w)
	}

	// A line-based transcript is recognised from its first line, which is
	// read whole and put back, so nothing is held beyond one line.
	if from == "auto" || from == "openhands" || f.stream != nil {
		first, err := pack.ReadLine(br, nil)
		if err != nil && err != io.EOF {
			return "", err
		}
		rd := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(first), br), 1<<20)
		switch {
		case from == "auto" && isClaudeCodeLine(first):
			f, _ = formatByName("claude-code")
			opts.detected(f.Name)
		case from == "auto" && isPiLine(first):
			f, _ = formatByName("pi")
			opts.detected(f.Name)
		case (from == "auto" || from == "openhands") && isOpenHandsRecordLine(first):
			// An evaluation's output.jsonl: a run record per line.
			if from == "auto" {
				opts.detected("openhands")
			}
			return "openhands", convertOpenHandsRecords(rd, w)
		}
		if from == "auto" && f.Name == "" {
			for _, cand := range Formats() {
				if cand.detectLine != nil && cand.detectLine(first) {
					f = cand
					opts.detected(f.Name)
					break
				}
			}
		}
		if f.stream != nil {
			if opts.Record != "" {
				return f.Name, &InputError{Msg: fmt.Sprintf("--record picks a record of an OpenHands output.jsonl; this is a %s transcript", f.Name)}
			}
			return f.Name, f.stream(rd, w)
		}
		br = rd
	}

	data, err := io.ReadAll(br)
	if err != nil {
		return "", err
	}
	d := &document{data: data, opts: opts}
	if err := d.decode(); err != nil {
		return f.Name, err
	}
	if from == "auto" {
		for _, cand := range Formats() {
			if cand.detect != nil && cand.detect(d.values[0]) {
				f = cand
				break
			}
		}
		if f.Name == "" {
			if isExecutionLog(d.values[0]) {
				return "", &UndetectedError{Why: "it is an execution log already; pack it as it is (ctx pack FILE)", Log: true}
			}
			return "", &UndetectedError{Why: describe(d.values[0]) + "; give --from " + strings.Join(FormatNames(), "|")}
		}
		opts.detected(f.Name)
	}
	if opts.Record != "" && f.Name != "openhands" {
		return f.Name, &InputError{Msg: fmt.Sprintf("--record picks a record of an OpenHands output.jsonl; this is a %s transcript", f.Name)}
	}
	if len(d.values) > 1 && f.Name != "otel" && f.Name != "openai-agents" {
		return f.Name, &InputError{Line: d.lineOfValue(1), Msg: fmt.Sprintf("more than one JSON value: a %s transcript is one JSON document", f.Name)}
	}
	return f.Name, f.doc(d, w)
}

// gzipErrors reports damaged compressed data (a truncated stream, a bad
// checksum) as malformed input rather than as a failure to read.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = &InputError{Msg: "bad gzip data: " + err.Error()}
	}
	return n, err
}

// decode reads every JSON value of the document.
func (d *document) decode() error {
	if len(bytes.TrimSpace(d.data)) == 0 {
		return &InputError{Line: 1, Msg: "empty input: expected a transcript"}
	}
	dec := json.NewDecoder(bytes.NewReader(d.data))
	dec.UseNumber()
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return jsonError(d.data, err, 0)
		}
		d.values = append(d.values, v)
	}
	return nil
}

// lineOfValue returns the line where the i-th value starts (1-based), for
// messages.
func (d *document) lineOfValue(i int) int {
	dec := json.NewDecoder(bytes.NewReader(d.data))
	var skip json.RawMessage
	for k := 0; k < i; k++ {
		if dec.Decode(&skip) != nil {
			return 0
		}
	}
	off := dec.InputOffset()
	rest := d.data[off:]
	off += int64(len(rest) - len(bytes.TrimLeft(rest, " \t\r\n")))
	return 1 + bytes.Count(d.data[:off], []byte("\n"))
}

// isExecutionLog recognises ctx's own log, in either form, which needs no
// converting.
func isExecutionLog(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m["event"].(string); ok {
		return true
	}
	_, steps := m["steps"].([]any)
	_, prompts := m["prompts"].([]any)
	_, model := m["model"].(map[string]any)
	return steps && prompts && model
}

// describe says what a value looks like, for the message when no format
// matches.
func describe(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := sortedKeys(x)
		if len(keys) > 8 {
			keys = append(keys[:8], "...")
		}
		return "a JSON object with keys " + strings.Join(keys, ", ")
	case []any:
		if len(x) == 0 {
			return "an empty JSON array"
		}
		return "a JSON array of " + describe(x[0])
	}
	return "a JSON " + strings.TrimPrefix(strings.TrimPrefix(kindOf(v), "an "), "a ")
}
