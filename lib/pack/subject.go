package pack

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// MaxSubject bounds the subject ctx log shows of a pack, in characters,
// as git's one-line subjects stay short.
const MaxSubject = 60

// maxSubjectPrompt bounds the prompt read for a subject: one larger is
// not read (its subject is empty) so that indexing stays cheap.
const maxSubjectPrompt = 16 << 20

// Subject is what ctx log shows to tell packs apart, like git log's
// subject line: the run's task id (RunTask), else the first non-blank
// line of its first prompt that is not a system prompt, clipped to
// MaxSubject characters; "" when there is neither (or the prompt cannot be
// read). A manifest just built has the prompt's line from the build, when
// the log gave the prompt's bytes; otherwise the prompt is read from the
// store, its bytes verified as they are read.
func Subject(st *store.Store, m *Manifest) string {
	if t := m.RunTask(); t != nil {
		return clipLine(t.ID)
	}
	if m.subject != nil {
		return *m.subject
	}
	for _, p := range m.Prompts {
		if p.Role == "system" {
			continue
		}
		if n, err := st.Stat(p.ContentRef); err != nil || n > maxSubjectPrompt {
			return ""
		}
		b, err := st.ReadAll(p.ContentRef)
		if err != nil {
			return ""
		}
		return clipLine(string(firstLine(b)))
	}
	return ""
}

// firstLine is the first line of b that holds more than blanks.
func firstLine(b []byte) []byte {
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line
		}
	}
	return nil
}

// clipLine makes s one printable line of at most MaxSubject characters.
func clipLine(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(firstLineString(s)))
	return text.Clip(s, MaxSubject)
}

func firstLineString(s string) string { return string(firstLine([]byte(s))) }
