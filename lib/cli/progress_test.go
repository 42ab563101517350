package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// A progress line is written, rewritten at most ten times a second, and
// cleared, on a terminal only.
func TestProgress(t *testing.T) {
	var piped bytes.Buffer
	p := NewProgress(&piped)
	p.Show("pushing %d", 1)
	p.Clear()
	if piped.Len() != 0 {
		t.Fatalf("a progress line off a terminal: %q", piped.String())
	}

	var tty bytes.Buffer
	p = &Progress{w: &tty, on: true}
	p.Show("pushing %d of %d", 1, 10)
	p.Show("pushing %d of %d", 2, 10) // too soon: not shown
	p.last = time.Now().Add(-time.Second)
	p.Show("pushing %d of %d", 3, 10)
	p.Clear()
	p.Clear() // nothing shown since: nothing to clear
	want := "\rpushing 1 of 10\x1b[K\rpushing 3 of 10\x1b[K\r\x1b[K"
	if got := tty.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The head of an input stays to be read; reading it shows the count on a
// terminal's progress line, and a message written through the progress
// clears the line first.
func TestInputHeadAndProgress(t *testing.T) {
	data := strings.Repeat("x", 3000)
	in := &Input{Reader: strings.NewReader(data), Name: "standard input", Stdin: true}
	if h := in.Head(1000); string(h) != data[:1000] {
		t.Fatalf("head %d bytes", len(h))
	}
	var tty bytes.Buffer
	p := &Progress{w: &tty, on: true}
	in.ShowProgress(p)
	b, err := io.ReadAll(in)
	if err != nil || string(b) != data {
		t.Fatalf("read %d bytes, %v", len(b), err)
	}
	if !strings.HasPrefix(tty.String(), "\rreading standard input: ") {
		t.Errorf("progress %q", tty.String())
	}
	tty.Reset()
	fmt.Fprintln(p, "ctx-pack: warning: w")
	if tty.String() != "\r\x1b[Kctx-pack: warning: w\n" {
		t.Errorf("a message through the progress: %q", tty.String())
	}

	// A read error is left for the reads after the head.
	broken := errors.New("input/output error")
	in = &Input{Reader: io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(broken))}
	if h := in.Head(10); string(h) != "abc" {
		t.Errorf("head %q", h)
	}
	if b, err := io.ReadAll(in); string(b) != "abc" || !errors.Is(err, broken) {
		t.Errorf("after the head: %q, %v", b, err)
	}

	// Off a terminal the input is read as it is.
	in = &Input{Reader: strings.NewReader(data)}
	in.ShowProgress(NewProgress(&tty))
	if _, ok := in.Reader.(*strings.Reader); !ok {
		t.Errorf("off a terminal the input is wrapped: %T", in.Reader)
	}
}
