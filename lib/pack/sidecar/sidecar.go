// Package sidecar is the provenance sidecar of contract section 8: the
// record written beside an artifact (NAME.ctx.json) that names the pack
// and the output it came from. It defines the format, reads it, writes
// it beside an artifact, and hashes the artifact it vouches for. Every
// verb that writes or reads sidecars uses it: ctx pack, checkout, show,
// verify, attest.
//
// It never checks signatures: the attestations a sidecar lists are refs
// to the store's objects, which lib/attest checks.
package sidecar

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
	"slices"
	"strings"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Suffix is appended to an artifact's file name to name its sidecar.
const Suffix = ".ctx.json"

// MaxSize bounds what is read as a sidecar. A real one lists the
// pack's input refs and tools, a few KiB even for large runs; anything
// bigger is some other file, and is not read whole into memory.
const MaxSize = 16 << 20

// Sidecar is the provenance record written beside an artifact.
type Sidecar struct {
	ContextPack string   `json:"context_pack"` // "sha256:<hex>" of the pack
	Output      string   `json:"output"`       // the output's name in the pack
	ContentRef  string   `json:"content_ref"`  // the output's recorded hash
	Inputs      []string `json:"inputs"`       // refs of the pack's inputs, each once
	Tools       []string `json:"tools"`        // tools the run called, in order of first use
	Confidence  string   `json:"confidence,omitempty"`
	Notes       string   `json:"notes,omitempty"`
	// Attestations are the refs of signed attestations of the pack (DSSE
	// envelopes in the store), added by ctx attest and ctx pack --sign.
	Attestations []string `json:"attestations,omitempty"`
}

// ErrNotSidecar is matched (errors.Is) by the error for a file at a
// sidecar's path that is not a ctx sidecar.
var ErrNotSidecar = errors.New("not a ctx sidecar")

// NotSidecarError says the file at a sidecar's path is not a ctx sidecar,
// and why.
type NotSidecarError struct {
	Path   string
	Reason string
}

