package store

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// MinPrefix is the shortest hash prefix a name may use.
const MinPrefix = 4

// BadNameError says a string is not a pack or object name at all. Paths
// (`../../etc/passwd`) end up here: a name is never read as a file.
type BadNameError struct {
	Name   string
	Reason string
}

func (e *BadNameError) Error() string {
	return fmt.Sprintf("%q is not a pack or object name: %s", e.Name, e.Reason)
}

// AmbiguousError says a hash prefix matches more than one object.
type AmbiguousError struct {
	Name       string
	What       string // "pack" or "object"
	Candidates []Hash
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("short name %q is ambiguous: %d %ss match", e.Name, len(e.Candidates), e.What)
}

// Names is the one-line description of the naming forms, for hints.
const Names = "ctx://HEX, sha256:HEX, HEX, a unique prefix of 4+ hex digits, latest, or a tag"

// ResolvePack turns any naming form into the hash of a pack: ctx://HEX,
// sha256:HEX, HEX, a unique prefix of at least 4 hex digits, "latest" or a
// tag. Prefixes are matched against the packs/ index, and against all
// objects when the index has none (a store made by copying objects). The
// object is not read: the caller checks that it really is a manifest.
func (s *Store) ResolvePack(name string) (Hash, error) {
	return s.resolve(name, "pack", true)
}

// ResolveObject is ResolvePack for any object, blob or manifest.
func (s *Store) ResolveObject(name string) (Hash, error) {
	return s.resolve(name, "object", false)
}

func (s *Store) resolve(name, what string, packs bool) (Hash, error) {
	hx, explicit := strings.CutPrefix(name, "ctx://")
	if !explicit {
		hx, explicit = strings.CutPrefix(name, "sha256:")
	}
	switch {
	case name == "":
		return Hash{}, &BadNameError{Name: name, Reason: "it is empty"}
	case !explicit && name == LatestRef:
		h, err := s.ReadRef(LatestRef)
		if errors.Is(err, ErrNotFound) {
			return Hash{}, s.noLatest()
		}
		return h, err
	case isHex(hx) && len(hx) == 64:
		h, _ := ParseHex(hx)
		if _, err := s.Stat(h); err != nil {
			if errors.Is(err, ErrNotFound) {
				return Hash{}, &NotFoundError{Hash: h, What: what}
			}
			if errors.Is(err, ErrCorrupt) {
				// The name is there; what is wrong with its object is for
				// the verb that reads it to report (ctx verify: corrupt).
				return h, nil
			}
			return Hash{}, err
		}
		return h, nil
	case isHex(hx) && len(hx) > 64:
		return Hash{}, &BadNameError{Name: name, Reason: "a sha256 hash has 64 hex digits"}
	case isHex(hx) && len(hx) >= MinPrefix:
		return s.resolvePrefix(name, strings.ToLower(hx), what, packs)
	case isHex(hx) && explicit:
		return Hash{}, &BadNameError{Name: name, Reason: fmt.Sprintf("a hash prefix needs at least %d hex digits", MinPrefix)}
	case isHex(hx):
		// Too short to be a prefix, so it can only be a tag ("a", "42").
		h, err := s.ReadRef(name)
		if errors.Is(err, ErrNotFound) {
			return Hash{}, &BadNameError{Name: name, Reason: fmt.Sprintf("a hash prefix needs at least %d hex digits", MinPrefix)}
		}
		return h, err
	case explicit:
		return Hash{}, &BadNameError{Name: name, Reason: "what follows the scheme is not hex"}
	case CheckTagName(name) == nil:
		h, err := s.ReadRef(name)
		if errors.Is(err, ErrNotFound) {
			return Hash{}, notFoundf("no %s or tag named %q", what, name)
		}
		return h, err
	default:
		return Hash{}, &BadNameError{Name: name, Reason: "use " + Names}
	}
}

func (s *Store) resolvePrefix(name, prefix, what string, packs bool) (Hash, error) {
	var found []Hash
	if packs {
		idx, err := s.IndexedPacks()
		if err != nil {
			return Hash{}, err
		}
		for _, h := range idx {
			if strings.HasPrefix(h.Hex(), prefix) {
				found = append(found, h)
			}
		}
	}
	if len(found) == 0 {
		var err error
		if found, err = s.objectsWithPrefix(prefix); err != nil {
			return Hash{}, err
		}
	}
	switch len(found) {
	case 0:
		return Hash{}, notFoundf("no %s matches %q", what, name)
	case 1:
		return found[0], nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Hex() < found[j].Hex() })
	return Hash{}, &AmbiguousError{Name: name, What: what, Candidates: found}
}

// notFound is a "not found" error with its own wording.
type notFound struct{ msg string }

func (e *notFound) Error() string { return e.msg }

// Is makes errors.Is(err, ErrNotFound) true.
func (e *notFound) Is(target error) bool { return target == ErrNotFound }

func notFoundf(format string, args ...any) error {
	return &notFound{msg: fmt.Sprintf(format, args...)}
}

// noLatest says why "latest" names nothing: the store has no packs, or
// refs/latest is missing while the index has some (a store from before
// import and pull set it, or a ref removed by hand).
func (s *Store) noLatest() error {
	if packs, err := s.IndexedPacks(); err == nil && len(packs) > 0 {
		return fmt.Errorf("no pack is named latest: refs/latest is missing, but the index has %d pack(s); name one by hash or tag ('ctx log' lists them)", len(packs))
	}
	return fmt.Errorf("no pack is named latest yet: the store has no packs (run 'ctx pack')")
}
