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
// with the number of steps (a 200 MB session has about 92,000). The
// builder adds a step once its output's ref is known (builder.flushSteps).
type stepSpill struct {
	f       *os.File
	w       *bufio.Writer
	n       int      // steps added
	tools   []string // the tools of tool_call steps, in order of first use
	seen    map[string]bool
	refused int   // steps whose outcome is OutcomeRejected
	err     error // the first write error; the build fails with it
}

func newStepSpill(f *os.File) *stepSpill {
	return &stepSpill{f: f, w: bufio.NewWriterSize(f, 256<<10), seen: map[string]bool{}}
}

// add appends step s.
func (sp *stepSpill) add(s *Step) {
	if s.Type == "tool_call" && !sp.seen[s.Tool] {
		sp.seen[s.Tool] = true
		sp.tools = append(sp.tools, s.Tool)
	}
	sp.n++
	if s.Outcome == OutcomeRejected {
		sp.refused++
	}
	rec, err := encodeStep(s)
	if err != nil {
		sp.fail(err)
		return
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
		if uint64(cap(rec)) < size {
			rec = make([]byte, size)
		}
		rec = rec[:size]
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("the steps' scratch file, step %d: %w", i, err)
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
