package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// SidecarSuffix is appended to an artifact's file name to name its sidecar.
const SidecarSuffix = ".ctx.json"

// Sidecar is the provenance record written beside an artifact.
type Sidecar struct {
	ContextPack string   `json:"context_pack"` // "sha256:<hex>" of the pack
	Output      string   `json:"output"`       // the output's name in the pack
	ContentRef  string   `json:"content_ref"`  // the output's recorded hash
	Inputs      []string `json:"inputs"`       // refs of the pack's inputs
	Tools       []string `json:"tools"`        // tools the run called, in order of first use
	Confidence  string   `json:"confidence,omitempty"`
	Notes       string   `json:"notes,omitempty"`
}

// NewSidecar describes output i of pack m (whose Hash is set).
func NewSidecar(m *pack.Manifest, i int) Sidecar {
	o := m.Outputs[i]
	sc := Sidecar{
		ContextPack: m.Hash,
		Output:      o.Name,
		ContentRef:  o.ContentRef.String(),
		Inputs:      []string{},
		Tools:       []string{},
		Confidence:  o.Confidence,
		Notes:       o.Notes,
	}
	for _, in := range m.Inputs {
		sc.Inputs = append(sc.Inputs, in.ContentRef.String())
	}
	seen := map[string]bool{}
	for _, s := range m.Steps {
		if s.Type == "tool_call" && !seen[s.Tool] {
			seen[s.Tool] = true
			sc.Tools = append(sc.Tools, s.Tool)
		}
	}
	return sc
}

// SidecarPath returns where the sidecar of artifact goes.
func SidecarPath(artifact string) string { return artifact + SidecarSuffix }

// ReadSidecar reads the sidecar of artifact. A missing sidecar gives an error
// matching fs.ErrNotExist; a file that is not a ctx sidecar gives
// ErrNotSidecar.
func ReadSidecar(artifact string) (Sidecar, error) {
	var sc Sidecar
	b, err := os.ReadFile(SidecarPath(artifact))
	if err != nil {
		return sc, err
	}
	if err := json.Unmarshal(b, &sc); err != nil || sc.ContextPack == "" {
		return sc, fmt.Errorf("%s: %w", SidecarPath(artifact), ErrNotSidecar)
	}
	return sc, nil
}

// ErrNotSidecar says a file at a sidecar's path is not a ctx sidecar.
var ErrNotSidecar = errors.New("not a ctx sidecar")

// WriteSidecar writes the sidecar of output i of pack m beside the artifact
// file, atomically. It writes nothing, and says why, when the artifact's
// bytes are not the pack's recorded output or when a file that is not a ctx
// sidecar already sits at the sidecar's path.
func WriteSidecar(m *pack.Manifest, i int, artifact string) error {
	want := m.Outputs[i].ContentRef
	got, err := hashFile(artifact)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%s differs from output %q of the pack (%s, not %s); no sidecar written", artifact, m.Outputs[i].Name, got, want)
	}
	path := SidecarPath(artifact)
	if _, err := ReadSidecar(artifact); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if errors.Is(err, ErrNotSidecar) {
			return fmt.Errorf("%s exists and is not a ctx sidecar; left as it is", path)
		}
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(NewSidecar(m, i)); err != nil {
		return err
	}
	return writeAtomic(path, buf.Bytes())
}

func hashFile(path string) (store.Hash, error) {
	f, err := os.Open(path)
	if err != nil {
		return store.Hash{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return store.Hash{}, err
	}
	var out store.Hash
	h.Sum(out[:0])
	return out, nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader never sees half a sidecar.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".ctx-sidecar-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
