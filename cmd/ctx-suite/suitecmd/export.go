package suitecmd

import (
	"context"
	"io"
)

func runExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return nil
}
