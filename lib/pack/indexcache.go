package pack

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// logCache is the file under .ctx/cache/ that holds the whole packs/ index.
const logCache = "log"

// cacheMagic starts the cache; a different format gets a different version
// and an older ctx simply rebuilds it. Version 2 added the checksum,
// version 3 the subject (and the order by stored time), version 4 the
// state the run ended in.
const cacheMagic = "ctx-log-cache 4\n"

// cacheSum starts the last line of the cache: the SHA-256 of everything
// before it, so a cache edited or damaged by hand is rebuilt from packs/
// rather than believed (as the stat cache is checked).
const cacheSum = "sum "

// encodeCache writes the index as one small text file: a header with the
// stamp of packs/ and the entry count, one line per entry in the order ctx
// log lists them (so sorting them again costs next to nothing), and an "end"
// line so a truncated file is never mistaken for a complete one. An entry's
// line holds, tab-separated: hex hash, steps (with "/N" when N of them
// were rejected), parent hex or "-", created and
// stored as Unix nanoseconds ("-" when they are not RFC 3339 times in that
// range), then created, stored, model, subject and end state as Go-quoted strings. Reading it
// needs no JSON and no time parsing, which is most of what reading
// thousands of index entries costs.
func encodeCache(stamp string, entries []Listed) []byte {
	sorted := make([]*Listed, len(entries))
	for i := range entries {
		sorted[i] = &entries[i]
	}
	slices.SortFunc(sorted, newer)
	b := make([]byte, 0, 64+len(entries)*240)
	b = append(b, cacheMagic...)
	b = append(b, stamp...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(entries)), 10)
	b = append(b, '\n')
	for _, e := range sorted {
		b = hex.AppendEncode(b, e.Hash[:])
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(e.Steps), 10)
		if e.Rejected > 0 {
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(e.Rejected), 10)
		}
		b = append(b, '\t')
		if e.Parent != nil {
			b = hex.AppendEncode(b, e.Parent[:])
		} else {
			b = append(b, '-')
		}
		b = append(b, '\t')
		b = appendNanos(b, e.CreatedAt)
		b = append(b, '\t')
		b = appendNanos(b, e.StoredAt)
		for _, s := range []string{e.Created, e.Stored, e.Model, e.Subject, e.End} {
			b = append(b, '\t')
			b = strconv.AppendQuote(b, s)
		}
		b = append(b, '\n')
	}
	b = append(b, "end\n"...)
	sum := store.Sum(b)
	b = append(b, cacheSum...)
	b = hex.AppendEncode(b, sum[:])
	return append(b, '\n')
}

// checkCacheSum returns the cache without its checksum line, or an error
// when the checksum is missing or does not match.
func checkCacheSum(b []byte) ([]byte, error) {
	i := bytes.LastIndex(b, []byte("\n"+cacheSum))
	if i < 0 {
		return nil, errors.New("no checksum")
	}
	body, line := b[:i+1], b[i+1+len(cacheSum):]
	sum := store.Sum(body)
	if want := hex.AppendEncode(nil, sum[:]); string(line) != string(want)+"\n" {
		return nil, errors.New("its checksum does not match its content")
	}
	return body, nil
}

// appendNanos writes t as Unix nanoseconds when that number gives t back
// exactly, and "-" otherwise (a time that did not parse, or one beyond the
// years 1678 to 2262), in which case the reader parses the text again.
func appendNanos(b []byte, t time.Time) []byte {
	if t.IsZero() || !time.Unix(0, t.UnixNano()).Equal(t) {
		return append(b, '-')
	}
	return strconv.AppendInt(b, t.UnixNano(), 10)
}

// errStale says the cache does not describe the current packs/ directory.
var errStale = errors.New("stale")

