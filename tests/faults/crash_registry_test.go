package faults_test

import (
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/registrytest"
)

// TestPullKilled kills ctx pull with SIGKILL at states of the store while
// it fetches a pack of 300 small objects and two of 2 MiB from the real
// registry, as TestImportKilled does ctx import (killWhileStoring): a
// manifest is never visible without every object it names, and pulling
// again completes with the same hash.
func TestPullKilled(t *testing.T) {
	reg := registrytest.New(t, nil)
	log := ctxtest.WriteLargeRun(t, 300, 2, 2<<20)
	src := ctxtest.MemStoreDir(t)
	want := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pack", "--store", src, "--no-sidecars", log))
	ref := reg.Addr + "/crash/pull:v1"
	ctxtest.Must(t, "", "ctx-push", "--store", src, "--plain-http", want, ref)
	prog, err := exec.LookPath("ctx-pull")
	if err != nil {
		t.Fatal(err)
	}
	const objects = 300 + 2 + 2 + 1 // inputs, prompt, step output, manifest
	killWhileStoring(t, prog, func(st string) []string { return []string{"--store", st, "--plain-http", ref} }, want, objects)
}

// TestPushKilled kills ctx push with SIGKILL while it sends a pack of
// 300 small objects and two of 2 MiB to a fresh registry, at states of
// the registry's storage: the first blob stored, a third, two thirds, all
// of them. The OCI manifest goes last, so whenever the registry has it, it
// has every blob it names; pushing again completes, sending only what is
// missing, and the pack pulls back whole with the same hash.
func TestPushKilled(t *testing.T) {
	log := ctxtest.WriteLargeRun(t, 300, 2, 2<<20)
	src := ctxtest.MemStoreDir(t)
	want := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pack", "--store", src, "--no-sidecars", log))
	prog, err := exec.LookPath("ctx-push")
	if err != nil {
		t.Fatal(err)
	}
	const blobs = 300 + 2 + 2 + 1 // inputs, prompt, step output, config

	points := []struct {
		name string
		n    int
		long bool
	}{
		{"first blob stored", 1, true},
		{"a third stored", blobs / 3, true},
		{"two thirds stored", 2 * blobs / 3, true},
		{"all blobs stored", blobs, false},
	}
	for _, p := range points {
		reg := registrytest.New(t, nil)
		ref := reg.Addr + "/crash/push:v1"
		cmd := exec.Command(prog, "--store", src, "--plain-http", want, ref)
		killed, err := ctxtest.KillAt(t, cmd, src, func(string, int) bool { return registryBlobs(reg.Storage) >= p.n })
		if !killed && err != nil {
			t.Fatalf("kill at %s: ctx push failed on its own: %v", p.name, err)
		}
		stored := registryBlobs(reg.Storage)
		tagged := manifestComplete(t, reg.Addr, "crash/push", "v1")
		t.Logf("kill at %-18s killed=%-5v blobs=%d tagged=%v", p.name+":", killed, stored, tagged)
		if p.long && !killed {
			t.Errorf("kill at %s: the push finished first", p.name)
		}

		out := ctxtest.Must(t, "", prog, "--store", src, "--plain-http", want, ref)
		var res struct {
			Pack     string `json:"pack"`
			Uploaded int    `json:"blobs_uploaded"`
			Skipped  int    `json:"blobs_skipped"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("kill at %s: pushing again printed %q", p.name, out)
		}
		if res.Uploaded+res.Skipped != blobs || killed && !tagged && res.Skipped == 0 && p.n > 1 {
			t.Errorf("kill at %s: pushing again: %s", p.name, out)
		}
		if !manifestComplete(t, reg.Addr, "crash/push", "v1") {
			t.Errorf("kill at %s: after pushing again the registry lacks the manifest or a blob", p.name)
		}
		dst := ctxtest.MemStoreDir(t)
		if got := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pull", "--store", dst, "--plain-http", ref)); got != want {
			t.Errorf("kill at %s: pulled %s, want %s", p.name, got, want)
		}
		if ps := ctxtest.Fsck(t, dst); len(ps) > 0 {
			t.Errorf("kill at %s: the pulled store: %v", p.name, ps)
		}
	}
}

// registryBlobs counts the blobs the registry has stored whole (its
// filesystem storage keeps each as blobs/sha256/ab/<hex>/data); uploads
// under way are elsewhere, in the repository's _uploads.
func registryBlobs(storage string) int {
	root := filepath.Join(storage, "docker", "registry", "v2", "blobs", "sha256")
	n := 0
	dirs, _ := os.ReadDir(root)
	for _, d := range dirs {
		blobs, _ := os.ReadDir(filepath.Join(root, d.Name()))
		n += len(blobs)
	}
	return n
}

// manifestComplete reports whether the registry has the tag and, if it
// does, fails the test unless every blob its manifest names is there.
func manifestComplete(t *testing.T, addr, repo, tag string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://%s/v2/%s/manifests/%s", addr, repo, tag), nil)
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return false
	}
	var m struct {
		Config struct{ Digest string }
		Layers []struct{ Digest string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("manifest %s:%s: %v", repo, tag, err)
	}
	digests := []string{m.Config.Digest}
	for _, l := range m.Layers {
		digests = append(digests, l.Digest)
	}
	for _, d := range digests {
		r, err := http.Head(fmt.Sprintf("http://%s/v2/%s/blobs/%s", addr, repo, d))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusOK {
			t.Errorf("the registry has manifest %s:%s but not its blob %s (%s)", repo, tag, d, r.Status)
		}
	}
	return true
}
