package share

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Log is what ctx log lists: the packs of a store's index that a query
// keeps, newest first, with the refs that name them.
type Log struct {
	Entries  []pack.Listed
	Refs     map[store.Hash][]string // the refs naming each pack
	Total    int                     // the packs of the index, before the query
	Rebuilt  []pack.Rebuilt          // entries rebuilt from their manifests
	Problems []pack.IndexProblem     // entries that could not be read or rebuilt
}

// List reads the index of st (pack.ReadIndex) and the refs, and keeps what
// q selects. A ref that names a pack the index does not know means packs/
// was not copied with the objects: the refs are few, so those entries are
// rebuilt on the way (Rebuilt). now decides whether the index changed too
// recently to cache.
func List(st *store.Store, q pack.Query, now time.Time) (*Log, error) {
	ix, err := pack.ReadIndex(st, now)
	if err != nil {
		return nil, fmt.Errorf("cannot read the index %s: %v", filepath.Join(st.Root(), "packs"), err)
	}
	refs, err := st.Refs()
	if err != nil {
		return nil, fmt.Errorf("cannot read the refs: %v", err)
	}
	named := make([]store.Hash, 0, len(refs))
	for h := range refs {
		named = append(named, h)
	}
	slices.SortFunc(named, func(a, b store.Hash) int { return bytes.Compare(a[:], b[:]) })
	ix.Adopt(st, named)
	return &Log{Entries: pack.Select(ix.Entries, q), Refs: refs, Total: len(ix.Entries), Rebuilt: ix.Rebuilt, Problems: ix.Problems}, nil
}

// Warnings says, a sentence each, which entries were rebuilt and why.
func (l *Log) Warnings() []string {
	var out []string
	for _, r := range l.Rebuilt {
		unsaved := ""
		if r.Unsaved != nil {
			unsaved = fmt.Sprintf(" (but could not save it: %v)", r.Unsaved)
		}
		if r.Reason == "missing" {
			out = append(out, fmt.Sprintf("pack %s (%s) had no index entry; rebuilt it from its manifest%s", r.Hash, strings.Join(l.Refs[r.Hash], ", "), unsaved))
		} else {
			out = append(out, fmt.Sprintf("%s; rebuilt it from its manifest%s", r.Reason, unsaved))
		}
	}
	return out
}

// record is one line of --json, fields in the contract's order; created
// is null for a pack whose run recorded no time.
type record struct {
	Hash    store.Hash  `json:"hash"`
	Created *string     `json:"created"`
	Model   string      `json:"model"`
	Steps   int         `json:"steps"`
	Parent  *store.Hash `json:"parent"`
	Refs    []string    `json:"refs"`
}

// Write writes the list: one line per pack (hash, recorded time or "time
// unknown", model, steps, parent, refs, and last the subject, as git log
// --oneline ends with it), the hash in colour when color is set, or with
// asJSON one NDJSON record per pack.
func (l *Log) Write(out io.Writer, asJSON, color bool) error {
	entries, refs := l.Entries, l.Refs
	w := bufio.NewWriterSize(out, 64<<10)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, e := range entries {
			r := refs[e.Hash]
			if r == nil {
				r = []string{}
			}
			var created *string
			if e.Created != "" {
				created = &e.Created
			}
			if err := enc.Encode(record{Hash: e.Hash, Created: created, Model: e.Model, Steps: e.Steps, Parent: e.Parent, Refs: r}); err != nil {
				return err
			}
		}
		return w.Flush()
	}
	createdW, modelW, stepsW := 0, 0, 0
	for _, e := range entries {
		createdW = max(createdW, utf8.RuneCountInString(printable(text.Time(e.Created))))
		modelW = max(modelW, utf8.RuneCountInString(text.Clip(printable(e.Model), maxModel)))
		stepsW = max(stepsW, len(strconv.Itoa(e.Steps)))
	}
	var line []byte
	for _, e := range entries {
		line = line[:0]
		line = appendShort(line, e.Hash, color)
		line = append(line, "  "...)
		line = pad(line, printable(text.Time(e.Created)), createdW)
		line = append(line, "  "...)
		line = pad(line, text.Clip(printable(e.Model), maxModel), modelW)
		line = append(line, "  "...)
		for n := len(strconv.Itoa(e.Steps)); n < stepsW; n++ {
			line = append(line, ' ')
		}
		line = strconv.AppendInt(line, int64(e.Steps), 10)
		if e.Steps == 1 {
			line = append(line, " step "...)
		} else {
			line = append(line, " steps"...)
		}
		if e.Rejected > 0 {
			line = append(line, " ("...)
			line = strconv.AppendInt(line, int64(e.Rejected), 10)
			line = append(line, " rejected)"...)
		}
		if e.End != "" {
			line = append(line, "  ended "...)
			line = append(line, printable(e.End)...)
		}
		if e.Parent != nil {
			line = append(line, "  parent "...)
			line = appendShort(line, *e.Parent, false)
		}
		if r := refs[e.Hash]; len(r) > 0 {
			line = append(line, "  "...)
			line = append(line, text.Paint(color, "36", decorate(r))...)
		}
		if e.Subject != "" {
			line = append(line, "  "...)
			line = append(line, printable(e.Subject)...)
		}
		line = append(bytes.TrimRight(line, " "), '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return w.Flush()
}

// appendShort appends the short hash (12 hex digits, as in 'ctx show'),
// yellow on a colour terminal like git's commit hashes.
func appendShort(b []byte, h store.Hash, color bool) []byte {
	if color {
		return append(b, text.Paint(true, "33", h.Short())...)
	}
	return hex.AppendEncode(b, h[:6])
}

// maxModel bounds the model column so one long identifier does not push
// every line wide.
const maxModel = 40

// decorate prints refs the way git decorates commits: (latest, tag: v1).
func decorate(refs []string) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		if r == store.LatestRef {
			parts[i] = r
		} else {
			parts[i] = "tag: " + r
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func pad(b []byte, s string, w int) []byte {
	b = append(b, s...)
	for n := utf8.RuneCountInString(s); n < w; n++ {
		b = append(b, ' ')
	}
	return b
}

// printable keeps a field from an index entry on its line: control
// characters (a newline in a model identifier) become U+FFFD.
func printable(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return strings.Map(func(r rune) rune {
				if r < 0x20 || r == 0x7f {
					return utf8.RuneError
				}
				return r
			}, s)
		}
	}
	return s
}