func (e *NotSidecarError) Error() string {
	return fmt.Sprintf("%s is not a ctx sidecar: %s", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrNotSidecar) true.
func (e *NotSidecarError) Is(target error) bool { return target == ErrNotSidecar }

// ErrArtifactDiffers is matched (errors.Is) by the warning Write
// returns when the file on disk is not the pack's recorded output.
var ErrArtifactDiffers = errors.New("the artifact differs from the pack's output")

// New describes output i of pack m (whose Hash is set).
func New(m *pack.Manifest, i int) Sidecar {
	o := m.Outputs[i]
	return Sidecar{
		ContextPack: m.Hash,
		Output:      o.Name,
		ContentRef:  o.ContentRef.String(),
		Inputs:      InputRefs(m),
		Tools:       m.Tools(),
		Confidence:  o.Confidence,
		Notes:       o.Notes,
	}
}

// InputRefs lists the refs of m's inputs in order, each once: two inputs
// with the same content are one thing the output drew on.
func InputRefs(m *pack.Manifest) []string {
	out := make([]string, 0, len(m.Inputs))
	seen := map[store.Hash]bool{}
	for _, in := range m.Inputs {
		if !seen[in.ContentRef] {
			seen[in.ContentRef] = true
			out = append(out, in.ContentRef.String())
		}
	}
	return out
}

// Path returns where the sidecar of artifact goes.
func Path(artifact string) string { return artifact + Suffix }

// Encode returns the bytes of a sidecar file: indented JSON with a
// final newline, keys in a fixed order, so the same pack always writes the
// same bytes and a sidecar diffs well under version control.
func Encode(sc Sidecar) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Parse decodes the bytes of a sidecar file. It accepts the fields of
// the contract; output and content_ref may be missing (sidecars in the
// seed's shape have neither). context_pack must be a full hash,
// sha256:<hex> or ctx://<hex>, and is returned as sha256:<hex>, as is
// content_ref. Unknown fields are ignored, so later versions can add some.
// A failure is a *NotSidecarError with an empty Path.
func Parse(b []byte) (Sidecar, error) {
	var sc Sidecar
	fail := func(format string, args ...any) (Sidecar, error) {
		return Sidecar{}, &NotSidecarError{Reason: fmt.Sprintf(format, args...)}
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return fail("not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("unexpected data after the JSON object")
	}
	str := func(k string, required bool) (string, bool) {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			return "", !required
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	list := func(k string) ([]string, bool) {
		v, ok := raw[k]
		if !ok || string(v) == "null" {
			return nil, true
		}
		var l []string
		if json.Unmarshal(v, &l) != nil {
			return nil, false
		}
		return l, true
	}
	cp, ok := str("context_pack", true)
	if !ok {
		return fail("no context_pack string")
	}
	h, err := parseFullHash(cp)
	if err != nil {
		return fail("context_pack: %v", err)
	}
	sc.ContextPack = h.String()
	if sc.Output, ok = str("output", false); !ok {
		return fail("output must be a string")
	}
	ref, ok := str("content_ref", false)
	if !ok {
		return fail("content_ref must be a string")
	}
	if ref != "" {
		h, err := parseFullHash(ref)
		if err != nil {
			return fail("content_ref: %v", err)
		}
		sc.ContentRef = h.String()
	}
	if sc.Inputs, ok = list("inputs"); !ok {
		return fail("inputs must be an array of strings")
	}
	if sc.Tools, ok = list("tools"); !ok {
		return fail("tools must be an array of strings")
	}
	if sc.Confidence, ok = str("confidence", false); !ok {
		return fail("confidence must be a string")
	}
	if sc.Notes, ok = str("notes", false); !ok {
		return fail("notes must be a string")
	}
	if sc.Attestations, ok = list("attestations"); !ok {
		return fail("attestations must be an array of strings")
	}
	for i, a := range sc.Attestations {
		h, err := parseFullHash(a)
		if err != nil {
			return fail("attestations[%d]: %v", i, err)
		}
		sc.Attestations[i] = h.String()
	}
	return sc, nil
}

// parseFullHash accepts the two spellings of a whole hash that are
// unambiguous without a store: sha256:<hex> and ctx://<hex>. A sidecar never
// names a pack by prefix or ref, which could come to mean another pack.
func parseFullHash(s string) (store.Hash, error) {
	if hx, ok := strings.CutPrefix(s, "ctx://"); ok {
		h, err := store.ParseHex(hx)
		if err != nil {
			return h, fmt.Errorf("%q is not a sha256:<hex> reference", s)
		}
		return h, nil
	}
	return store.ParseRef(s)
}

// Read reads the sidecar of artifact. A missing sidecar gives an error
// matching fs.ErrNotExist; a file there that is not a ctx sidecar (not
// parseable, a directory, a symlink) gives a *NotSidecarError.
func Read(artifact string) (Sidecar, error) {
	sc, _, err := ReadFile(Path(artifact))
	return sc, err
}

// ReadFile reads and parses the sidecar at path and returns its bytes
// too. The file must be a regular file reached without following a symlink
// at its own name: a link there was put by someone else, and ctx neither
// reads through it nor replaces it.
func ReadFile(path string) (Sidecar, []byte, error) {
	notSidecar := func(reason string) (Sidecar, []byte, error) {
		return Sidecar{}, nil, &NotSidecarError{Path: path, Reason: reason}
	}
	// Opened without following a link, then checked with the open file's
	// own stat: one open and one stat per sidecar, which counts in a walk
	// over thousands.
	f, fi, err := open(path, syscall.O_NOFOLLOW)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return notSidecar("it is a symlink, which ctx never follows or replaces")
	case errors.Is(err, syscall.ENOTDIR):
		return Sidecar{}, nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	case err != nil:
		return Sidecar{}, nil, err
	}
	defer f.Close()
	switch {
	case fi.IsDir():
		return notSidecar("it is a directory")
	case !fi.Mode().IsRegular():
		return notSidecar("it is not a regular file")
	case fi.Size() > MaxSize:
		return notSidecar(fmt.Sprintf("it is larger than %d MiB", MaxSize>>20))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return Sidecar{}, nil, err
	}
	if len(b) > MaxSize {
		return notSidecar(fmt.Sprintf("it is larger than %d MiB", MaxSize>>20))
	}
	sc, err := Parse(b)
	if err != nil {
		var ns *NotSidecarError
		if errors.As(err, &ns) {
			ns.Path = path
		}
		return Sidecar{}, nil, err
	}
	return sc, b, nil
}

// Write writes the sidecar of output i of pack m (published: its Hash
// is set) beside the artifact file, atomically: a temporary file in the same
// directory, then a rename, so a reader never sees half a sidecar.
//
// A non-nil error is a warning for the caller to print; the pack is sound
// either way. It says why nothing was written (a file that is not a ctx
// sidecar, a symlink or a directory at the sidecar's path is left as it is),
// or, matching ErrArtifactDiffers, that the sidecar was written but the
// artifact's bytes are not the pack's recorded output, so ctx verify will
// call it modified. One exception keeps the better record: when the artifact
// differs from this pack's output and the sidecar already there vouches for
// the artifact's current bytes, that sidecar is kept.
func Write(m *pack.Manifest, i int, artifact string) error {
	if i < 0 || i >= len(m.Outputs) {
		return fmt.Errorf("the pack has no output %d", i)
	}
	if _, err := store.ParseRef(m.Hash); err != nil {
		return fmt.Errorf("%s: the pack has no hash yet; sidecars are written once it is stored", Path(artifact))
	}
	o := m.Outputs[i]
	got, err := HashFile(artifact)
	if err != nil {
		return fmt.Errorf("cannot read %s: %v; no sidecar written", artifact, text.UnwrapPath(err))
	}
	path := Path(artifact)
	sc := New(m, i)
	differs := &DiffersError{Artifact: artifact, Output: o.Name, Recorded: o.ContentRef, Actual: got}
	old, oldBytes, readErr := ReadFile(path)
	if readErr == nil && old.ContextPack == sc.ContextPack && old.Output == sc.Output {
		sc.Attestations = old.Attestations // the pack's signatures stay with it
	}
	data, err := Encode(sc)
	if err != nil {
		return err
	}
	switch err := readErr; {
	case err == nil:
		if bytes.Equal(oldBytes, data) {
			if got != o.ContentRef {
				return differs
			}
			return nil // already there: leave the file, and its mtime, alone
		}
		if got != o.ContentRef && old.ContentRef == got.String() {
			return fmt.Errorf("%w; %s, from pack %s, matches the file and was left as it is", differs.short(), path, old.ContextPack)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return fmt.Errorf("%v; left as it is, no sidecar written", err)
	}
	if err := store.WriteFileAtomic(path, data, 0o644, ".ctx-sidecar-"); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, text.UnwrapPath(err))
	}
	if got != o.ContentRef {
		return differs
	}
	return nil
}

// AddAttestation adds att, a signed attestation of pack pk, to the sidecar of
// artifact, if that sidecar names pack pk; changed says whether the file was
// rewritten. A sidecar of another pack, or one that lists att already, is
// left alone, as is anything at the sidecar's path that is not a ctx
// sidecar (no file, a symlink, some other file): there is nothing to add
// to. The sidecar is replaced atomically.
func AddAttestation(artifact string, pk, att store.Hash) (changed bool, err error) {
	path := Path(artifact)
	sc, _, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNotSidecar) {
		return false, nil
	}
	if err != nil || sc.ContextPack != pk.String() || slices.Contains(sc.Attestations, att.String()) {
		return false, err
	}
	sc.Attestations = append(sc.Attestations, att.String())
	data, err := Encode(sc)
	if err != nil {
		return false, err
	}
	if err := store.WriteFileAtomic(path, data, 0o644, ".ctx-sidecar-"); err != nil {
		return false, fmt.Errorf("cannot write %s: %v", path, text.UnwrapPath(err))
	}
	return true, nil
}

