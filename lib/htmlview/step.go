package htmlview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/text"
)

// lane is one step as a row of a page shows it.
type lane struct {
	Index     int
	Type      string
	Tool      string
	Params    string // the parameters on one line, clipped
	Said      string // show: the output's first line, for a step without parameters
	Size      string // output size, "" for no output
	Meta      string // "+3.0 s · 310 ms · 377→18 tok", what the run recorded
	MetaTitle string // what the latency and token figures are, for the tooltip
	Replay    string // the replay's status of this step, on a replayed side
	Outcome   string // "rejected" for a call that was refused and never ran
}

// clock turns step timestamps into offsets from the run's first one.
type clock struct {
	t0  time.Time
	has bool
}

func newClock(steps []pack.Step) clock {
	for _, s := range steps {
		if t, ok := parseTime(s.Timestamp); ok {
			return clock{t, true}
		}
	}
	return clock{}
}

func parseTime(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	return t, err == nil
}

// lane describes step s of a run whose clock is c.
func (c clock) lane(s pack.Step) *lane {
	l := &lane{Index: s.Index, Type: s.Type, Tool: s.Tool, Params: paramSummary(s.Parameters, 72), Outcome: s.Outcome}
	if s.OutputSize != nil {
		l.Size = text.Size(*s.OutputSize)
	} else if s.OutputRef != nil {
		l.Size = "?"
	}
	// The offset from the run's first step (whose time the header gives);
	// the tooltip says what the other figures are.
	var parts, long []string
	if t, ok := parseTime(s.Timestamp); ok && c.has {
		parts = append(parts, "+"+duration(t.Sub(c.t0)))
	}
	u := pack.StepUsage(&s)
	if u.Duration != nil {
		parts = append(parts, duration(*u.Duration))
		long = append(long, "took "+duration(*u.Duration))
	}
	if u.InputTokens != nil || u.OutputTokens != nil {
		in, out := count(int(deref(u.InputTokens))), count(int(deref(u.OutputTokens)))
		parts = append(parts, fmt.Sprintf("%s→%s tok", in, out))
		long = append(long, fmt.Sprintf("%s input and %s output tokens", in, out))
	}
	l.Meta = strings.Join(parts, " · ")
	if len(long) > 0 {
		l.MetaTitle = visText("at " + stringOr(s.Timestamp, "an unrecorded time") + ": " + strings.Join(long, ", "))
	}
	return l
}

func stringOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// duration formats a time span briefly: "340 ms", "12.3 s", "4m05s".
func duration(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%s%d ms", neg, d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%s%.1f s", neg, d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%s%dm%02ds", neg, int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%s%dh%02dm", neg, int(d.Hours()), int(d.Minutes())%60)
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// paramSummary is a step's parameters on one line: key=value in key order,
// a plain string value as itself and any other as compact JSON, each value
// clipped at 48 characters and the whole at n.
func paramSummary(raw json.RawMessage, n int) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" || string(t) == "{}" {
		return ""
	}
	var obj map[string]json.RawMessage
	if t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return text.Clip(compact(t), n)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(text.Clip(plainValue(obj[k]), 48))
		if b.Len() > 4*n {
			break
		}
	}
	return text.Clip(b.String(), n)
}

// plainValue is a value as it reads in a summary: a string that needs no
// quoting as itself, anything else as compact JSON (newlines escaped).
func plainValue(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" && utf8.ValidString(s) &&
			!strings.ContainsAny(s, " \t\r\n\"") {
			return s
		}
	}
	return compact(raw)
}

func compact(raw []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
