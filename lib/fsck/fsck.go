// Package fsck checks the integrity of a store: every object rehashed,
// every manifest's references, the refs, the packs/ index, the layout,
// leftover temporary files and anything that is not a regular file.
//
// It must never change the store unless asked to (Options.RepairIndex,
// Options.PruneTmp), and then only derived data (index entries, the cache
// of ctx log) and temporary files: never
// an object or a ref. It must never follow a symlink, never open anything
// but a regular file, and never call an object intact without rehashing it.
package fsck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// The kinds of problem. Object is "sha256:<hex>" for problems with content
// (corrupt, missing, unindexed) and the path relative to the store for
// problems with files (everything else).
const (
	Corrupt    = "corrupt"     // an object whose bytes do not hash to its name (modified, truncated)
	Missing    = "missing"     // an object a manifest, an index entry or a ref names, not in the store
	Symlink    = "symlink"     // a symlink anywhere in the store; never followed
	NotRegular = "not_regular" // a directory, device, pipe or socket where the store keeps a file, or anywhere in it
	Stray      = "stray"       // a file or directory where the layout has none: misnamed or misplaced
	Unindexed  = "unindexed"   // a pack manifest with no index entry: 'ctx log' does not list it
	BadIndex   = "bad_index"   // an index entry that does not parse, is stale, or names no pack manifest
	BadRef     = "bad_ref"     // a ref that does not hold a hash, or names an object that is not a pack manifest
	Tmp        = "tmp"         // a temporary file older than Options.TmpAge: left by an interrupted write
	Layout     = "layout"      // a directory of the layout missing, or config.json missing or damaged
	Unreadable = "unreadable"  // a file or directory that could not be read
	BadCache   = "bad_cache"   // cache/log, ctx log's copy of the index, damaged or not what packs/ says
)

// Problem is one thing wrong with the store.
type Problem struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Detail string `json:"detail"`

	pack store.Hash // the pack of a bad_index problem, whose entry a repair rebuilds
}

// Options says what to check and what to repair.
type Options struct {
	TmpAge      time.Duration // temporary files at least this old are leftovers; younger ones belong to running writers
	Now         time.Time     // the time temporary files are aged against (default: now)
	RepairIndex bool          // rebuild missing, damaged and stale index entries from their manifests
	PruneTmp    bool          // remove leftover temporary files
	Workers     int           // objects rehashed in parallel (default: GOMAXPROCS)

	// afterWalk, when set (by tests), runs between the walk, which finds
	// the objects manifests name missing, and the report of them: a writer
	// storing them again meanwhile.
	afterWalk func()
}

// Report is what Check found and did.
type Report struct {
	OK       bool      `json:"ok"`
	Problems []Problem `json:"problems"`
	Repaired []Problem `json:"-"` // problems that were repaired, the detail saying how
	Objects  int       `json:"-"` // objects rehashed
	Packs    int       `json:"-"` // pack manifests found
	Refs     int       `json:"-"` // refs read
}

// A manifest younger than inFlight without an index entry may be a pack
// whose writer is about to write the entry (Publish writes it right after
// the manifest): fsck waits up to publishWait for the entry before calling
// the pack unindexed.
const (
	inFlight    = time.Minute
	publishWait = 2 * time.Second
)

// maxManifest bounds the objects read whole to see whether they are
// manifests; no real manifest comes near it.
const maxManifest = 256 << 20

// manifestPrefix starts every manifest: the stored form is canonical JSON
// with sorted keys, and "created" sorts first. Only objects starting with it
// are parsed, so a blob is never mistaken for a broken manifest.
const manifestPrefix = `{"created":`

