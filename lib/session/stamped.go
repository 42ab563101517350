package session

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Gemini CLI deletes a session whose lastUpdated is older than its
// retention (agentstore.GeminiRetentionDays) at its next start, so a
// session restored as it was recorded, months ago, would be gone before
// it is listed. A restore into Gemini CLI stamps what it writes with the
// time of the restore, the way Gemini CLI itself marks a session used: a
// .jsonl session gets {"$set":{"lastUpdated":NOW}} after its lines (the
// agent's own lines, and one record of the agent's own kind); a .json
// session (one document) gets its top-level lastUpdated replaced. The
// stamp is all that differs between two restores of the same session at
// two times, so comparing them leaves it out (output.stamp).

// maxDocHead is how much of a .json session is read for its metadata,
// which Gemini CLI writes before its messages.
const maxDocHead = 1 << 20

// touchLines finds the stamp of a .jsonl session: the records at its
// end that only say when it was last used (agentstore.IsGeminiTouch).
func touchLines(f *os.File, size int64) (start, end int64, err error) {
	const window = 64 << 10
	from := max(0, size-window)
	tail := make([]byte, size-from)
	if _, err := f.ReadAt(tail, from); err != nil && err != io.EOF {
		return 0, 0, err
	}
	end = int64(len(tail))
	if end == 0 || tail[end-1] != '\n' {
		return size, size, nil
	}
	for end > 0 {
		i := bytes.LastIndexByte(tail[:end-1], '\n') + 1
		if i == 0 && from > 0 {
			break // a line longer than the window: no stamp
		}
		if !agentstore.IsGeminiTouch(tail[i : end-1]) {
			break
		}
		end = int64(i)
	}
	return from + end, size, nil
}

// docLastUpdated finds the stamp of a .json session: the value of its
// top-level lastUpdated, among its first maxDocHead bytes.
func docLastUpdated(f *os.File, size int64) (start, end int64, err error) {
	head := make([]byte, min(size, maxDocHead))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return 0, 0, err
	}
	s, e, ok := valueAt(head, "lastUpdated")
	if !ok {
		return 0, 0, nil
	}
	return int64(s), int64(e), nil
}

// geminiStamp is how a Gemini CLI session file named name is stamped.
func geminiStamp(name string) func(*os.File, int64) (int64, int64, error) {
	if strings.HasSuffix(name, ".json") {
		return docLastUpdated
	}
	return touchLines
}

// editedDoc is the fill of a .json session: its top-level metadata
// edited (sessionId, projectHash, lastUpdated: set, each one found among
// its first maxDocHead bytes), the rest copied as recorded.
func (r *restorer) editedDoc(h store.Hash, rel, oldID string, now time.Time) func(io.Writer) error {
	return func(w io.Writer) error {
		obj, err := r.st.Open(h)
		if err != nil {
			return err
		}
		defer obj.Close()
		head := make([]byte, maxDocHead)
		n, err := io.ReadFull(obj, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		head = head[:n]
		if r.id != oldID {
			head, _ = setString(head, r.id, "sessionId")
		}
		head, _ = setString(head, agentstore.GeminiProjectHash(r.opts.Cwd), "projectHash")
		var ok bool
		if head, ok = setString(head, stamp(now), "lastUpdated"); !ok {
			r.unstamped = true
			r.opts.Warn(fmt.Sprintf("%s: no lastUpdated among its first MiB: written with its own times; Gemini CLI deletes a session %d days after its lastUpdated",
				rel, agentstore.GeminiRetentionDays))
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		_, err = io.Copy(w, obj)
		return err
	}
}
