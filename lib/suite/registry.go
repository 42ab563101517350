package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/secrets"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// IsRegistryRef reports whether a suite argument is a registry reference
// (host[:port]/repository[:tag|@digest]) rather than a suite's name or
// hash: a suite's name never holds a '/', ctx:// names an object, and,
// as docker tells a registry from a path, the part before the first '/'
// is a host: it holds a '.' or a ':', or is localhost.
func IsRegistryRef(arg string) bool {
	host, _, ok := strings.Cut(arg, "/")
	return ok && !strings.HasPrefix(arg, "ctx://") && (strings.ContainsAny(host, ".:") || host == "localhost")
}

// SecretsError says a pack of a suite holds what looks like secrets;
// nothing was pushed.
type SecretsError struct {
	Pack store.Hash
	Task string
	Err  *secrets.FoundError
}

func (e *SecretsError) Error() string {
	return fmt.Sprintf("pack %s (task %s): %v\nnothing was pushed", e.Pack, e.Task, e.Err)
}

// ErrorHints say what to do.
func (e *SecretsError) ErrorHints() []string {
	return []string{"remove them from the run and add the suite again, or push anyway with --allow-secrets"}
}

// PushOptions are ctx suite push's.
type PushOptions struct {
	oci.Options
	// AllowSecrets pushes without scanning the packs for secrets.
	AllowSecrets bool
}

// Push sends the suite arg names (Resolve) and all its packs to ref as
// one OCI artifact (oci.PushSuite). Unless opts.AllowSecrets, every pack
// is first scanned for secrets as ctx push scans one: a finding stops
// the push (*SecretsError) before anything is sent.
func Push(ctx context.Context, st *store.Store, arg string, ref oci.Ref, opts PushOptions) (*oci.PushedSuite, error) {
	s, err := Resolve(st, arg)
	if err != nil {
		return nil, err
	}
	canon, err := st.ReadAll(s.Hash)
	if err != nil {
		return nil, err
	}
	var packs []store.Hash
	seen := map[store.Hash]bool{}
	for _, r := range s.Runs {
		if seen[r.Pack] {
			continue
		}
		seen[r.Pack] = true
		packs = append(packs, r.Pack)
		if opts.AllowSecrets {
			continue
		}
		m, err := pack.Load(st, r.Pack)
		if err != nil {
			return nil, fmt.Errorf("pack %s (task %s) of suite %s: %w", r.Pack, r.Task, s.Name, err)
		}
		var found *secrets.FoundError
		if err := secrets.CheckPack(st, m); errors.As(err, &found) {
			return nil, &SecretsError{Pack: r.Pack, Task: r.Task, Err: found}
		} else if err != nil {
			return nil, fmt.Errorf("pack %s (task %s): %w", r.Pack, r.Task, err)
		}
	}
	return oci.PushSuite(ctx, st, oci.Suite{Name: s.Name, Hash: s.Hash, Canon: canon, Packs: packs}, ref, opts.Options)
}

// PullOptions are ctx suite pull's.
type PullOptions struct {
	oci.Options
	// Name is the name to record the suite under; "" for the name it
	// was pushed under.
	Name string
	// Force replaces the suite the name names already (see Claim).
	Force bool
	// Interrupt is oci.PullSuite's.
	Interrupt func(abort func()) (stop func())
}

// PullReport is what ctx suite pull prints.
type PullReport struct {
	Name     string `json:"name"`
	Suite    string `json:"suite"`              // ctx://<hex> of the suite object
	Previous string `json:"previous,omitempty"` // the suite the name named before, replaced with -f
	*oci.PulledSuite
}

// Pull fetches the suite ref names and all its packs into st
// (oci.PullSuite) and records it under opts.Name, else the name it was
// pushed under. The name is claimed (Claim) once the suite object is in
// hand, before any pack is fetched: one that names another suite is
// refused without opts.Force, and the same suite pulled again is no
// change. The write lock is held until the name is written, so ctx gc
// never sees the suite object unnamed.
func Pull(ctx context.Context, st *store.Store, ref oci.Ref, opts PullOptions) (*PullReport, error) {
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rep := &PullReport{Name: opts.Name}
	var was store.Hash
	check := func(pushed string, canon []byte) ([]store.Hash, error) {
		packs, err := pulledPacks(ref, canon)
		if err != nil {
			return nil, err
		}
		if rep.Name == "" {
			if err := store.CheckSuiteName(pushed); err != nil {
				return nil, text.WithHints(fmt.Errorf("%s names no suite name this store can take (%q)", ref, pushed), "give one with --name NAME")
			}
			rep.Name = pushed
		}
		var exists *ExistsError
		if was, err = Claim(st, rep.Name, "ctx suite pull", opts.Force); errors.As(err, &exists) && exists.Suite == store.Sum(canon) {
			err = nil // the same suite: pulled again, nothing to replace
		}
		if err != nil {
			return nil, err
		}
		return packs, nil
	}
	res, err := oci.PullSuite(ctx, st, ref, opts.Options, check, opts.Interrupt)
	if err != nil {
		return nil, err
	}
	rep.PulledSuite, rep.Suite = res, res.Suite.URI()
	if err := nameSuite(st, rep.Name, res.Suite, was); err != nil {
		return nil, text.WithHints(err, fmt.Sprintf("the suite and its packs are stored; 'ctx suite pull -f %s' names it", ref))
	}
	if !was.IsZero() && was != res.Suite {
		rep.Previous = was.URI()
	}
	return rep, nil
}

// pulledPacks reads the suite object canon a registry sent for ref and
// lists its packs, each once.
func pulledPacks(ref oci.Ref, canon []byte) ([]store.Hash, error) {
	m, err := Parse(canon)
	if err != nil {
		return nil, fmt.Errorf("%s: its suite object: %w", ref, err)
	}
	return packsOf(m), nil
}

// packsOf lists the packs of a suite, each once.
func packsOf(m *Manifest) []store.Hash {
	var out []store.Hash
	seen := map[store.Hash]bool{}
	for _, r := range m.Runs {
		if !seen[r.Pack] {
			seen[r.Pack] = true
			out = append(out, r.Pack)
		}
	}
	return out
}

// OpenOptions say how Open reaches a registry.
type OpenOptions struct {
	Registry  oci.Options
	Note      func(string)
	Interrupt func(abort func()) (stop func())
}

// Open is Resolve for a verb that also takes a suite in a registry (ctx
// suite diff): a registry reference is pulled into the store first (its
// packs indexed, the suite named by no ref: 'ctx suite pull --name'
// keeps it by name) and read.
func Open(ctx context.Context, st *store.Store, arg string, opts OpenOptions) (*Named, error) {
	if !IsRegistryRef(arg) {
		return Resolve(st, arg)
	}
	ref, err := oci.ParseRef(arg)
	if err != nil {
		return nil, err
	}
	// Held until the suite is read: no gc takes the unnamed object first.
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, err
	}
	defer unlock()
	check := func(_ string, canon []byte) ([]store.Hash, error) { return pulledPacks(ref, canon) }
	res, err := oci.PullSuite(ctx, st, ref, opts.Registry, check, opts.Interrupt)
	if err != nil {
		return nil, err
	}
	if opts.Note != nil {
		opts.Note("pulled " + res.Human())
	}
	return loadObject(st, arg, res.Suite)
}
