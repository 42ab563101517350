package agentstore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The parsers of what the agents write: a rollout's file name and its
// session_meta, config.toml, a .json session's metadata. None may panic
// on any input, and each agrees with what it was given.

func FuzzParseCodexRolloutName(f *testing.F) {
	f.Add("rollout-2026-11-28T12-17-46-01a22217-10c2-7c91-aaf1-4dd0fbb90fcb.jsonl")
	f.Add("rollout-foo.jsonl")
	f.Add("rollout-2026-02-30T25-61-61-01a22217-10c2-7c91-aaf1-4dd0fbb90fcb.jsonl")
	f.Fuzz(func(t *testing.T, name string) {
		at, id, ok := ParseCodexRolloutName(name)
		if !ok {
			return
		}
		if !IsUUID(id) || CodexRolloutName(at, id) != name {
			t.Errorf("ParseCodexRolloutName(%q) = %v, %q: not the name back", name, at, id)
		}
	})
}

func FuzzParseCodexMeta(f *testing.F) {
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w","model_provider":"stub"}}`))
	f.Add([]byte(`{"type":"response_item"}`))
	f.Add([]byte(`{"type":"session_meta","payload":[]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := ParseCodexMeta(line)
		if err != nil {
			return
		}
		var rec struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Type != "session_meta" {
			t.Errorf("ParseCodexMeta accepted %q, not a session_meta line", line)
		}
		_ = m
	})
}

func FuzzParseCodexConfig(f *testing.F) {
	f.Add([]byte("model_provider = \"stub\"\n[model_providers.stub]\nname = \"s\"\n"))
	f.Add([]byte("[model_providers.\"a.b\"]\nmodel_providers.c.x = 1\n[x]\nmodel_provider='y'\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := ParseCodexConfig(b)
		for _, p := range c.Providers {
			if p == "" || !bytes.Contains(b, []byte(p)) {
				t.Errorf("ParseCodexConfig(%q) found provider %q, which the text does not hold", b, p)
			}
		}
		if c.Provider != "" && !bytes.Contains(b, []byte(c.Provider)) {
			t.Errorf("ParseCodexConfig(%q) selected %q, which the text does not hold", b, c.Provider)
		}
	})
}

func FuzzParseGeminiMetaDoc(f *testing.F) {
	f.Add(`{"sessionId":"s","projectHash":"h","startTime":"t","messages":[{"a":[1,{"b":2}]}],"kind":"main"}`)
	f.Add(`{"messages":[`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, doc string) {
		m, err := ParseGeminiMetaDoc(strings.NewReader(doc))
		if err != nil || m.SessionID == "" {
			return
		}
		var top map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &top) == nil {
			var id string
			if json.Unmarshal(top["sessionId"], &id) != nil || id != m.SessionID {
				t.Errorf("ParseGeminiMetaDoc(%q) gave sessionId %q, the document %q", doc, m.SessionID, top["sessionId"])
			}
		}
	})
}

func FuzzParseGeminiProjects(f *testing.F) {
	f.Add([]byte(`{"projects": {"/a": "a"}, "version": 2}`))
	f.Add([]byte(`{"projects": null}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"projects": {"/a": 1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseGeminiProjects(b)
		if err != nil {
			return
		}
		back, err := ParseGeminiProjects(p.Encode())
		if err != nil {
			t.Fatalf("ParseGeminiProjects(%q) wrote %q, which does not read back: %v", b, p.Encode(), err)
		}
		if !bytes.Equal(back.Encode(), p.Encode()) {
			t.Errorf("projects.json %q written twice differs: %q, %q", b, p.Encode(), back.Encode())
		}
	})
}

func FuzzIsGeminiTouch(f *testing.F) {
	f.Add([]byte(`{"$set":{"lastUpdated":"2026-11-28T12:18:01.077Z"}}`))
	f.Add([]byte(`{"$set":{"lastUpdated":"x","summary":"s"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !IsGeminiTouch(line) {
			return
		}
		var rec struct {
			Set struct {
				LastUpdated *string `json:"lastUpdated"`
			} `json:"$set"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Set.LastUpdated == nil {
			t.Errorf("IsGeminiTouch(%q): not a $set of lastUpdated", line)
		}
	})
}
