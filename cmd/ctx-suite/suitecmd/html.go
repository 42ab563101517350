package suitecmd

import (
	"io"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/suite"
)

func writeHTML(st *store.Store, file string, stdout io.Writer, a, b *suite.Named, rep *suite.DiffReport, align string) error {
	return nil
}
