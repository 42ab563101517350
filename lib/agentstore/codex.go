package agentstore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A Codex rollout is sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-UUID.jsonl
// under $CODEX_HOME. codex resume ID finds it by its name alone, in any
// dated folder; the name must have this form ("canonical").
const (
	rolloutPrefix = "rollout-"
	rolloutTime   = "2006-01-02T15-04-05"
	uuidLen       = 36
)

// CodexRolloutName is the canonical file name of the rollout of session id
// started at t (UTC).
func CodexRolloutName(t time.Time, id string) string {
	return rolloutPrefix + t.UTC().Format(rolloutTime) + "-" + id + ".jsonl"
}

// ParseCodexRolloutName returns the start time and session id a rollout's
// file name holds, and whether it is canonical.
func ParseCodexRolloutName(name string) (time.Time, string, bool) {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok || !strings.HasPrefix(base, rolloutPrefix) || len(base) != len(rolloutPrefix)+len(rolloutTime)+1+uuidLen {
		return time.Time{}, "", false
	}
	rest := base[len(rolloutPrefix):]
	t, err := time.Parse(rolloutTime, rest[:len(rolloutTime)])
	id := rest[len(rolloutTime)+1:]
	if err != nil || rest[len(rolloutTime)] != '-' || !IsUUID(id) {
		return time.Time{}, "", false
	}
	return t, id, true
}

// CodexDatedFolder is the folder, relative to $CODEX_HOME, that Codex
// files a rollout started at t in.
func CodexDatedFolder(t time.Time) string {
	t = t.UTC()
	return filepath.Join("sessions", fmt.Sprintf("%04d", t.Year()), fmt.Sprintf("%02d", t.Month()), fmt.Sprintf("%02d", t.Day()))
}

// IsUUID reports whether s is a UUID in its text form, 8-4-4-4-12 hex
// digits (Codex's session ids are).
func IsUUID(s string) bool {
	if len(s) != uuidLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// CodexMeta is what ctx reads of a rollout's first line, session_meta.
type CodexMeta struct {
	ID       string `json:"id"`
	Cwd      string `json:"cwd"`
	Provider string `json:"model_provider"`
}

// maxFirstLine bounds the first line read for a session's metadata
// (Codex's session_meta carries its instructions: tens of KB).
const maxFirstLine = 8 << 20

// FirstLine returns the first line of the file at path, without its
// newline, up to maxFirstLine bytes.
func FirstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == nil || err != bufio.ErrBufferFull {
			break
		}
		if len(line) > maxFirstLine {
			return nil, fmt.Errorf("%s: the first line is longer than %d MiB", path, maxFirstLine>>20)
		}
	}
	return []byte(strings.TrimRight(string(line), "\r\n")), nil
}

// ParseCodexMeta reads the session_meta of a rollout's first line.
func ParseCodexMeta(line []byte) (CodexMeta, error) {
	var rec struct {
		Type    string    `json:"type"`
		Payload CodexMeta `json:"payload"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return CodexMeta{}, fmt.Errorf("the first line is not JSON: %v", err)
	}
	if rec.Type != "session_meta" {
		return CodexMeta{}, fmt.Errorf("the first line is %q, not session_meta", rec.Type)
	}
	return rec.Payload, nil
}

// codexSessions lists the rollouts under sessions/ of the Codex home
// codexDir; with dir set, only those whose session_meta.cwd is dir.
func codexSessions(codexDir, dir string) ([]Session, error) {
	root := filepath.Join(codexDir, "sessions")
	if !isDir(root) {
		return nil, os.ErrNotExist
	}
	var out []Session
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder: its sessions are not found
		}
		if !d.Type().IsRegular() {
			return nil
		}
		_, id, ok := ParseCodexRolloutName(d.Name())
		if !ok {
			return nil
		}
		s := Session{Agent: Codex, ID: id, Root: filepath.Dir(p), Files: []string{d.Name()}}
		if dir != "" {
			line, err := FirstLine(p)
			if err != nil {
				return nil
			}
			meta, err := ParseCodexMeta(line)
			if err != nil || filepath.Clean(meta.Cwd) != dir {
				return nil
			}
			s.Cwd = meta.Cwd
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// codexBuiltinProviders are the model providers Codex knows without a
// table in config.toml.
func codexBuiltinProviders() []string { return []string{"openai", "ollama", "lmstudio", "oss"} }

// CodexConfig is what ctx reads of $CODEX_HOME/config.toml: the model
// provider it selects and the providers it defines.
type CodexConfig struct {
	Provider  string   // model_provider; "" for Codex's default, openai
	Providers []string // the names of [model_providers.NAME] tables
}

// ReadCodexConfig reads config.toml in the Codex home codexDir (missing:
// an empty configuration). It reads the few keys it needs, line by line:
// a top-level model_provider, and the tables or keys under
// model_providers.
func ReadCodexConfig(codexDir string) (CodexConfig, error) {
	b, err := os.ReadFile(filepath.Join(codexDir, "config.toml"))
	if os.IsNotExist(err) {
		return CodexConfig{}, nil
	}
	if err != nil {
		return CodexConfig{}, err
	}
	return ParseCodexConfig(b), nil
}

// ParseCodexConfig reads the keys ReadCodexConfig needs from the text of
// a config.toml.
func ParseCodexConfig(b []byte) CodexConfig {
	var c CodexConfig
	top := true
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			top = false
			if name, ok := tomlProviderKey(strings.Trim(line, "[] ")); ok {
				c.Providers = append(c.Providers, name)
			}
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		if top && key == "model_provider" {
			c.Provider = strings.Trim(strings.TrimSpace(value), `"'`)
		}
		if name, ok := tomlProviderKey(key); ok && top {
			c.Providers = append(c.Providers, name)
		}
	}
	return c
}

// tomlProviderKey returns NAME of the key model_providers.NAME (quoted or
// not, with anything after it).
func tomlProviderKey(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "model_providers.")
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, `"`) {
		name, _, ok := strings.Cut(rest[1:], `"`)
		return name, ok && name != ""
	}
	name, _, _ := strings.Cut(rest, ".")
	name = strings.TrimSpace(name)
	return name, name != ""
}

// Configures reports whether Codex with this configuration can resume a
// rollout recorded with the model provider name.
func (c CodexConfig) Configures(name string) bool {
	for _, p := range append(codexBuiltinProviders(), c.Providers...) {
		if p == name {
			return true
		}
	}
	return false
}

// Selected is the provider Codex uses for a new session: model_provider,
// or openai.
func (c CodexConfig) Selected() string {
	if c.Provider != "" {
		return c.Provider
	}
	return "openai"
}
