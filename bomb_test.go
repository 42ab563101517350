package ctx_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeBomb writes head, then n MiB of fill, then tail through w.
func writeBomb(t *testing.T, w io.Writer, head string, fill byte, n int, tail string) {
	t.Helper()
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	io.WriteString(w, head)
	for i := 0; i < n; i++ {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	io.WriteString(w, tail)
}

// TestDecompressionBombs: a few MiB of gzip or zip that expand to 512 MiB
// (a JSON document, one NDJSON line, a member of an Inspect .eval) stop
// ctx convert with exit 2 naming the cap, by a file or on standard input,
// within 256 MiB of memory. (Before the cap, each took gigabytes.)
func TestDecompressionBombs(t *testing.T) {
	dir := t.TempDir()
	gz := func(name, head string, fill byte, tail string) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
		writeBomb(t, w, head, fill, 512, tail)
		w.Close()
		f.Close()
		return p
	}
	doc := gz("doc.json.gz", `{"messages": [{"role": "user", "content": "`, 'a', `"}]}`)
	line := gz("lines.jsonl.gz", `{"type": "user", "message": {"content": "`, ' ', "\"}}\n")
	evalPath := filepath.Join(dir, "bomb.eval")
	f, err := os.Create(evalPath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	m, _ := zw.Create("header.json")
	writeBomb(t, m, `{"eval": {"task": "`, 'a', 512, `"}, "status": "success"}`)
	zw.Close()
	f.Close()

	for _, tc := range []struct {
		name, shell, what string
	}{
		{"gzip document", "ctx-convert " + doc, "the gzip stream"},
		{"gzip line", "ctx-convert " + line, "the gzip stream"},
		{"gzip on stdin", "ctx-convert - < " + doc, "the gzip stream"},
		{"zip member", "ctx-convert " + evalPath, "member header.json of the zip archive"},
		{"zip on stdin", "ctx-convert --from inspect < " + evalPath, "member header.json of the zip archive"},
	} {
		cmd := exec.Command("maxrss", "256", "sh", "-c", tc.shell+" > /dev/null; test $? = 2")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		t.Logf("%s: %s", tc.name, strings.TrimSpace(stderr.String()[strings.LastIndex(stderr.String(), "maxrss:"):]))
		if err != nil {
			t.Errorf("%s: %v\n%s", tc.name, err, stderr.String())
		}
		if want := tc.what + " expands to more than 32MiB, the cap on decompressed input"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: stderr does not say %q:\n%s", tc.name, want, stderr.String())
		}
	}
	// The cap is raised with --max-expanded (or CTX_MAX_EXPANDED).
	cmd := exec.Command("ctx-convert", "--max-expanded", "16M", doc)
	cmd.Env = append(os.Environ(), "CTX_MAX_EXPANDED=")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "more than 16MiB") || !strings.Contains(string(out), "--max-expanded 32MiB") {
		t.Errorf("--max-expanded 16M: %s", out)
	}
}

// TestImportHugeManifest: a stream whose pack manifest is 128 MiB is
// refused before the manifest is read (exit 2, naming the pack, its size
// and the limit), within 64 MiB of memory; nothing is imported. (Before
// the limit was lowered to 64 MiB, such a manifest was read whole and
// parsed: gigabytes for one of 250 MB.)
func TestImportHugeManifest(t *testing.T) {
	dir := t.TempDir()
	tarPath := filepath.Join(dir, "huge.tar")
	f, err := os.Create(tarPath)
	if err != nil {
		t.Fatal(err)
	}
	const size = 128 << 20
	head, tail := `{"created":"2026-01-01T00:00:00Z","metadata":"`, `"}`
	sum := sha256.New()
	writeBomb(t, sum, head, 'a', size>>20, tail)
	hx := hex.EncodeToString(sum.Sum(nil))
	tw := tar.NewWriter(f)
	tw.WriteHeader(&tar.Header{Name: "objects/" + hx[:2] + "/" + hx[2:], Mode: 0o444, Size: int64(len(head) + size + len(tail)), Typeflag: tar.TypeReg})
	writeBomb(t, tw, head, 'a', size>>20, tail)
	entry := `{"hash":"sha256:` + hx + `","created":"","model":"","steps":0,"parent":null,"stored":""}` + "\n"
	tw.WriteHeader(&tar.Header{Name: "packs/" + hx, Mode: 0o444, Size: int64(len(entry)), Typeflag: tar.TypeReg})
	io.WriteString(tw, entry)
	tw.Close()
	f.Close()

	st := ctxtest.NewStoreDir(t)
	cmd := exec.Command("maxrss", "64", "sh", "-c", "ctx-import --store "+st+" "+tarPath+"; test $? = 2")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("%v\n%s", err, stderr.String())
	}
	t.Log(strings.TrimSpace(stderr.String()))
	if want := "the manifest of pack sha256:" + hx + " has " + strconv.Itoa(len(head)+size+len(tail)) + " bytes, more than the 64 MiB ctx import reads"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q", want)
	}
	if out := ctxtest.Must(t, "", "ctx-log", "--store", st, "--json"); strings.Contains(out, hx) {
		t.Errorf("the pack was imported: %s", out)
	}
}