// Check checks the store and, when asked, repairs what it may: index
// entries and temporary files. Problems come sorted by object, then kind.
// An error means the check itself could not run.
func Check(st *store.Store, opts Options) (*Report, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}

	c := &checker{st: st, opts: opts, bad: map[store.Hash]int{}, manifests: map[store.Hash]pack.IndexEntry{}, namers: map[store.Hash][]string{}}
	c.layout()
	if err := c.walk(); err != nil {
		return nil, err
	}
	if opts.afterWalk != nil {
		opts.afterWalk()
	}
	c.checkRefs()
	c.checkIndex()
	if err := pack.CheckLogCache(st); err != nil {
		c.add(BadCache, "cache/"+pack.LogCache, fmt.Sprintf("ctx log's cache of the index: %v; ctx log rebuilds it from packs/ once it is removed (--repair-index)", text.UnwrapPath(err)))
	}
	c.nameBad()
	c.report.Packs = len(c.manifests)
	c.repair()
	if opts.RepairIndex {
		c.compact()
	}
	sort.Slice(c.report.Problems, func(i, j int) bool {
		a, b := c.report.Problems[i], c.report.Problems[j]
		if a.Object != b.Object {
			return a.Object < b.Object
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Detail < b.Detail
	})
	if c.report.Problems == nil {
		c.report.Problems = []Problem{}
	}
	c.report.OK = len(c.report.Problems) == 0
	return &c.report, nil
}

type checker struct {
	st   *store.Store
	opts Options

	mu        sync.Mutex
	report    Report
	bad       map[store.Hash]int             // damaged objects -> index of their problem
	manifests map[store.Hash]pack.IndexEntry // intact manifests -> what their index entry must say
	namers    map[store.Hash][]string        // missing and damaged objects -> who names them
	indexed   map[store.Hash]bool            // packs with an index entry, in the log or a file of packs/
	removed   map[store.Hash]bool            // packs ctx rm took out of the index (removed/<hex>)
	refs      []store.Entry
	suites    []store.Entry       // refs/suites/NAME (ctx suite)
	loose     map[store.Hash]bool // objects found under objects/ab/, checked there
	planted   map[string]bool     // files of packs/ that are not regular files, reported by the walk
}

func (c *checker) add(kind, object, detail string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.report.Problems = append(c.report.Problems, Problem{Kind: kind, Object: object, Detail: detail})
	return len(c.report.Problems) - 1
}

