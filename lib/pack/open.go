package pack

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Reading a stored manifest without holding its steps: Head decodes
// everything but the steps, OpenSteps yields the steps one at a time.
// Both read the object as a stream and to its end, so the store checks
// its hash (a damaged object is an error, never a partial answer taken
// for a whole one). A pack of 100,000 steps is read in the memory of one.

// Head reads pack h's manifest with its steps decoded one at a time,
// handed to each (when not nil) and dropped: the manifest it returns has
// no Steps (nil) and n is their number. It checks what Load checks.
func Head(st *store.Store, h store.Hash, each func(*Step) error) (m *Manifest, n int, err error) {
	r, err := openManifest(st, h)
	if err != nil {
		return nil, 0, err
	}
	defer r.close()
	m = &Manifest{}
	err = r.members(func(k string) error {
		if !strings.EqualFold(k, "steps") {
			return r.member(m, k)
		}
		n = 0
		array, err := r.steps(func(s *Step) error {
			n++
			if each != nil {
				return each(s)
			}
			return nil
		})
		if array {
			m.Steps = []Step{} // present, as checkParsed wants it
		} else {
			m.Steps = nil
		}
		return err
	})
	if err == nil {
		err = checkParsed(m)
	}
	if err != nil {
		return nil, 0, r.fail(err)
	}
	m.Steps = nil
	m.Hash = h.String()
	return m, n, nil
}

// EachStep reads pack h's steps in order, one at a time, and hands each to
// fn; an error of fn stops it and is returned. The rest of the object is
// read, unparsed, so its hash is checked before EachStep returns nil.
func EachStep(st *store.Store, h store.Hash, fn func(*Step) error) error {
	r, err := openManifest(st, h)
	if err != nil {
		return err
	}
	defer r.close()
	err = r.members(func(k string) error {
		if strings.EqualFold(k, "steps") {
			_, err := r.steps(fn)
			return err
		}
		var skip json.RawMessage
		return r.dec.Decode(&skip)
	})
	if err != nil {
		return r.fail(err)
	}
	return nil
}

// StepReader yields the steps of a stored manifest one at a time, for
// reading two packs in step (ctx diff).
type StepReader struct {
	next chan stepOrErr
	stop chan struct{}
	done bool
}

type stepOrErr struct {
	s   *Step
	err error
}

// OpenSteps starts reading pack h's steps. Close it when done.
func OpenSteps(st *store.Store, h store.Hash) *StepReader {
	sr := &StepReader{next: make(chan stepOrErr, 64), stop: make(chan struct{})}
	go func() {
		defer close(sr.next)
		errStop := errors.New("stopped")
		err := EachStep(st, h, func(s *Step) error {
			select {
			case sr.next <- stepOrErr{s: s}:
				return nil
			case <-sr.stop:
				return errStop
			}
		})
		if err != nil && !errors.Is(err, errStop) {
			select {
			case sr.next <- stepOrErr{err: err}:
			case <-sr.stop:
			}
		}
	}()
	return sr
}

// Next returns the next step, or nil and io.EOF after the last one once
// the whole object was read and found intact, or nil and the error.
func (sr *StepReader) Next() (*Step, error) {
	if sr.done {
		return nil, io.EOF
	}
	v, ok := <-sr.next
	if !ok {
		sr.done = true
		return nil, io.EOF
	}
	if v.err != nil {
		sr.done = true
		return nil, v.err
	}
	return v.s, nil
}

// Close stops the reading.
func (sr *StepReader) Close() {
	select {
	case <-sr.stop:
	default:
		close(sr.stop)
	}
	for range sr.next {
	}
}

// manifestReader is one pass over a stored manifest.
type manifestReader struct {
	h   store.Hash
	obj *store.Object
	src *errReader
	dec *json.Decoder
}

// errReader remembers the first error of the object other than its end,
// so the store's word (damage, a read error) wins over the parser's.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

func openManifest(st *store.Store, h store.Hash) (*manifestReader, error) {
	obj, err := st.Open(h)
	if err != nil {
		var nf *store.NotFoundError
		if errors.As(err, &nf) {
			nf.What = "pack"
		}
		return nil, err
	}
	src := &errReader{r: obj}
	dec := json.NewDecoder(bufio.NewReaderSize(src, 64<<10))
	dec.UseNumber()
	return &manifestReader{h: h, obj: obj, src: src, dec: dec}, nil
}