// DiffersError says an artifact's bytes are not the output the pack
// recorded under its name.
type DiffersError struct {
	Artifact string
	Output   string
	Recorded store.Hash
	Actual   store.Hash
}

func (e *DiffersError) short() error {
	return fmt.Errorf("%s differs from output %q of the pack (the file is %s, the pack recorded %s)", e.Artifact, e.Output, e.Actual, e.Recorded)
}

func (e *DiffersError) Error() string {
	return e.short().Error() + "; its sidecar names the pack's content, so 'ctx verify' reports the file modified"
}

// Is makes errors.Is(err, ErrArtifactDiffers) true.
func (e *DiffersError) Is(target error) bool { return target == ErrArtifactDiffers }

// open opens path for reading, whatever it is, and stats the open file.
// O_NONBLOCK keeps a FIFO planted at the path from blocking the open; it
// changes nothing for a regular file.
func open(path string, flags int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// openRegular is open for a path that must be a regular file.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, fi, err := open(path, 0)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory"
		}
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: NotRegularError(what)}
	}
	return f, fi, nil
}

// NotRegularError is the error of a path that is not a regular file.
type NotRegularError string

func (e NotRegularError) Error() string { return "it is " + string(e) }

// HashFile returns the SHA-256 of the regular file at path (symlinks
// followed, as sha256sum does), read in a stream.
func HashFile(path string) (store.Hash, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return store.Hash{}, err
	}
	defer f.Close()
	h := sha256.New()
	// A buffer the size of the file, up to 256 KiB: most artifacts are small,
	// and a walk over thousands of them should not allocate 256 KiB each.
	buf := make([]byte, min(max(fi.Size()+1, 512), 256<<10))
	// The struct hides File.WriteTo, which would copy through a small buffer.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
		return store.Hash{}, err
	}
	var out store.Hash
	h.Sum(out[:0])
	return out, nil
}

