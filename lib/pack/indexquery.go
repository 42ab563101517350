package pack

import (
	"bytes"
	"fmt"
	"slices"
	"time"
)

// Query selects and orders the packs ctx log lists.
type Query struct {
	Models []string  // keep packs whose model identifier is one of these (all when empty)
	Since  time.Time // keep packs created at or after this time (all when zero)
	Limit  int       // keep the first Limit packs after ordering (all when negative)
}

// Select returns the entries q keeps, newest first: by when the pack last
// entered this store (so the pack latest names, packed, imported or
// pulled last, comes first), then by created time, then by hash so the
// order is the same on every run.
func Select(entries []Listed, q Query) []Listed {
	// Sort pointers: an Listed is too large to swap cheaply ten thousand
	// times over.
	ptrs := make([]*Listed, len(entries))
	for i := range entries {
		ptrs[i] = &entries[i]
	}
	slices.SortFunc(ptrs, newer)
	out := make([]Listed, 0, min(len(entries), max(q.Limit, 0)+len(entries)*btoi(q.Limit < 0)))
	for _, e := range ptrs {
		if q.Limit >= 0 && len(out) >= q.Limit {
			break
		}
		if len(q.Models) > 0 && !contains(q.Models, e.Model) {
			continue
		}
		if !q.Since.IsZero() && e.CreatedAt.Before(q.Since) {
			continue
		}
		out = append(out, *e)
	}
	return out
}

// newer orders a before b when a is the one ctx log lists first.
func newer(a, b *Listed) int {
	if c := b.StoredAt.Compare(a.StoredAt); c != 0 {
		return c
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return bytes.Compare(a.Hash[:], b.Hash[:])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ParseSince reads the value of --since: a date (2026-02-10, midnight UTC)
// or an RFC 3339 time (2026-02-10T12:00:00Z, 2026-02-10T12:00:00+02:00).
// Nothing else: relative forms such as "2 weeks ago" are not accepted.
func ParseSince(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-02-10) or an RFC 3339 time (2026-02-10T12:00:00Z)", s)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
