package store

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// EntryKind says what the layout makes of a path in the store, by where it
// lies and how it is named alone: Walk classifies, the caller checks.
type EntryKind int

// The kinds of entry Walk reports.
const (
	KindObject EntryKind = iota // objects/ab/<62 hex>; Hash is set
	KindIndex                   // packs/<64 hex>, an index entry; Hash is set
	KindRef                     // refs/latest or refs/tags/NAME; Ref is set
	KindTemp                    // a temporary file of an unfinished write: tmp/*, or .tmp-* beside the file it replaces
	KindConfig                  // config.json
	KindDraft                   // anything under drafts/, which users edit
	KindAttest                  // attestations/<pack hex>/<object hex>: links a pack to an attestation; Hash is the pack's
	KindStray                   // a file where the layout has none: misnamed or misplaced
	KindOther                   // outside the layout's directories: left to whoever put it there
)

// KindRemoved is removed/<64 hex>: the mark of a pack 'ctx rm' took out of
// the index; Hash is set.
const KindRemoved = KindOther + 1

// KindPackfile is objects/packed/<64 hex>.pack or .idx: a packfile's
// objects or its index (packfile_index.go); Hash is the packfile's name.
const KindPackfile = KindOther + 2

// KindSuite is refs/suites/NAME, the ref of a suite (ctx suite); Ref is
// set.
const KindSuite = KindOther + 3

// KindIndexLog is packs/index-<16 hex>.log, an index log (indexlog.go).
const KindIndexLog = KindOther + 4

// String names the kind for messages.
func (k EntryKind) String() string {
	switch k {
	case KindObject:
		return "object"
	case KindIndex:
		return "index entry"
	case KindRef:
		return "ref"
	case KindTemp:
		return "temporary file"
	case KindConfig:
		return "config"
	case KindDraft:
		return "draft"
	case KindAttest:
		return "attestation link"
	case KindStray:
		return "stray file"
	case KindRemoved:
		return "mark of removal"
	case KindPackfile:
		return "packfile"
	case KindSuite:
		return "suite ref"
	case KindIndexLog:
		return "index log"
	}
	return "file"
}

// Entry is one file found by Walk, or a directory where the layout puts a
// file (Type has fs.ModeDir then), or a directory that could not be read
// (Err is set).
type Entry struct {
	Path string      // relative to the store root, slash-separated
	Kind EntryKind   // what the layout makes of Path
	Type fs.FileMode // type bits from the directory entry, never following a symlink: 0 for a regular file
	Hash Hash        // the name of a KindObject or KindIndex entry
	Ref  string      // the name of a KindRef entry: "latest" or the tag
	Err  error       // set when a directory could not be read; Walk goes on

	root string
}

// Regular reports whether the entry is a regular file.
func (e Entry) Regular() bool { return e.Type&fs.ModeType == 0 }

// Info returns the entry's file information, without following a symlink.
func (e Entry) Info() (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(e.root, filepath.FromSlash(e.Path)))
}

// Walk calls fn for every file in the store, in lexical order, and for every
// directory that sits where the layout puts a file; it descends into every
// other directory. It never follows a symlink: a symlink is reported as the
// entry it stands in for, with fs.ModeSymlink in Type. A directory that
// cannot be read is reported with Err set and the walk goes on. Walk
// returns the first error fn returns.
func (s *Store) Walk(fn func(Entry) error) error {
	return s.walk("", fn)
}

