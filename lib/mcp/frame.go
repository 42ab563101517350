// Package mcp records Model Context Protocol sessions as packs and serves
// a recorded session back: ctx record --mcp stands between a client and a
// real server and relays every message unchanged; ctx serve --mcp answers
// tools/call from a pack. Messages are decoded with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk); framing is newline-delimited
// JSON as the stdio transport defines it.
package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxMessage bounds one message: the Go SDK's own bound on a frame.
const DefaultMaxMessage = 16 << 20

// TooLargeError is a message longer than the bound; it was read past (or
// relayed as a stream), never held.
type TooLargeError struct{ Size, Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("message of %d bytes is over the bound of %d bytes", e.Size, e.Max)
}

// lineReader reads newline-delimited messages of at most max bytes each.
// Blank lines are skipped, as the stdio transport allows.
type lineReader struct {
	br  *bufio.Reader
	max int64
	buf []byte
	// blank makes next return blank lines too (as empty lines), for a
	// format where they mean something: server-sent events end with one.
	blank bool
}

func newLineReader(r io.Reader, max int64) *lineReader {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next message without its line end. A message over the
// bound is copied to over when over is not nil (a relay passes it on
// unchanged, newline included) and discarded otherwise; next then returns
// a *TooLargeError. The returned slice is valid until the next call.
func (r *lineReader) next(over io.Writer) ([]byte, error) {
	for {
		r.buf = r.buf[:0]
		var size int64
		spilled := false
		for {
			chunk, err := r.br.ReadSlice('\n')
			size += int64(len(chunk))
			switch {
			case spilled:
				if over != nil {
					if _, werr := over.Write(chunk); werr != nil {
						return nil, werr
					}
				}
			case size > r.max+2: // the line end may be \r\n
				spilled = true
				if over != nil {
					if _, werr := over.Write(r.buf); werr != nil {
						return nil, werr
					}
					if _, werr := over.Write(chunk); werr != nil {
						return nil, werr
					}
				}
				r.buf = r.buf[:0]
			default:
				r.buf = append(r.buf, chunk...)
			}
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == io.EOF && size > 0 {
				if spilled {
					return nil, &TooLargeError{Size: size, Max: r.max}
				}
				if line := bytes.TrimSpace(r.buf); len(line) > 0 || r.blank {
					return line, nil
				}
			}
			return nil, err
		}
		if spilled {
			return nil, &TooLargeError{Size: size, Max: r.max}
		}
		if line := bytes.TrimRight(r.buf, "\r\n"); len(bytes.TrimSpace(line)) > 0 || r.blank {
			return line, nil
		}
	}
}
