package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
)

// entryKind is what an entry of a stream is.
type entryKind int

const (
	entryObject entryKind = iota // objects/ab/<62 hex>
	entryIndex                   // packs/<64 hex>
	entryDir                     // objects/, objects/ab/ or packs/, skipped
)

// checkHeader accepts only what a bundle may hold: regular files named as
// objects or index entries, and the directories above them. It parses the
// hash from the name; anything else is refused with the reason.
func checkHeader(hdr *tar.Header) (entryKind, store.Hash, error) {
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return 0, store.Hash{}, errors.New("it is a sparse file; a ctx export holds only plain regular files")
		}
	}
	switch hdr.Typeflag {
	case tar.TypeReg:
		kind, h, err := parseEntryName(hdr.Name)
		if err != nil {
			return 0, h, err
		}
		if kind == entryDir {
			return 0, h, errors.New("a regular file where a ctx export has a directory")
		}
		return kind, h, nil
	case tar.TypeDir:
		kind, h, err := parseEntryName(hdr.Name)
		if err != nil {
			return 0, h, err
		}
		if kind != entryDir {
			return 0, h, errors.New("a directory where a ctx export has a regular file")
		}
		return kind, h, nil
	}
	return 0, store.Hash{}, fmt.Errorf("it is %s; a ctx export holds only regular files", typeName(hdr.Typeflag))
}

// parseEntryName parses the name of a stream entry: objects/ab/<62 hex> is
// an object, packs/<64 hex> an index entry, and objects, objects/ab and
// packs (with or without a trailing slash) are directories. Any other name
// is an error saying why: the names of a stream are the store's own, and
// nothing else is ever written.
func parseEntryName(name string) (kind entryKind, h store.Hash, err error) {
	dir := strings.TrimSuffix(name, "/")
	switch {
	case dir == "objects" || dir == "packs":
		return entryDir, h, nil
	case len(dir) == len("objects/ab") && strings.HasPrefix(dir, "objects/") && lowerHex(dir[8:]):
		return entryDir, h, nil
	}
	switch {
	case name == "":
		return 0, h, errors.New("an empty name")
	case strings.HasPrefix(name, "/"):
		return 0, h, errors.New("an absolute name; the names of a ctx export are relative")
	case strings.ContainsRune(name, '\\'):
		return 0, h, errors.New("a name with a backslash")
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return 0, h, errors.New("a name with a '..' element, which would leave the store")
		}
	}
	if hx, ok := strings.CutPrefix(name, "objects/"); ok && len(hx) == 65 && hx[2] == '/' && lowerHex(hx[:2]) && lowerHex(hx[3:]) {
		h, err := store.ParseHex(hx[:2] + hx[3:])
		return entryObject, h, err
	}
	if hx, ok := strings.CutPrefix(name, "packs/"); ok && len(hx) == 64 && lowerHex(hx) {
		h, err := store.ParseHex(hx)
		return entryIndex, h, err
	}
	return 0, h, errors.New("not an object (objects/ab/<62 hex>) or index entry (packs/<64 hex>) of a ctx export")
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// typeName names a tar entry type for messages.
func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "a symbolic link"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeChar:
		return "a character device"
	case tar.TypeBlock:
		return "a block device"
	case tar.TypeFifo:
		return "a named pipe"
	case tar.TypeXGlobalHeader:
		return "a global pax header"
	case tar.TypeGNUSparse:
		return "a sparse file"
	case tar.TypeCont:
		return "a contiguous file"
	}
	return fmt.Sprintf("an entry of type %q", t)
}
