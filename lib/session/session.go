// Package session takes coding agents' sessions out of their own stores
// into packs (Capture, ctx capture) and puts a pack back into an agent's
// store so that the agent itself resumes it (Restore, ctx restore).
//
// A captured pack is the session converted as ctx convert converts it,
// with the session's own files beside the steps as inputs, byte for byte
// (Files): restoring into the agent it came from writes those bytes back
// with only the working directory changed. Where the agent keeps what, and
// its rules, is lib/agentstore's; this package never guesses a path.
package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// FilePrefix starts the name of every input that is one of the session's
// own files: .ctx-session/AGENT/NAME, NAME the file's name in the agent's
// folder (a Claude Code session's ID.jsonl and ID/subagents/agent-*.jsonl;
// a Codex rollout's file name; a Gemini CLI session's file name).
const FilePrefix = ".ctx-session/"

// metaKey is the input metadata that marks a session file.
const metaKey = "agent_session"

// fileMeta is what a session file's input metadata says.
type fileMeta struct {
	Agent string `json:"agent"`
	ID    string `json:"id"`
	// Main marks the session file itself (the others are its
	// companions: sub-agents' transcripts and their metadata).
	Main bool `json:"main,omitempty"`
}

// inputName is the pack's name of the session file rel of agent.
func inputName(agent, rel string) string { return FilePrefix + agent + "/" + rel }

// Tag is the tag that names the latest capture of agent's session id:
// AGENT.ID. (A "/" would make the name read as a file by the verbs that
// take files, and the agents' names hold no ".".) An id that cannot be
// part of a tag name (a character outside [A-Za-z0-9._-], or too long)
// gets a derived one (DerivedTag).
func Tag(agent, id string) string {
	if t := agent + "." + id; tagFits(t) {
		return t
	}
	return derivedTag(agent, id)
}

// branchTag names the latest capture of the branch n (2, 3, ...) of a
// session: a session continued from an earlier capture elsewhere, which
// does not extend what Tag names (docs/RESTORE.md, "Branches").
func branchTag(agent, id string, n int) string { return Tag(agent, id) + "." + strconv.Itoa(n) }

// tagRoom is what a session's tag keeps free for a branch's suffix.
const tagRoom = len(".99999")

// tagFits reports whether t is a tag name with room for a branch's suffix.
func tagFits(t string) bool { return store.CheckTagName(t) == nil && len(t)+tagRoom <= 128 }

// IsDerivedTag reports whether the session id cannot name its tag as it
// is, so that Tag derives one.
func IsDerivedTag(agent, id string) bool { return !tagFits(agent + "." + id) }

// derivedTag is AGENT.CLEAN-HASH: CLEAN the id with each byte outside
// [A-Za-z0-9._-] made "-", cut to fit, HASH the first 12 hex digits of
// the id's SHA-256, so that two ids never share a tag.
func derivedTag(agent, id string) string {
	sum := sha256.Sum256([]byte(id))
	suffix := "-" + hex.EncodeToString(sum[:6])
	clean := []byte(id)
	for i, c := range clean {
		if !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			clean[i] = '-'
		}
	}
	room := 128 - tagRoom - len(agent) - 1 - len(suffix)
	return agent + "." + string(clean[:min(len(clean), room)]) + suffix
}

// File is one of a session's own files kept in a pack.
type File struct {
	Rel  string     // its name in the agent's folder, slash-separated
	Ref  store.Hash // its bytes
	Size int64
	Main bool
}

// Files returns the session files pack m holds: the agent and session id
// they say, and the files, the session file first. ok is false when m
// holds none (a pack made otherwise than by ctx capture).
func Files(m *pack.Manifest) (agent, id string, files []File, ok bool) {
	for _, in := range m.Inputs {
		rel, isSession := strings.CutPrefix(in.Name, FilePrefix)
		if !isSession || len(in.Metadata) == 0 {
			continue
		}
		var md map[string]json.RawMessage
		var fm fileMeta
		if json.Unmarshal(in.Metadata, &md) != nil || json.Unmarshal(md[metaKey], &fm) != nil || fm.Agent == "" {
			continue
		}
		a, r, cut := strings.Cut(rel, "/")
		if !cut || a != fm.Agent || !safeRel(r) {
			continue
		}
		if agent == "" {
			agent, id = fm.Agent, fm.ID
		}
		if fm.Agent != agent || fm.ID != id {
			continue
		}
		f := File{Rel: r, Ref: in.ContentRef, Size: in.Size, Main: fm.Main}
		if f.Main {
			files = append([]File{f}, files...)
		} else {
			files = append(files, f)
		}
	}
	if len(files) == 0 || !files[0].Main {
		return "", "", nil, false
	}
	sortCompanions(files)
	return agent, id, files, true
}

// safeRel reports whether rel names a file below a folder: relative,
// clean, no "..".
func safeRel(rel string) bool {
	return rel != "" && !strings.HasPrefix(rel, "/") && path.Clean(rel) == rel && rel != "." &&
		!strings.HasPrefix(rel, "../") && rel != ".." && !strings.Contains(rel, "\\")
}

// sourceAgent is the agent a run came from: the session files it holds,
// else the format its log was converted from.
func sourceAgent(m *pack.Manifest) (string, bool) {
	if agent, _, _, ok := Files(m); ok {
		return agent, true
	}
	var md struct {
		Format string `json:"source_format"`
	}
	if len(m.Metadata) > 0 && json.Unmarshal(m.Metadata, &md) == nil {
		if a, ok := agentstore.ByFormat(md.Format); ok {
			return a.Name, true
		}
	}
	return "", false
}
