package mcp

import (
	"io"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Save packs the session into st as ctx pack would its log, through a
// pipe: the log is never whole in memory.
func Save(st *store.Store, s *Session, opts pack.SaveOptions) (pack.Published, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.WriteLog(pw)
		pw.CloseWithError(err)
		done <- err
	}()
	if opts.Source == "" {
		opts.Source = "mcp session"
	}
	_, pub, err := pack.Save(st, pr, opts)
	_, _ = io.Copy(io.Discard, pr)
	if werr := <-done; werr != nil && err == nil {
		err = werr
	}
	return pub, err
}