func (r *manifestReader) close() { r.obj.Close() }

// fail words an error as Load does: the store's own errors (a damaged
// object, a read error) as they are; a manifest of another version as
// such; anything else as an object that is not a pack.
func (r *manifestReader) fail(err error) error {
	if r.src.err == nil {
		// Read on to the end: damage found there is the better answer.
		_, _ = io.Copy(io.Discard, r.src)
	}
	if r.src.err != nil {
		return r.src.err
	}
	var ve *VersionError
	if errors.As(err, &ve) {
		return fmt.Errorf("pack %s: %w", r.h, err)
	}
	return &NotPackError{Hash: r.h}
}

// members walks the top-level object, calling fn with each key for it to
// consume the value, then reads the object to its end (which checks its
// hash). What follows the object is not looked at, as in Parse.
func (r *manifestReader) members(fn func(k string) error) error {
	tok, err := r.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrNotPack)
	}
	for r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return err
		}
		if err := fn(tok.(string)); err != nil {
			return err
		}
	}
	if _, err := r.dec.Token(); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, r.src); err != nil {
		return err
	}
	return r.src.err
}

// steps decodes the steps array one element at a time; array is false
// for "steps": null.
func (r *manifestReader) steps(fn func(*Step) error) (array bool, err error) {
	tok, err := r.dec.Token()
	if err != nil {
		return false, err
	}
	if tok == nil {
		return false, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return false, fmt.Errorf("%w: steps is not an array", ErrNotPack)
	}
	for r.dec.More() {
		var s Step
		if err := r.dec.Decode(&s); err != nil {
			return true, err
		}
		if err := fn(&s); err != nil {
			return true, err
		}
	}
	_, err = r.dec.Token()
	return true, err
}

// member decodes the value of top-level key k into m, as encoding/json
// would (keys matched without regard to case, unknown ones skipped).
func (r *manifestReader) member(m *Manifest, k string) error {
	var dst any
	switch strings.ToLower(k) {
	case "version":
		dst = &m.Version
	case "hash":
		dst = &m.Hash
	case "created":
		dst = &m.Created
	case "model":
		dst = &m.Model
	case "system_prompt":
		dst = &m.SystemPrompt
	case "prompts":
		dst = &m.Prompts
	case "inputs":
		dst = &m.Inputs
	case "outputs":
		dst = &m.Outputs
	case "environment":
		dst = &m.Environment
	case "parent":
		dst = &m.Parent
	case "metadata":
		dst = &m.Metadata
	case "task":
		dst = &m.Task
	case "outcome":
		dst = &m.Outcome
	case "end":
		dst = &m.End
	default:
		var skip json.RawMessage
		dst = &skip
	}
	return r.dec.Decode(dst)
}

// Steps is a run's steps, to be read in order as many times as needed:
// from memory (StepsOf) or from the store a step at a time (StoredSteps).
type Steps struct {
	// N is how many there are.
	N int
	// Open starts a pass over them.
	Open func() StepIter
}

// StepIter is one pass over Steps: Next returns each step, then nil and
// io.EOF (or the error that ended the pass).
type StepIter interface {
	Next() (*Step, error)
	Close()
}

// StepsOf is the steps of a manifest in memory.
func StepsOf(m *Manifest) Steps {
	return Steps{N: len(m.Steps), Open: func() StepIter { return &sliceIter{steps: m.Steps} }}
}

// StoredSteps is the n steps of stored pack h (as Head counted them).
func StoredSteps(st *store.Store, h store.Hash, n int) Steps {
	return Steps{N: n, Open: func() StepIter { return OpenSteps(st, h) }}
}

type sliceIter struct {
	steps []Step
	i     int
}

func (it *sliceIter) Next() (*Step, error) {
	if it.i >= len(it.steps) {
		return nil, io.EOF
	}
	it.i++
	return &it.steps[it.i-1], nil
}

func (it *sliceIter) Close() {}
