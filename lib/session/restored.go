package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/store"
)

// The restore record (.ctx/cache/restored) remembers each session file a
// restore from this store wrote: the pack it came from, the session, the
// directory it was restored for, and the file's bytes as written (size
// and SHA-256). A capture of that session, continued there by the agent,
// finds by it the pack the session goes on from, even when the working
// directory changed in every line or no tag of the store names the pack
// (pulled under another name); and a restore of the same session for
// another directory says where it is. Losing the file loses only those
// links, as with every cache; a line that does not read is skipped.
type restoreRecord struct {
	Pack    store.Hash `json:"pack"`
	Agent   string     `json:"agent"`
	Session string     `json:"session"`
	File    string     `json:"file"`
	Cwd     string     `json:"cwd"`
	Size    int64      `json:"size"`
	Sum     store.Hash `json:"sum"` // the SHA-256 of the file's bytes
}

const (
	restoredCacheName   = "restored"
	restoredCacheHeader = "ctx restore record 1\n"
	// restoredMax bounds the records kept: the oldest go first.
	restoredMax = 10_000
)

// loadRestored reads the restore record of st (none when it is missing
// or is not one).
func loadRestored(st *store.Store) []restoreRecord {
	b, err := st.ReadCache(restoredCacheName)
	if err != nil {
		return nil
	}
	return parseRestored(b)
}

// parseRestored decodes the record file: its header, then a JSON object
// per line.
func parseRestored(b []byte) []restoreRecord {
	body, ok := bytes.CutPrefix(b, []byte(restoredCacheHeader))
	if !ok {
		return nil
	}
	var out []restoreRecord
	for _, line := range bytes.Split(body, []byte("\n")) {
		var r restoreRecord
		if len(line) == 0 || json.Unmarshal(line, &r) != nil || r.Agent == "" || r.Session == "" || r.File == "" || r.Size <= 0 {
			continue
		}
		out = append(out, r)
	}
	return out
}

// noteRestored adds rec to the record of st, in place of one of the same
// file. A record that cannot be written only loses its links.
func noteRestored(st *store.Store, rec restoreRecord) {
	all := loadRestored(st)
	kept := all[:0]
	for _, r := range all {
		if r.File != rec.File {
			kept = append(kept, r)
		}
	}
	kept = append(kept, rec)
	if len(kept) > restoredMax {
		kept = kept[len(kept)-restoredMax:]
	}
	var b bytes.Buffer
	b.WriteString(restoredCacheHeader)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range kept {
		_ = enc.Encode(r)
	}
	_ = st.WriteCache(restoredCacheName, b.Bytes())
}

// startsWith reports whether the file at path begins with the bytes of
// rec (it is what the restore wrote, or that and what the agent added).
func (rec restoreRecord) startsWith(path string) bool {
	sum, err := prefixSum(path, rec.Size)
	return err == nil && sum == rec.Sum
}

// prefixSum is the SHA-256 of the first n bytes of the file at path (an
// error when it is shorter).
func prefixSum(path string, n int64) (store.Hash, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return store.Hash{}, err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.CopyN(sum, f, n); err != nil {
		return store.Hash{}, err
	}
	var h store.Hash
	sum.Sum(h[:0])
	return h, nil
}
