package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/store"
)

// exact makes the outputs of an exact restore: the session's own files,
// each line as recorded but for the working directory (and the session id
// when it changes), where the agent reads them (docs/RESTORE.md):
//
//	Claude Code  each record's cwd (and sessionId)
//	Codex        session_meta's cwd and runtime_workspace_roots (and id),
//	             turn_context's cwd, the <cwd> and <root> of the context
//	             messages
//	Gemini CLI   the metadata's projectHash (and sessionId), and the
//	             time it was last used (stamped.go)
//
// The companions (sub-agents' transcripts) come first, the session file
// last.
func (r *restorer) exact(oldID string, files []File, res *Restored) ([]output, error) {
	main := files[0]
	name := path.Base(main.Rel)
	switch r.to {
	case agentstore.ClaudeCode:
		name = r.id + ".jsonl"
	case agentstore.Codex:
		t, _, ok := agentstore.ParseCodexRolloutName(name)
		if !ok {
			return nil, fmt.Errorf("%s: not a Codex rollout's file name", main.Rel)
		}
		name = agentstore.CodexRolloutName(t, r.id)
	case agentstore.Gemini:
		if !strings.HasPrefix(name, "session-") || !(strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")) {
			return nil, fmt.Errorf("%s: not a Gemini CLI session's file name", main.Rel)
		}
		if r.id != oldID {
			name = strings.Replace(name, agentstore.GeminiShortID(oldID)+".json", agentstore.GeminiShortID(r.id)+".json", 1)
		}
	}
	file, root, err := r.sessionFile(name)
	if err != nil {
		return nil, err
	}
	var outs []output
	for _, f := range files[1:] {
		// Only Claude Code's sessions have companions, in the folder
		// named by the session id (which takes the new id): a pack that
		// names any other file is not writing it anywhere.
		rest, ok := strings.CutPrefix(f.Rel, oldID+"/")
		if r.to != agentstore.ClaudeCode || !ok {
			r.opts.Warn(fmt.Sprintf("%s: not a file of a %s session: not restored", f.Rel, r.to))
			continue
		}
		rel := r.id + "/" + rest
		outs = append(outs, output{path: filepath.Join(root, filepath.FromSlash(rel)), fill: r.edited(f.Ref, f.Rel, oldID, nil)})
	}
	var provider *string
	if r.to == agentstore.Codex {
		provider = &res.Provider
	}
	out := output{path: file, fill: r.edited(main.Ref, main.Rel, oldID, provider)}
	if r.to == agentstore.Gemini {
		out.stamp = geminiStamp(name)
		if strings.HasSuffix(name, ".json") {
			out.fill = r.editedDoc(main.Ref, main.Rel, oldID, r.now)
		} else {
			out.fill = r.touched(out.fill)
		}
	}
	return append(outs, out), nil
}

// touched is fill followed by the record that says the session was used
// now (Gemini CLI's lastUpdated: stamped.go).
func (r *restorer) touched(fill func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		if err := fill(w); err != nil {
			return err
		}
		_, err := w.Write(agentstore.GeminiTouch(r.now))
		return err
	}
}

// maxEditLine is the longest line an exact restore edits; a longer one
// is written as recorded, with a warning.
const maxEditLine = 16 << 20

// edited is a fill that copies object h, a session file named rel, with
// the lines edited for the target. provider, when set, receives the
// model provider of a Codex rollout's session_meta.
func (r *restorer) edited(h store.Hash, rel, oldID string, provider *string) func(io.Writer) error {
	if !strings.HasSuffix(rel, ".jsonl") {
		return copyObject(r.st, h)
	}
	return func(w io.Writer) error {
		obj, err := r.st.Open(h)
		if err != nil {
			return err
		}
		defer obj.Close()
		edit := r.lineEditor(oldID, provider)
		br := bufio.NewReaderSize(obj, 256<<10)
		for n := 1; ; n++ {
			line, long, err := readLine(br, w)
			if long {
				r.opts.Warn(fmt.Sprintf("%s line %d is longer than %d MiB: written as recorded", rel, n, maxEditLine>>20))
			} else if len(line) > 0 {
				if _, werr := w.Write(edit(line)); werr != nil {
					return werr
				}
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

// readLine returns the next line of br with its newline; a line longer
// than maxEditLine is copied to w as it comes instead (long).
func readLine(br *bufio.Reader, w io.Writer) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			line = append(line, chunk...)
			if len(line) > maxEditLine {
				if _, werr := w.Write(line); werr != nil {
					return nil, true, werr
				}
				line, long = nil, true
			}
		} else if _, werr := w.Write(chunk); werr != nil {
			return nil, true, werr
		}
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
}

// lineEditor is the edit of one line for the target agent.
func (r *restorer) lineEditor(oldID string, provider *string) func([]byte) []byte {
	cwd, newID := r.opts.Cwd, r.id
	switch r.to {
	case agentstore.ClaudeCode:
		return func(l []byte) []byte {
			l, _ = setString(l, cwd, "cwd")
			if newID != oldID {
				l, _ = setString(l, newID, "sessionId")
			}
			return l
		}
	case agentstore.Codex:
		var oldCwd string
		return func(l []byte) []byte {
			typ, _ := stringAt(l, "type")
			switch typ {
			case "session_meta":
				oldCwd, _ = stringAt(l, "payload", "cwd")
				if provider != nil {
					*provider, _ = stringAt(l, "payload", "model_provider")
				}
				l, _ = setString(l, cwd, "payload", "cwd")
				l = replaceStrings(l, oldCwd, cwd, "payload", "runtime_workspace_roots")
				if newID != oldID {
					l, _ = setString(l, newID, "payload", "id")
					l, _ = setString(l, newID, "payload", "session_id")
				}
			case "turn_context":
				l, _ = setString(l, cwd, "payload", "cwd")
			case "response_item":
				if oldCwd != "" && oldCwd != cwd {
					l = replaceInStrings(l, "<cwd>", oldCwd, "</cwd>", cwd)
					l = replaceInStrings(l, "<root>", oldCwd, "</root>", cwd)
				}
			}
			return l
		}
	}
	first := true
	return func(l []byte) []byte {
		if first {
			first = false
			l, _ = setString(l, agentstore.GeminiProjectHash(cwd), "projectHash")
			if newID != oldID {
				l, _ = setString(l, newID, "sessionId")
			}
		}
		return l
	}
}