// layout checks the directories and config.json that ctx writes into.
// What stands in their place (a file, a symlink) is reported by the walk.
func (c *checker) layout() {
	for _, d := range []string{"objects", "packs", "refs", "tmp"} {
		if _, err := os.Lstat(filepath.Join(c.st.Root(), d)); errors.Is(err, fs.ErrNotExist) {
			c.add(Layout, d+"/", "the directory is missing; ctx cannot write to this store without it")
		}
	}
	p := c.st.ConfigPath()
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.add(Layout, "config.json", "the file is missing")
		return
	case err != nil:
		c.add(Unreadable, "config.json", err.Error())
		return
	case !fi.Mode().IsRegular():
		return // the walk reports it
	}
	b, err := os.ReadFile(p)
	if err != nil {
		c.add(Unreadable, "config.json", err.Error())
		return
	}
	var cfg struct {
		Version json.Number `json:"version"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&cfg); err != nil || cfg.Version != "1" {
		c.add(Layout, "config.json", `not a JSON object with "version": 1`)
	}
}

// walk visits every file of the store and rehashes the objects in
// parallel.
func (c *checker) walk() error {
	jobs := make(chan store.Hash, 64)
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 256<<10)
			for h := range jobs {
				c.object(h, buf)
			}
		}()
	}
	c.indexed = map[store.Hash]bool{}
	c.removed = map[store.Hash]bool{}
	c.loose = map[store.Hash]bool{}
	c.planted = map[string]bool{}
	err := c.st.Walk(func(e store.Entry) error {
		c.entry(e, jobs)
		return nil
	})
	close(jobs)
	wg.Wait()
	return err
}

// entry looks at one file the walk found; objects go to the workers.
func (c *checker) entry(e store.Entry, jobs chan<- store.Hash) {
	switch {
	case e.Err != nil:
		c.add(Unreadable, e.Path+"/", e.Err.Error())
		return
	case e.Type&fs.ModeSymlink != 0:
		detail := "a symlink"
		if target, err := os.Readlink(filepath.Join(c.st.Root(), filepath.FromSlash(e.Path))); err == nil {
			detail += " to " + target
		}
		i := c.add(Symlink, e.Path, detail+where(e)+"; the store never follows links")
		c.markBad(e, i)
		return
	case e.Type.IsDir():
		switch e.Kind {
		case store.KindObject, store.KindIndex, store.KindIndexLog, store.KindRef, store.KindConfig:
			i := c.add(NotRegular, e.Path, "a directory"+where(e))
			c.markBad(e, i)
		default:
			c.add(Stray, e.Path+"/", "a directory where the store has none")
		}
		return
	case !e.Regular():
		i := c.add(NotRegular, e.Path, typeName(e.Type)+where(e))
		c.markBad(e, i)
		return
	}
	switch e.Kind {
	case store.KindObject:
		c.loose[e.Hash] = true
		jobs <- e.Hash
	case store.KindPackfile:
		c.packfile(e, jobs)
	case store.KindIndex, store.KindIndexLog:
		// Read with the rest of the index (checkIndex).
	case store.KindRef:
		c.refs = append(c.refs, e)
	case store.KindSuite:
		c.suites = append(c.suites, e)
	case store.KindRemoved:
		c.removed[e.Hash] = true
	case store.KindTemp:
		c.temp(e)
	case store.KindStray:
		c.add(Stray, e.Path, strayDetail(e.Path))
	}
}

// packfile checks a file of a packfile: its .idx must parse and name its
// .pack, and every object in it is rehashed (as read from the store: a
// loose copy, checked already, is read first); a .pack without its .idx
// is what a write interrupted between the two leaves.
func (c *checker) packfile(e store.Entry, jobs chan<- store.Hash) {
	if c.st.OrphanPackfile(e.Path) {
		c.temp(e)
		return
	}
	if strings.HasSuffix(e.Path, ".pack") {
		return // checked with its .idx
	}
	ix, err := c.st.ReadPackfileIndex(e.Hash.Hex())
	if err != nil {
		c.add(Corrupt, e.Path, text.UnwrapPath(err).Error()+"; the objects it lists cannot be read")
		return
	}
	for _, pe := range ix.Entries {
		if !c.loose[pe.Hash] {
			c.loose[pe.Hash] = true // once, even if another packfile has it too
			jobs <- pe.Hash
		}
	}
}

// where says what the store keeps at an entry's place, for details.
func where(e store.Entry) string {
	switch e.Kind {
	case store.KindObject:
		return " where the store keeps object " + e.Hash.String()
	case store.KindIndex:
		return " where the store keeps the index entry of pack " + e.Hash.String()
	case store.KindIndexLog:
		return " where the store keeps its index log"
	case store.KindRef:
		return " where the store keeps a ref"
	case store.KindConfig:
		return " where the store keeps its configuration"
	}
	return ""
}

func (c *checker) markBad(e store.Entry, problem int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case store.KindObject:
		c.bad[e.Hash] = problem
	case store.KindIndex:
		c.planted[e.Path] = true // reported; the pack has no entry there
	}
}

func strayDetail(p string) string {
	if !strings.Contains(p, "/") {
		return "a file where the store keeps its " + p + "/ directory"
	}
	switch strings.SplitN(p, "/", 2)[0] {
	case "objects":
		return "a file in objects/ not named objects/ab/<62 lower-case hex>"
	case "packs":
		return "a file in packs/ that is neither packs/index-<16 hex>.log nor packs/<64 lower-case hex>"
	case "refs":
		return "a file in refs/ that is neither refs/latest nor refs/tags/NAME with a valid tag name"
	}
	return "a file where the store has none"
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// temp reports a temporary file old enough to be a leftover.
func (c *checker) temp(e store.Entry) {
	fi, err := e.Info()
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) { // gone: its writer finished
			c.add(Unreadable, e.Path, err.Error())
		}
		return
	}
	age := c.opts.Now.Sub(fi.ModTime())
	if age < c.opts.TmpAge {
		return
	}
	c.add(Tmp, e.Path, fmt.Sprintf("a temporary file left by an interrupted write, %s old", roundAge(age)))
}

func roundAge(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", int(d/time.Hour))
	case d >= 2*time.Minute:
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return fmt.Sprintf("%d seconds", int(d/time.Second))
}

// object rehashes object h; a manifest is also parsed and its references
// checked.
func (c *checker) object(h store.Hash, buf []byte) {
	o, err := c.st.Open(h)
	if err != nil {
		c.objectError(h, err)
		return
	}
	var prefix []byte
	for {
		n, err := o.Read(buf)
		if prefix == nil && n > 0 {
			prefix = append([]byte{}, buf[:min(n, len(manifestPrefix))]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			o.Close()
			c.objectError(h, err)
			return
		}
	}
	size := o.Size()
	o.Close()
	c.mu.Lock()
	c.report.Objects++
	c.mu.Unlock()
	if string(prefix) == manifestPrefix && size <= maxManifest {
		c.manifest(h)
	}
}

func (c *checker) objectError(h store.Hash, err error) {
	var ce *store.CorruptError
	switch {
	case errors.As(err, &ce) && ce.Actual != nil:
		c.mu.Lock()
		c.report.Objects++
		c.mu.Unlock()
		i := c.add(Corrupt, h.String(), ce.Why())
		c.mu.Lock()
		c.bad[h] = i
		c.mu.Unlock()
	case errors.As(err, &ce):
		i := c.add(NotRegular, ce.Path, ce.Detail)
		c.mu.Lock()
		c.bad[h] = i
		c.mu.Unlock()
	case errors.Is(err, store.ErrNotFound):
		// Removed while the walk ran: nothing to check.
	default:
		i := c.add(Unreadable, h.String(), text.UnwrapPath(err).Error())
		c.mu.Lock()
		c.bad[h] = i
		c.mu.Unlock()
	}
}

// manifest parses the manifest h (already found intact) and checks that
// every object it names is present; damaged ones are named later by
// nameBad.
func (c *checker) manifest(h store.Hash) {
	m, err := pack.Load(c.st, h)
	if err != nil {
		return // not a manifest this ctx reads: a blob like any other
	}
	entry := pack.NewIndexEntry(h, m, time.Time{})
	c.mu.Lock()
	c.manifests[h] = entry
	c.mu.Unlock()
	for _, r := range m.Refs() {
		// Missing, or reachable only through something planted in the
		// store (a symlinked objects/ab/): either way the pack lacks it.
		if _, err := c.st.Stat(r.Hash); errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrCorrupt) {
			c.named(r.Hash, fmt.Sprintf("pack %s at %s", h, r.Where))
		}
	}
}

// named records that who names the missing or damaged object h.
func (c *checker) named(h store.Hash, who string) {
	c.mu.Lock()
	c.namers[h] = append(c.namers[h], who)
	c.mu.Unlock()
}

// checkRefs checks that every ref holds a hash naming a pack manifest.
func (c *checker) checkRefs() {
	for _, e := range c.refs {
		c.report.Refs++
		h, err := c.st.ReadRef(e.Ref)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // removed while fsck ran
		case err != nil:
			c.add(BadRef, e.Path, c.refContent(e.Path))
			continue
		}
		c.names(h, e.Path, BadRef, e.Path)
	}
	for _, e := range c.suites {
		c.report.Refs++
		h, err := c.st.ReadSuiteRef(e.Ref)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			c.add(BadRef, e.Path, c.refContent(e.Path))
			continue
		}
		if _, err := c.st.Stat(h); errors.Is(err, store.ErrNotFound) {
			c.named(h, e.Path) // a suite object missing: as a missing pack
		}
	}
}

// names checks that the object h, named by who (a ref or an index entry),
// is a pack manifest, and reports under kind (at object) when it is not.
func (c *checker) names(h store.Hash, who, kind, object string) {
	if _, ok := c.manifests[h]; ok {
		return
	}
	if _, ok := c.bad[h]; ok {
		c.named(h, who)
		return
	}
	if _, err := c.st.Stat(h); errors.Is(err, store.ErrNotFound) {
		c.named(h, who)
		return
	}
	// Not seen by the walk: a pack stored while fsck ran, or something else.
	_, err := pack.Load(c.st, h)
	var ce *store.CorruptError
	switch {
	case err == nil:
	case errors.As(err, &ce):
		c.add(Corrupt, h.String(), ce.Why()+"; named by "+who)
	default:
		c.add(kind, object, fmt.Sprintf("it names %s, which is not a pack manifest", h))
	}
}

// checkIndex checks every index entry against its manifest, and finds the
// manifests that have none.
func (c *checker) checkIndex() {
	places, err := c.st.IndexPlaces()
	if err != nil {
		c.add(Unreadable, "packs/", text.UnwrapPath(err).Error())
	}
	type parsed struct {
		ie      pack.IndexEntry
		err     error // parsing it
		readErr error // reading it
	}
	entries := make([]parsed, len(places))
	c.st.ReadIndexEntries(places, func(i int, entry []byte, err error) {
		if err != nil {
			entries[i].readErr = err
			return
		}
		entries[i].ie, entries[i].err = pack.ParseIndexEntry(places[i].Hash, entry)
	})
	for i, e := range places {
		if c.planted[e.Where] {
			continue
		}
		c.indexed[e.Hash] = true
		object, of := e.Where, ""
		if object != "packs/"+e.Hash.Hex() {
			of = "the entry of " + e.Hash.String() + ": " // in a log
		}
		if rerr := entries[i].readErr; rerr != nil {
			if !errors.Is(rerr, store.ErrNotFound) { // else removed (ctx rm) while fsck ran
				c.add(Unreadable, object, of+text.UnwrapPath(rerr).Error())
			}
			continue
		}
		ie, err := entries[i].ie, entries[i].err
		var bad *pack.BadIndexEntryError
		if errors.As(err, &bad) {
			c.badIndex(e.Hash, object, of+"it "+bad.Problem)
			continue
		}
		want, ok := c.manifests[e.Hash]
		if !ok {
			c.names(e.Hash, object, BadIndex, object)
			continue
		}
		if err := pack.CheckIndexEntry(ie, want); err != nil {
			c.badIndex(e.Hash, object, of+"it is stale: "+err.Error())
		}
	}
	var young []store.Hash
	for h := range c.manifests {
		if c.indexed[h] || c.removed[h] {
			continue // indexed, or taken out of the index on purpose (ctx rm)
		}
		if _, stored, _, err := c.st.Peek(h, 0); err == nil && c.opts.Now.Sub(stored) < inFlight {
			young = append(young, h)
			continue
		}
		if pack.HasIndexEntry(c.st, h) || c.st.IsRemoved(h) || !c.st.Has(h) {
			continue // indexed, removed or deleted (ctx gc) while fsck ran
		}
		c.unindexed(h)
	}
	// A pack being published right now gets its index entry just after its
	// manifest: give a young manifest a moment before calling it unindexed.
	deadline := time.Now().Add(publishWait)
	for _, h := range young {
		for {
			if pack.HasIndexEntry(c.st, h) || c.st.IsRemoved(h) || !c.st.Has(h) {
				break
			}
			if time.Now().After(deadline) {
				c.unindexed(h)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// badIndex reports the index entry of pack h, kept at object, as wrong.
func (c *checker) badIndex(h store.Hash, object, detail string) {
	i := c.add(BadIndex, object, detail)
	c.mu.Lock()
	c.report.Problems[i].pack = h
	c.mu.Unlock()
}

func (c *checker) unindexed(h store.Hash) {
	c.add(Unindexed, h.String(), "a pack with no index entry in packs/, so 'ctx log' does not list it")
}

// nameBad says, in each missing or damaged object's problem, which packs,
// index entries and refs need it. Damaged objects are rare, so the
// manifests are read again only when there are some.
func (c *checker) nameBad() {
	if len(c.bad) > 0 {
		for h := range c.manifests {
			m, err := pack.Load(c.st, h)
			if err != nil {
				continue
			}
			for _, r := range m.Refs() {
				if _, ok := c.bad[r.Hash]; ok {
					c.named(r.Hash, fmt.Sprintf("pack %s at %s", h, r.Where))
				}
			}
		}
	}
	for h, who := range c.namers {
		if i, ok := c.bad[h]; ok {
			c.report.Problems[i].Detail += "; " + namedBy(who)
		} else if who = c.stillNaming(who); len(who) > 0 && c.stillMissing(h) {
			c.add(Missing, h.String(), namedBy(who))
		}
	}
}

// stillMissing looks for object h again: a writer may have stored it
// since the walk found it missing (ctx gc deleted it, then a pack naming
// it was made again), and an object present when fsck ends is not
// missing.
func (c *checker) stillMissing(h store.Hash) bool {
	_, err := c.st.Stat(h)
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrCorrupt)
}

// stillNaming leaves out of who the packs whose manifest is gone since
// it was read: ctx gc deletes a removed pack's manifest, then its blobs,
// and fsck beside it may have read the manifest just before.
func (c *checker) stillNaming(who []string) []string {
	out := who[:0:0]
	for _, w := range who {
		if ref, ok := strings.CutPrefix(w, "pack "); ok {
			if h, err := store.ParseRef(strings.SplitN(ref, " ", 2)[0]); err == nil && !c.st.Has(h) {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// namedBy lists who names an object, sorted, at most three.
func namedBy(who []string) string {
	sort.Strings(who)
	who = slices.Compact(who) // a damaged object is named both by the walk and by nameBad
	const show = 3
	s := "named by " + strings.Join(who[:min(len(who), show)], "; ")
	if len(who) > show {
		s += fmt.Sprintf("; and %d more", len(who)-show)
	}
	return s
}

// repair rebuilds index entries and removes leftover temporaries, when
// asked, and moves what it fixed from the problems to the repairs. The
// index entries are written together, with one sync.
func (c *checker) repair() {
	if !c.opts.RepairIndex && !c.opts.PruneTmp {
		return
	}
	// Repairs write: from here ctx gc must not delete a manifest they
	// index (store.LockWrites), nor sweep what fsck reports itself.
	if unlock, err := c.st.LockWritesNoSweep(); err == nil {
		defer unlock()
	}
	var entries []pack.IndexEntry
	fixed := make([]bool, len(c.report.Problems))
	done := make([]string, len(c.report.Problems)) // what the repair did
	for i := range c.report.Problems {
		p := &c.report.Problems[i]
		switch {
		case c.opts.RepairIndex && (p.Kind == Unindexed || p.Kind == BadIndex):
			h, ok := c.repairable(*p)
			if !ok || c.st.IsRemoved(h) && !pack.HasIndexEntry(c.st, h) {
				break // removed meanwhile (ctx rm): nothing to index
			}
			e, err := pack.RebuildIndexEntry(c.st, h)
			if err != nil {
				p.Detail += "; repair failed: " + err.Error()
				break
			}
			entries = append(entries, e)
			fixed[i], done[i] = true, "rebuilt the index entry of "+h.String()+" from the manifest"
		case c.opts.RepairIndex && p.Kind == BadCache:
			if err := c.st.RemoveCache(pack.LogCache); err != nil {
				p.Detail += "; repair failed: " + text.UnwrapPath(err).Error()
				break
			}
			fixed[i], done[i] = true, "removed; the next ctx log rebuilds it from packs/"
		case c.opts.PruneTmp && p.Kind == Tmp:
			if err := c.st.RemoveTemp(p.Object); err != nil && !errors.Is(err, fs.ErrNotExist) {
				p.Detail += "; repair failed: " + text.UnwrapPath(err).Error()
				break
			}
			fixed[i], done[i] = true, "removed"
		}
	}
	if err := pack.WriteIndexEntries(c.st, entries); err != nil {
		for i := range c.report.Problems {
			if p := &c.report.Problems[i]; fixed[i] && p.Kind != Tmp && p.Kind != BadCache {
				fixed[i] = false
				p.Detail += "; repair failed: " + text.UnwrapPath(err).Error()
			}
		}
	}
	kept := c.report.Problems[:0:0]
	for i, p := range c.report.Problems {
		if fixed[i] {
			p.Detail = done[i]
			c.report.Repaired = append(c.report.Repaired, p)
		} else {
			kept = append(kept, p)
		}
	}
	c.report.Problems = kept
}

// compact rewrites the index as one log, one record per pack, when the
// store can be held alone at once (ctx gc does it otherwise): records
// superseded and lines that fail their checksum go, the files of earlier
// versions are folded in. A note says what changed.
func (c *checker) compact() {
	done, err := c.st.CompactIndex()
	switch {
	case errors.Is(err, store.ErrBusy):
		return
	case err != nil:
		c.add(Unreadable, "packs/", "could not compact the index: "+text.UnwrapPath(err).Error())
		return
	case done.Logs <= 1 && done.Folded == 0 && done.Skipped == 0 && done.Records == done.Packs:
		return // one record per pack already
	}
	entries := "entries"
	if done.Packs == 1 {
		entries = "entry"
	}
	detail := fmt.Sprintf("rewrote the index as one log of %d %s", done.Packs, entries)
	if n := done.Records - done.Packs; n > 0 {
		detail += fmt.Sprintf("; %s superseded or removed dropped", text.Plural(n, "record"))
	}
	if done.Skipped > 0 {
		detail += fmt.Sprintf("; %s that failed its checksum dropped (a write cut short, or damage)", text.Plural(done.Skipped, "line"))
	}
	if done.Folded > 0 {
		detail += fmt.Sprintf("; %s of packs/ folded in", text.Plural(done.Folded, "file"))
	}
	c.report.Repaired = append(c.report.Repaired, Problem{Kind: BadIndex, Object: "packs/", Detail: detail})
}

// repairable returns the pack whose index entry a problem is about, when its
// manifest is intact so the entry can be rebuilt.
func (c *checker) repairable(p Problem) (store.Hash, bool) {
	var h store.Hash
	var err error
	switch {
	case p.Kind == Unindexed:
		h, err = store.ParseRef(p.Object)
	case p.pack != store.Hash{}:
		h = p.pack
	default:
		h, err = store.ParseHex(strings.TrimPrefix(p.Object, "packs/"))
	}
	if err != nil {
		return h, false
	}
	_, ok := c.manifests[h]
	return h, ok
}

// refContent says what a damaged ref holds instead of a hash.
func (c *checker) refContent(rel string) string {
	f, err := os.OpenFile(filepath.Join(c.st.Root(), filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return text.UnwrapPath(err).Error()
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 200))
	if err != nil {
		return text.UnwrapPath(err).Error()
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return "it is empty, not a sha256 hash"
	}
	return fmt.Sprintf("it holds %q, not a sha256 hash", text.Clip(string(bytes.TrimSpace(b)), 80))
}
