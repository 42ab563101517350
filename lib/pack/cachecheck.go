package pack

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"

	"github.com/contextsubstrate/ctx/lib/store"
)

// LogCache is the name of ctx log's cache under the store's cache/.
const LogCache = logCache

// CheckLogCache checks .ctx/cache/log, the cache of the packs/ index that
// ctx log reads: its checksum and form, and, while packs/ is as it was when
// the cache was made, that it lists exactly the index entries and says what
// each says. No cache, or one made before packs/ last changed (the next ctx
// log rebuilds it), is no problem. An error says what is wrong.
func CheckLogCache(st *store.Store) error {
	b, err := st.ReadCache(logCache)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	stamp, err := st.IndexStamp()
	if err != nil {
		return err
	}
	entries, err := decodeCache(b, stamp.Key)
	switch {
	case errors.Is(err, errStale):
		return nil
	case err != nil:
		return err
	}
	stored, err := st.IndexPlaces()
	if err != nil {
		return err
	}
	if len(stored) != len(entries) {
		return fmt.Errorf("it lists %d packs, the index has %d", len(entries), len(stored))
	}
	read := readEntries(st, stored)
	index := make(map[store.Hash]int, len(stored))
	for i, se := range stored {
		index[se.Hash] = i
	}
	for _, e := range entries {
		i, ok := index[e.Hash]
		switch {
		case !ok:
			return fmt.Errorf("it lists pack %s, which the index does not", e.Hash)
		case read[i].err != nil:
			continue // a damaged entry is a problem of its own
		case !reflect.DeepEqual(e.IndexEntry, read[i].entry.IndexEntry):
			return fmt.Errorf("what it says of pack %s is not what %s says", e.Hash, stored[i].Where)
		}
	}
	return nil
}