func (s *Store) walk(dir string, fn func(Entry) error) error {
	ents, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(dir)))
	if err != nil {
		if dir == "" {
			return err
		}
		return fn(s.entry(dir, fs.ModeDir, err))
	}
	for _, d := range ents {
		rel := path.Join(dir, d.Name())
		if d.IsDir() {
			if !layoutDir(rel) {
				if err := fn(s.entry(rel, fs.ModeDir, nil)); err != nil {
					return err
				}
			}
			if err := s.walk(rel, fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(s.entry(rel, d.Type(), nil)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) entry(rel string, typ fs.FileMode, err error) Entry {
	e := Entry{Path: rel, Type: typ, Err: err, root: s.root}
	e.Kind, e.Hash, e.Ref = Classify(rel)
	return e
}

// Classify says what the layout makes of a store path (relative to the
// store root, slash-separated) from its name alone, and parses the hash of
// an object or index entry and the name of a ref.
func Classify(rel string) (kind EntryKind, h Hash, ref string) {
	parts := strings.Split(rel, "/")
	last := parts[len(parts)-1]
	switch parts[0] {
	case objectsDir:
		if len(parts) == 3 && parts[1] == "packed" {
			name, ok := strings.CutSuffix(last, dataSuffix)
			if !ok {
				name, ok = strings.CutSuffix(last, idxSuffix)
			}
			if ok && isLowerHex(name, 64) {
				h, _ = ParseHex(name)
				return KindPackfile, h, ""
			}
			return KindStray, h, ""
		}
		if len(parts) == 3 && isLowerHex(parts[1], 2) && isLowerHex(parts[2], 62) {
			h, _ = ParseHex(parts[1] + parts[2])
			return KindObject, h, ""
		}
		if len(parts) == 3 && isLowerHex(parts[1], 2) && IsTempName(last) {
			return KindTemp, h, ""
		}
		return KindStray, h, ""
	case packsDir:
		switch {
		case len(parts) == 2 && isLowerHex(last, 64):
			h, _ = ParseHex(last)
			return KindIndex, h, ""
		case len(parts) == 2 && isIndexLogName(last):
			return KindIndexLog, h, ""
		case len(parts) == 2 && IsTempName(last):
			return KindTemp, h, ""
		}
		return KindStray, h, ""
	case refsDir:
		switch {
		case len(parts) == 2 && last == LatestRef:
			return KindRef, h, LatestRef
		case len(parts) == 3 && parts[1] == "tags" && IsTempName(last):
			return KindTemp, h, ""
		case len(parts) == 3 && parts[1] == "tags" && CheckTagName(last) == nil:
			return KindRef, h, last
		case len(parts) == 3 && parts[1] == "suites" && IsTempName(last):
			return KindTemp, h, ""
		case len(parts) == 3 && parts[1] == "suites" && CheckTagName(last) == nil:
			return KindSuite, h, last
		case len(parts) == 2 && IsTempName(last):
			return KindTemp, h, ""
		}
		return KindStray, h, ""
	case attestationsDir:
		switch {
		case len(parts) == 3 && isLowerHex(parts[1], 64) && isLowerHex(last, 64):
			h, _ = ParseHex(parts[1])
			return KindAttest, h, ""
		case len(parts) == 3 && isLowerHex(parts[1], 64) && IsTempName(last):
			return KindTemp, h, ""
		}
		return KindStray, h, ""
	case tmpDir:
		if len(parts) == 2 {
			return KindTemp, h, ""
		}
		return KindStray, h, ""
	case removedDir:
		switch {
		case len(parts) == 2 && isLowerHex(last, 64):
			h, _ = ParseHex(last)
			return KindRemoved, h, ""
		case len(parts) == 2 && IsTempName(last):
			return KindTemp, h, ""
		}
		return KindStray, h, ""
	case draftsDir:
		if len(parts) > 1 && IsTempName(last) {
			return KindTemp, h, ""
		}
		return KindDraft, h, ""
	case configFile:
		if len(parts) == 1 {
			return KindConfig, h, ""
		}
	}
	if len(parts) == 1 && IsTempName(last) {
		return KindTemp, h, ""
	}
	return KindOther, h, ""
}

// layoutDir reports whether rel is a directory the layout has, or one
// outside the layout's own directories (which the walk enters only to find
// what is not a regular file).
func layoutDir(rel string) bool {
	parts := strings.Split(rel, "/")
	switch parts[0] {
	case objectsDir:
		return len(parts) == 1 || len(parts) == 2 && (isLowerHex(parts[1], 2) || parts[1] == "packed")
	case packsDir, tmpDir, removedDir:
		return len(parts) == 1
	case refsDir:
		return len(parts) == 1 || len(parts) == 2 && (parts[1] == "tags" || parts[1] == "suites")
	case attestationsDir:
		return len(parts) == 1 || len(parts) == 2 && isLowerHex(parts[1], 64)
	case configFile:
		return len(parts) > 1
	}
	return true
}

// IsTempName reports whether a file name is that of the temporary file an
// atomic write makes beside its target (.tmp-*).
func IsTempName(name string) bool { return strings.HasPrefix(name, ".tmp-") }

// RemoveTemp removes a temporary file found by Walk (rel as in Entry.Path).
// It refuses anything the layout does not call temporary and anything that
// is not a regular file, so it can never delete an object, a ref or a
// draft.
func (s *Store) RemoveTemp(rel string) error { return s.removeTemp(rel, false) }

// removeTemp is RemoveTemp; alone, the caller holds the store alone (a
// sweep), so no commit can be in progress.
func (s *Store) removeTemp(rel string, alone bool) error {
	if k, _, _ := Classify(rel); (k != KindTemp && !s.OrphanPackfile(rel)) || !fs.ValidPath(rel) {
		return fmt.Errorf("%s is not a temporary file of the store", rel)
	}
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", rel)
	}
	if k, _, _ := Classify(rel); k == KindPackfile && !alone && time.Since(fi.ModTime()) < staleElsewhere {
		// A writer may be between its .pack and its .idx: written to
		// last moments ago, it is not a leftover yet.
		return fmt.Errorf("%s was written less than a minute ago: a commit may be in progress", rel)
	}
	return os.Remove(p)
}

// isLowerHex reports whether s is exactly n lower-case hex digits, the only
// spelling the store writes.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
