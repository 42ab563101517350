package pack

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// stepSpill keeps the steps of a manifest being built in a scratch file,
// each as its canonical encoding, so the memory of ctx pack does not grow
// with the number of steps (a 200 MB session has about 92,000). A step
// whose output is still being read from a file stays in memory until the
// end (held), since its output_ref is not known yet; the file records an
// empty entry in its place, so the order is kept.
type stepSpill struct {
	f     *os.File
	w     *bufio.Writer
	n     int           // steps added
	held  map[int]*Step // steps kept in memory, by index
	tools []string      // the tools of tool_call steps, in order of first use
	seen  map[string]bool
	err   error // the first write error; the build fails with it
}

func newStepSpill(f *os.File) *stepSpill {
	return &stepSpill{f: f, w: bufio.NewWriterSize(f, 256<<10), held: map[int]*Step{}, seen: map[string]bool{}}
}

// put adds step st, whose output and normalised output are s and norm:
// when both are known, their refs go into the step and it goes to the file
// (put returns nil slots); otherwise it is held, with its slots returned
// for the build to wait on.
func (sp *stepSpill) put(st Step, s, norm *slot) (*slot, *slot) {
	hold := (s != nil && s.ch != nil) || (norm != nil && norm.ch != nil)
	if hold {
		sp.add(&st, true)
		return s, norm
	}
	if s != nil {
		h, n := s.hash, s.size
		st.OutputRef, st.OutputSize = &h, &n
	}
	if norm != nil {
		h := norm.hash
		st.NormalizedOutputRef = &h
	}
	sp.add(&st, false)
	return nil, nil
}

// add appends step s; hold keeps it in memory (its output is not known
// yet, see above).
func (sp *stepSpill) add(s *Step, hold bool) {
	if s.Type == "tool_call" && !sp.seen[s.Tool] {
		sp.seen[s.Tool] = true
		sp.tools = append(sp.tools, s.Tool)
	}
	sp.n++
	var rec []byte
	if hold {
		sp.held[s.Index] = s
	} else {
		var err error
		if rec, err = encodeStep(s); err != nil {
			sp.fail(err)
			return
		}
	}
	var head [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(head[:], uint64(len(rec)))
	if _, err := sp.w.Write(head[:k]); err != nil {
		sp.fail(err)
		return
	}
	if _, err := sp.w.Write(rec); err != nil {
		sp.fail(err)
	}
}

func (sp *stepSpill) fail(err error) {
	if sp.err == nil {
		sp.err = fmt.Errorf("the steps' scratch file: %w", err)
	}
}

// writeSteps writes the steps, in order, joined by commas as in the
// canonical steps array.
func (sp *stepSpill) writeSteps(w io.Writer) error {
	if sp.err != nil {
		return sp.err
	}
	if sp.f == nil {
		return errors.New("the steps of this manifest were released")
	}
	if err := sp.w.Flush(); err != nil {
		return err
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(sp.f, 256<<10)
	var rec []byte
	for i := 0; i < sp.n; i++ {
		size, err := binary.ReadUvarint(r)
		if err != nil {
			return fmt.Errorf("the steps' scratch file, step %d: %w", i, err)
		}
		if size == 0 {
			if rec, err = encodeStep(sp.held[i]); err != nil {
				return err
			}
		} else {
			if uint64(cap(rec)) < size {
				rec = make([]byte, size)
			}
			rec = rec[:size]
			if _, err := io.ReadFull(r, rec); err != nil {
				return fmt.Errorf("the steps' scratch file, step %d: %w", i, err)
			}
		}
		if i > 0 {
			if _, err := w.Write([]byte{','}); err != nil {
				return err
			}
		}
		if _, err := w.Write(rec); err != nil {
			return err
		}
	}
	// Leave the file positioned for another pass.
	_, err := sp.f.Seek(0, io.SeekEnd)
	return err
}

// close removes the scratch file.
func (sp *stepSpill) close() {
	if sp.f != nil {
		sp.f.Close()
		os.Remove(sp.f.Name()) // already gone where the system allowed it
		sp.f = nil
	}
}

// encodeStep is the canonical form of one step. RFC 8785 canonicalizes
// each value on its own, so a manifest's steps array is its steps'
// canonical forms joined by commas; a step the fast writer does not handle
// takes the reference path alone (see Encode).
func encodeStep(s *Step) ([]byte, error) {
	e := encoder{}
	e.step(s)
	if !e.fallback {
		return e.buf, nil
	}
	m := Manifest{Steps: []Step{*s}}
	canon, _, err := encodeSlow(&m)
	if err != nil {
		return nil, err
	}
	// canon is the whole manifest; take the one element of "steps".
	const open = `"steps":[`
	i := bytes.Index(canon, []byte(open))
	j := bytes.LastIndex(canon, []byte(`],"system_prompt":`))
	if i < 0 || j < i {
		return nil, fmt.Errorf("step %d cannot be canonicalized", s.Index)
	}
	return append([]byte(nil), canon[i+len(open):j]...), nil
}