// WriteAll writes the sidecar of each artifact ctx pack found
// (Write), naming each file relative to the current directory as
// git names files; what goes wrong with one is passed to warn, and the
// others are still written.
func WriteAll(m *pack.Manifest, artifacts []pack.Artifact, warn func(string)) {
	EachArtifact(artifacts, warn, func(a pack.Artifact, path string) error {
		return Write(m, a.Output, path)
	})
}

// EachArtifact calls f with each artifact ctx pack found and its path
// relative to the current directory, as git names files; f's error is
// passed to warn, naming the output, and the others are still done.
func EachArtifact(artifacts []pack.Artifact, warn func(string), f func(a pack.Artifact, path string) error) {
	wd, _ := os.Getwd()
	for _, a := range artifacts {
		path := a.Path
		if rel, err := filepath.Rel(wd, path); wd != "" && err == nil {
			path = rel
		}
		if err := f(a, path); err != nil {
			warn(fmt.Sprintf("outputs[%d]: %v", a.Output, err))
		}
	}
}

// Choice says which of the artifacts ctx pack found get a sidecar.
type Choice struct {
	Asked bool // --sidecars: every artifact, whatever the log
	Piped bool // the log came from standard input
}

// Choose keeps the artifacts that get a sidecar. A log from a pipe (ctx
// convert SESSION | ctx pack -) describes files of another machine or
// time, found here only by their names relative to the current directory:
// a file there is the run's output only if it holds the recorded bytes. A
// converted transcript (its metadata names a source_format) gets none at
// all unless asked: its outputs were written elsewhere, long ago. Each
// output left out is passed to note.
func (c Choice) Choose(m *pack.Manifest, artifacts []pack.Artifact, note func(string)) []pack.Artifact {
	if c.Asked || len(artifacts) == 0 {
		return artifacts
	}
	if format := sourceFormat(m.Metadata); format != "" {
		note(fmt.Sprintf("%s of this %s transcript %s here; no sidecar written beside a file a converted run did not write on this machine (--sidecars writes them)",
			text.Plural(len(artifacts), "output"), format, pluralVerb(len(artifacts))))
		return nil
	}
	if !c.Piped {
		return artifacts
	}
	out := artifacts[:0]
	for _, a := range artifacts {
		o := m.Outputs[a.Output]
		if got, err := HashFile(a.Path); err != nil || got != o.ContentRef {
			note(fmt.Sprintf("outputs[%d]: %s is not the file the run recorded; no sidecar written (the log came from standard input; --sidecars writes it anyway)", a.Output, o.Name))
			continue
		}
		out = append(out, a)
	}
	return out
}

// sourceFormat is the metadata's source_format, which ctx convert sets to
// the transcript's format.
func sourceFormat(meta json.RawMessage) string {
	var m struct {
		SourceFormat string `json:"source_format"`
	}
	if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
		return ""
	}
	return m.SourceFormat
}

func pluralVerb(n int) string {
	if n == 1 {
		return "has a file of its name"
	}
	return "have files of their names"
}
