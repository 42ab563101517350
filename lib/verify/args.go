package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Target is one thing ctx verify checks: an artifact, a pack or a
// directory to walk for sidecars.
type Target struct {
	Artifact string
	Pack     store.Hash
	Dir      string
}

// Classify decides what each argument of ctx verify is, before anything
// is checked, so a typo fails at once. A name that is a file is an
// artifact, as is one whose sidecar is there though the file is gone (a
// deleted artifact is a finding, not a typo); a directory is walked when
// recursive; anything else must name a pack. A name that is none of
// these is an *ArgError.
func Classify(st *store.Store, args []string, recursive bool) ([]Target, error) {
	var out []Target
	for _, a := range args {
		fi, err := os.Stat(a)
		switch {
		case err == nil && fi.IsDir():
			if !recursive {
				return nil, &ArgError{Arg: a, Dir: true, Err: fmt.Errorf("%s is a directory; use -r to verify every artifact with a sidecar under it", a)}
			}
			out = append(out, Target{Dir: a})
			continue
		case err == nil:
			out = append(out, Target{Artifact: a})
			continue
		case !errors.Is(err, fs.ErrNotExist):
			return nil, &ArgError{Arg: a, Err: fmt.Errorf("cannot read %s: %v", a, text.UnwrapPath(err))}
		}
		if _, err := os.Lstat(sidecar.Path(a)); err == nil {
			out = append(out, Target{Artifact: a})
			continue
		}
		h, err := st.ResolvePack(a)
		if err != nil {
			return nil, nameError(a, err)
		}
		out = append(out, Target{Pack: h})
	}
	return out, nil
}

// ArgError is an argument of ctx verify that is neither a file nor a
// pack, or a directory given without -r (Dir). Its hints say what to do.
type ArgError struct {
	Arg   string
	Dir   bool
	Err   error
	hints []string
}

func (e *ArgError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ArgError) Unwrap() error { return e.Err }

// ErrorHints returns what to do about it (cli.Report prints them).
func (e *ArgError) ErrorHints() []string { return e.hints }

// nameError explains an argument that is neither a file nor a pack.
func nameError(arg string, err error) error {
	var amb *store.AmbiguousError
	var bad *store.BadNameError
	switch {
	case errors.As(err, &amb):
		e := &ArgError{Arg: arg, Err: err}
		for _, c := range amb.Candidates {
			e.hints = append(e.hints, fmt.Sprintf("candidate %s", c))
		}
		return e
	case errors.As(err, &bad):
		return &ArgError{Arg: arg, Err: fmt.Errorf("%s: no such file, and not a pack name", arg), hints: []string{"a pack is named by " + store.Names}}
	case errors.Is(err, store.ErrNotFound):
		return &ArgError{Arg: arg, Err: fmt.Errorf("%s: no such file, and no pack of that name in the store", arg), hints: []string{"'ctx log' lists the packs in this store"}}
	}
	return err
}

// Each checks every target in order and hands each report to emit as it
// is made, so a walk over a large tree streams. A directory holding no
// sidecar is passed to empty. An error ends the checks: emit's, or one
// that keeps an artifact or pack from being checked at all (an I/O error).
func (v *Verifier) Each(targets []Target, emit func(Report) error, empty func(dir string)) error {
	for _, t := range targets {
		var err error
		switch {
		case t.Dir != "":
			n := 0
			err = Walk(t.Dir, func(artifact string) error {
				n++
				r, err := v.Artifact(artifact)
				if err != nil {
					return err
				}
				return emit(r)
			})
			if err == nil && n == 0 {
				empty(t.Dir)
			}
		case t.Artifact != "":
			err = v.emit(emit)(v.Artifact(t.Artifact))
		default:
			err = v.emit(emit)(v.Pack(t.Pack))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (v *Verifier) emit(emit func(Report) error) func(Report, error) error {
	return func(r Report, err error) error {
		if err != nil {
			return err
		}
		return emit(r)
	}
}
