package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	hx := strings.Repeat("ab", 32)
	tests := []struct {
		path string
		kind EntryKind
		ref  string
	}{
		{"objects/ab/" + hx[2:], KindObject, ""},
		{"objects/AB/" + hx[2:], KindStray, ""},
		{"objects/ab/" + strings.ToUpper(hx[2:]), KindStray, ""},
		{"objects/ab/" + hx[3:], KindStray, ""},
		{"objects/ab/" + hx[2:] + "/x", KindStray, ""},
		{"objects/" + hx, KindStray, ""},
		{"objects/abc/" + hx[3:], KindStray, ""},
		{"objects/ab/.tmp-1", KindTemp, ""},
		{"objects", KindStray, ""},
		{"packs/" + hx, KindIndex, ""},
		{"packs/" + hx[1:], KindStray, ""},
		{"packs/.tmp-123", KindTemp, ""},
		{"packs/sub/" + hx, KindStray, ""},
		{"objects/packed/" + hx + ".pack", KindPackfile, ""},
		{"objects/packed/" + hx + ".idx", KindPackfile, ""},
		{"objects/packed/" + hx, KindStray, ""},
		{"objects/packed/x.idx", KindStray, ""},
		{"objects/packed/sub/" + hx + ".idx", KindStray, ""},
		{"refs/latest", KindRef, "latest"},
		{"refs/tags/v1.0", KindRef, "v1.0"},
		{"refs/tags/latest", KindStray, ""},
		{"refs/tags/-bad", KindStray, ""},
		{"refs/tags/.tmp-9", KindTemp, ""},
		{"refs/.tmp-9", KindTemp, ""},
		{"refs/heads", KindStray, ""},
		{"refs/tags/a/b", KindStray, ""},
		{"attestations/" + hx + "/" + hx, KindAttest, ""},
		{"attestations/" + hx + "/.tmp-1", KindTemp, ""},
		{"attestations/" + hx, KindStray, ""},
		{"attestations/" + hx + "/x", KindStray, ""},
		{"attestations/x/" + hx, KindStray, ""},
		{"tmp/obj-123", KindTemp, ""},
		{"tmp/sub/x", KindStray, ""},
		{"drafts/run.json", KindDraft, ""},
		{"drafts/x/.tmp-1", KindTemp, ""},
		{"config.json", KindConfig, ""},
		{".tmp-1", KindTemp, ""},
		{"notes.txt", KindOther, ""},
		{"extra/deep/file", KindOther, ""},
	}
	for _, tt := range tests {
		kind, h, ref := Classify(tt.path)
		if kind != tt.kind || ref != tt.ref {
			t.Errorf("Classify(%q) = %v %q, want %v %q", tt.path, kind, ref, tt.kind, tt.ref)
		}
		if (kind == KindObject || kind == KindIndex || kind == KindAttest || kind == KindPackfile) && h.Hex() != hx {
			t.Errorf("Classify(%q) hash = %s", tt.path, h.Hex())
		}
	}
}

func TestWalkNeverFollowsSymlinks(t *testing.T) {
	st := newTestStore(t)
	b := st.NewBatch()
	h, err := b.PutBytes([]byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := st.Root()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(root, "objects", "zz")))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "refs", "latest")))
	hx := strings.Repeat("cd", 32)
	must(os.MkdirAll(filepath.Join(root, "objects", "cd", hx[2:], "inner"), 0o755))
	must(os.WriteFile(filepath.Join(root, "objects", "cd", hx[2:], "inner", "f"), nil, 0o644))

	got := map[string]Entry{}
	must(st.Walk(func(e Entry) error {
		got[e.Path] = e
		return nil
	}))
	if e, ok := got["objects/"+h.Hex()[:2]+"/"+h.Hex()[2:]]; !ok || e.Kind != KindObject || !e.Regular() || e.Hash != h {
		t.Errorf("object entry = %+v", e)
	}
	if e := got["objects/zz"]; e.Type&fs.ModeSymlink == 0 || e.Kind != KindStray {
		t.Errorf("symlinked directory entry = %+v", e)
	}
	if _, ok := got["objects/zz/secret"]; ok {
		t.Error("the walk followed a symlinked directory")
	}
	if e := got["refs/latest"]; e.Type&fs.ModeSymlink == 0 || e.Kind != KindRef {
		t.Errorf("symlinked ref entry = %+v", e)
	}
	if e := got["objects/cd/"+hx[2:]]; !e.Type.IsDir() || e.Kind != KindObject {
		t.Errorf("directory where an object belongs = %+v", e)
	}
	if e := got["objects/cd/"+hx[2:]+"/inner/f"]; e.Kind != KindStray {
		t.Errorf("file inside it = %+v", e)
	}
	for p, e := range got {
		if e.Type.IsDir() && e.Kind != KindObject && e.Kind != KindStray {
			t.Errorf("layout directory %s reported: %+v", p, e)
		}
	}
}

func TestRemoveTempRefusesAnythingElse(t *testing.T) {
	st := newTestStore(t)
	root := st.Root()
	if err := os.WriteFile(filepath.Join(root, "tmp", "obj-1"), nil, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveTemp("tmp/obj-1"); err != nil {
		t.Fatalf("RemoveTemp(tmp/obj-1) = %v", err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "tmp", "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"config.json", "refs/latest", "tmp/../config.json", "/etc/passwd", "tmp/link", "objects/ab/" + strings.Repeat("0", 62)} {
		if err := st.RemoveTemp(p); err == nil {
			t.Errorf("RemoveTemp(%q) succeeded", p)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "tmp", "link")); err != nil {
		t.Errorf("the symlink was removed: %v", err)
	}
}
