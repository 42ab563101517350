package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/contextsubstrate/ctx/lib/text"
)

// Progress is a line of progress on stderr, rewritten in place at most ten
// times a second, and only when stderr is a terminal: elsewhere it writes
// nothing, so logs and pipes never see it. It may be used from several
// goroutines.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	last  time.Time
	shown bool
}

// NewProgress returns the progress line of stderr.
func NewProgress(stderr io.Writer) *Progress {
	return &Progress{w: stderr, on: IsTerminal(stderr)}
}

// Show replaces the line, unless it was replaced less than 100 ms ago.
func (p *Progress) Show(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r"+format+"\x1b[K", args...)
	p.shown = true
}

// Clear removes the line, before other output.
func (p *Progress) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// Write clears the line and writes b: a Messenger writing to the
// Progress puts its messages on lines of their own.
func (p *Progress) Write(b []byte) (int, error) {
	p.Clear()
	return p.w.Write(b)
}

// ShowProgress shows on p how much of the input has been read, "reading
// run.json: 120.0 MiB of 200.0 MiB", as it is read. Off a terminal p
// shows nothing, and the input is read as before.
func (in *Input) ShowProgress(p *Progress) {
	if !p.on {
		return
	}
	r := &progressReader{r: in.Reader, p: p, name: in.Name, total: -1}
	if in.File != nil {
		if fi, err := in.File.Stat(); err == nil && fi.Mode().IsRegular() {
			r.total = fi.Size()
		}
	}
	in.Reader = r
}

// progressReader counts what it reads and shows the count.
type progressReader struct {
	r     io.Reader
	p     *Progress
	name  string
	n     int64
	total int64 // -1: unknown (a pipe)
}

func (r *progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.n += int64(n)
	if r.total >= 0 {
		r.p.Show("reading %s: %s of %s", r.name, text.Size(r.n), text.Size(r.total))
	} else {
		r.p.Show("reading %s: %s", r.name, text.Size(r.n))
	}
	return n, err
}
