package mcp

import (
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Save packs the session into st as ctx pack would its log, as the log
// is written (pack.SaveWritten): the log is never whole in memory.
func Save(st *store.Store, s *Session, opts pack.SaveOptions) (pack.Published, error) {
	if opts.Source == "" {
		opts.Source = "mcp session"
	}
	var pub pack.Published
	err := pack.SaveWritten(st, s.WriteLog, opts, func(_ *pack.Result, p pack.Published) error {
		pub = p
		return nil
	})
	return pub, err
}
