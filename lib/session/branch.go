package session

import (
	"sort"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// A session captured, restored elsewhere and continued there is no
// longer the session its tag names: the two went on from one capture in
// two places. A capture tells them apart by their lines: a session file
// extends a capture when it begins with that capture's session file,
// byte for byte (the agents append to a session; a line is never
// rewritten). Such a session is "grown": its parent is that capture, and
// the tag that named it moves. One that extends no capture any of its
// tags names is "diverged": a branch, with the tag TAG.N of its own (N
// from 2), so that the tag of the session's own line stays where it was,
// and its parent the capture it does extend, when the store knows it:
//
//   - the pack a restore from this store wrote it from (the restore
//     record, restored.go: restore changes the working directory in
//     every line, so the bytes alone cannot tell);
//   - else the latest capture before the tag's that its file begins with.
//
// A .json session (Gemini CLI's old form, one document the agent writes
// anew) cannot be compared so: it is taken as grown from its tag's
// capture.

// maxAncestors bounds the captures before a tag's that are looked at.
const maxAncestors = 64

// sessionTag is a tag of a session and the pack it names.
type sessionTag struct {
	name string
	pack store.Hash
}

// readTags reads the store's tags once, and finds the branch tags among
// them (NAME.N, N a number from 2).
func (c *capturer) readTags() error {
	refs, err := c.st.Refs()
	if err != nil {
		return err
	}
	c.tags, c.branches, c.taken = map[string]store.Hash{}, map[string][]string{}, map[string]bool{}
	for h, names := range refs {
		for _, n := range names {
			if n == store.LatestRef {
				continue
			}
			c.tags[n] = h
			if i := strings.LastIndexByte(n, '.'); i > 0 {
				if k, err := strconv.Atoi(n[i+1:]); err == nil && k >= 2 && strconv.Itoa(k) == n[i+1:] {
					c.branches[n[:i]] = append(c.branches[n[:i]], n)
				}
			}
		}
	}
	return nil
}

// sessionTags are the tags of agent's session id that name a pack: its
// own, then its branches' in order.
func (c *capturer) sessionTags(agent, id string) []sessionTag {
	own := Tag(agent, id)
	var out []sessionTag
	if h, ok := c.tags[own]; ok {
		out = append(out, sessionTag{own, h})
	}
	branches := c.branches[own]
	sort.Slice(branches, func(i, j int) bool { return branchNumber(branches[i]) < branchNumber(branches[j]) })
	for _, b := range branches {
		out = append(out, sessionTag{b, c.tags[b]})
	}
	return out
}

func branchNumber(tag string) int {
	n, _ := strconv.Atoi(tag[strings.LastIndexByte(tag, '.')+1:])
	return n
}

// place decides j's status, tag and parent.
func (c *capturer) place(j *job, tags []sessionTag) {
	var live []sessionTag // the tags whose pack is still there
	for _, t := range tags {
		if c.st.Has(t.pack) {
			live = append(live, t)
		}
	}
	own := Tag(j.s.Agent, j.s.ID)
	base, baseTag := c.extended(j, live, own)
	j.parent = base
	switch {
	case baseTag != "":
		j.tag, j.status = baseTag, Grown
	case len(live) == 0 || live[0].name != own:
		// The session's own line has no capture yet (or the tag names a
		// pack removed since): this one starts it.
		j.tag, j.status = own, New
		if base != nil {
			j.status = Grown
		}
	default:
		j.status = Diverged
		for n := 2; ; n++ {
			if t := branchTag(j.s.Agent, j.s.ID, n); !c.taken[t] {
				if _, ok := c.tags[t]; !ok {
					j.tag = t
					break
				}
			}
		}
	}
	c.taken[j.tag] = true
	if IsDerivedTag(j.s.Agent, j.s.ID) {
		j.warn("its id cannot be part of a tag name as it is: tagged " + j.tag)
	}
}

// extended is the capture j's session extends, and the tag that names
// it ("" when none does).
func (c *capturer) extended(j *job, tags []sessionTag, own string) (*store.Hash, string) {
	lines := strings.HasSuffix(j.files[0].Rel, ".jsonl")
	for _, t := range tags {
		if lines && c.extends(j, t.pack) || !lines && t.name == own {
			h := t.pack
			return &h, t.name
		}
	}
	var best *restoreRecord
	for i, rec := range c.restored {
		if rec.Agent == j.s.Agent && rec.Session == j.s.ID && rec.Size < j.files[0].Size &&
			(best == nil || rec.Size > best.Size) && c.st.Has(rec.Pack) && rec.startsWith(j.path(0)) {
			best = &c.restored[i]
		}
	}
	if best != nil {
		for _, t := range tags {
			if t.pack == best.Pack {
				return &t.pack, t.name
			}
		}
		h := best.Pack
		return &h, ""
	}
	if !lines || len(tags) == 0 {
		return nil, ""
	}
	h := tags[0].pack
	for i := 0; i < maxAncestors; i++ {
		m, _, err := pack.Head(c.st, h, nil)
		if err != nil || m.Parent == nil {
			break
		}
		h = *m.Parent
		if c.extends(j, h) {
			return &h, ""
		}
	}
	return nil, ""
}

// extends reports whether j's session file begins with the session file
// of the pack h.
func (c *capturer) extends(j *job, h store.Hash) bool {
	m, _, err := pack.Head(c.st, h, nil)
	if err != nil {
		return false
	}
	_, _, files, ok := Files(m)
	if !ok {
		return false
	}
	prev, cur := files[0], j.files[0]
	switch {
	case prev.Size > cur.Size:
		return false
	case prev.Size == cur.Size:
		return prev.Ref == cur.Ref
	}
	sum, err := prefixSum(j.path(0), prev.Size)
	return err == nil && sum == prev.Ref
}