// decodeCache parses a cache made when packs/ had the given stamp and
// returns its entries; a cache made at another stamp is stale. Whether the
// entries are still those of packs/ is the caller's to check where the
// stamp is not complete.
func decodeCache(b []byte, stamp string) ([]Listed, error) {
	if !bytes.HasPrefix(b, []byte(cacheMagic)) {
		return nil, errors.New("not a ctx log cache of this version")
	}
	b, err := checkCacheSum(b)
	if err != nil {
		return nil, err
	}
	rest := b[len(cacheMagic):]
	line, rest, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok {
		return nil, errors.New("truncated")
	}
	key, count, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return nil, errors.New("bad header")
	}
	if string(key) != stamp || stamp == "" {
		return nil, errStale
	}
	n, ok := atoi(count)
	// Each line takes well over 64 bytes: a count the file cannot hold is
	// damage, not a reason to allocate.
	if !ok || n < 0 || n > int64(len(rest)/64) {
		return nil, errors.New("bad header")
	}
	entries := make([]Listed, n)
	// Model identifiers repeat from pack to pack: keep one copy of each,
	// keyed by its quoted form.
	models := map[string]string{}
	for i := range entries {
		line, rest, ok = bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return nil, errors.New("truncated")
		}
		if err := decodeCacheLine(line, &entries[i], models); err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		// Strictly in log order: which also means no pack twice.
		if i > 0 && newer(&entries[i-1], &entries[i]) >= 0 {
			return nil, fmt.Errorf("entry %d: out of order", i)
		}
	}
	if string(rest) != "end\n" {
		return nil, errors.New("no end line")
	}
	return entries, nil
}

func decodeCacheLine(line []byte, e *Listed, models map[string]string) error {
	var f [10][]byte
	for i := range f {
		if i == len(f)-1 {
			f[i] = line
			break
		}
		var ok bool
		if f[i], line, ok = bytes.Cut(line, []byte{'\t'}); !ok {
			return errors.New("too few fields")
		}
	}
	if !decodeHex(e.Hash[:], f[0]) {
		return errors.New("bad hash")
	}
	stepsField, rejectedField, hasRejected := bytes.Cut(f[1], []byte{'/'})
	steps, ok := atoi(stepsField)
	if !ok || steps < 0 || steps > math.MaxInt32 {
		return errors.New("bad step count")
	}
	e.Steps = int(steps)
	if hasRejected {
		r, ok := atoi(rejectedField)
		if !ok || r <= 0 || r > steps {
			return errors.New("bad rejected count")
		}
		e.Rejected = int(r)
	}
	if string(f[2]) != "-" {
		var p store.Hash
		if !decodeHex(p[:], f[2]) {
			return errors.New("bad parent")
		}
		e.Parent = &p
	}
	var err error
	if e.Created, err = unquote(f[5]); err != nil {
		return err
	}
	if e.Stored, err = unquote(f[6]); err != nil {
		return err
	}
	if e.Subject, err = unquote(f[8]); err != nil {
		return err
	}
	if e.End, err = unquote(f[9]); err != nil {
		return err
	}
	if m, ok := models[string(f[7])]; ok {
		e.Model = m
	} else {
		if e.Model, err = unquote(f[7]); err != nil {
			return err
		}
		models[string(f[7])] = e.Model
	}
	if e.CreatedAt, err = decodeNanos(f[3], e.Created); err != nil {
		return err
	}
	if e.StoredAt, err = decodeNanos(f[4], e.Stored); err != nil {
		return err
	}
	return nil
}

func decodeNanos(f []byte, text string) (time.Time, error) {
	if string(f) == "-" {
		t, _ := time.Parse(time.RFC3339Nano, text)
		return t, nil
	}
	ns, ok := atoi(f)
	if !ok {
		return time.Time{}, errors.New("bad time")
	}
	return time.Unix(0, ns), nil
}

// atoi parses a non-negative decimal int64, optionally negative (times
// before 1970), without the allocation of strconv.ParseInt(string(b)).
func atoi(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}

// decodeHex fills dst from exactly 2*len(dst) lower-case hex digits.
func decodeHex(dst, src []byte) bool { return store.DecodeLowerHex(dst, src) }

// unquote is strconv.Unquote with a fast path for the usual plain string.
func unquote(q []byte) (string, error) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
		inner := q[1 : len(q)-1]
		if bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '"') < 0 {
			return string(inner), nil
		}
	}
	s, err := strconv.Unquote(string(q))
	if err != nil {
		return "", errors.New("bad quoted string")
	}
	return s, nil
}
