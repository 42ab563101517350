package faults_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// corruptionRun is the run every case of TestDamageEveryVerb packs: its
// input a.txt is also its step's output, so one damaged blob is met by
// every verb that reads inputs or outputs.
const corruptionRun = `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "m"},
 "system_prompt": "be careful", "prompts": [{"content": "read a.txt"}],
 "inputs": [{"name": "a.txt", "content": "alpha alpha\n"}],
 "steps": [{"tool": "read_file", "parameters": {"path": "a.txt"}, "output": "alpha alpha\n"}],
 "outputs": [{"name": "report.md", "path": "report.md"}]}`

// secret is what the files outside the store hold that a damaged store
// points at: no verb may ever print it.
const secret = "OUTSIDE-SECRET\n"

func hexOf(b string) string {
	s := sha256.Sum256([]byte(b))
	return hex.EncodeToString(s[:])
}

// damageCase is one way a store can be damaged, and what each verb that
// meets the damage must do.
type damageCase struct {
	name string
	// damage changes the store; blob and pack are the hex names of the
	// input blob and the pack; outside is a directory out of the store.
	damage func(t *testing.T, st, outside, blob, pack string)
	// mark must appear in the output of every verb that meets the damage.
	mark func(blob, pack string) string
	// verbs are the command lines that meet the damage (PACK and BLOB
	// replaced), each with the exit code it must give.
	verbs []verbCheck
}

type verbCheck struct {
	args string
	code int
}

// blobVerbs are the verbs that read the input blob.
func blobVerbs() []verbCheck {
	return []verbCheck{
		{"ctx-cat PACK:inputs/a.txt", 2},
		{"ctx-cat PACK:steps/0", 2},
		{"ctx-cat BLOB", 2},
		{"ctx-verify PACK", 1},
		{"ctx-verify report.md", 1},
		{"ctx-replay PACK", 3},
		{"ctx-checkout PACK co", 2},
		{"ctx-export -o x.tar PACK", 2},
		{"ctx-fork -o - PACK", 2},
		{"ctx-fsck", 1},
	}
}

// manifestVerbs are the verbs that read the manifest.
func manifestVerbs() []verbCheck {
	return []verbCheck{
		{"ctx-show PACK", 2},
		{"ctx-show latest", 2},
		{"ctx-cat PACK:inputs/a.txt", 2},
		{"ctx-verify PACK", 1}, // a finding: the pack is corrupt
		{"ctx-verify report.md", 1},
		{"ctx-diff PACK PACK", 2},
		{"ctx-replay PACK", 2},
		{"ctx-checkout PACK co", 2},
		{"ctx-export -o x.tar PACK", 2},
		{"ctx-fork -o - PACK", 2},
		{"ctx-fsck", 1},
	}
}

// refVerbs are the verbs that read refs/latest.
func refVerbs() []verbCheck {
	return []verbCheck{
		{"ctx-show latest", 2},
		{"ctx-cat latest:inputs/a.txt", 2},
		{"ctx-diff latest PACK", 2},
		{"ctx-replay latest", 2},
		{"ctx-checkout latest co", 2},
		{"ctx-export -o x.tar latest", 2},
		{"ctx-fork -o - latest", 2},
		{"ctx-verify latest", 2},
		{"ctx-fsck", 1},
	}
}

func objectFile(st, hx string) string { return filepath.Join(st, "objects", hx[:2], hx[2:]) }

// replaceFile writes b in place of the read-only object p.
func replaceFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// plant replaces p with a symlink to target.
func plant(t *testing.T, p, target string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func damageCases() []damageCase {
	blobMark := func(blob, _ string) string { return "sha256:" + blob }
	packMark := func(_, pack string) string { return "sha256:" + pack }
	return []damageCase{
		{
			name: "flipped byte in a blob",
			damage: func(t *testing.T, st, _, blob, _ string) {
				replaceFile(t, objectFile(st, blob), []byte("alpha alphb\n"))
			},
			mark: blobMark, verbs: blobVerbs(),
		},
		{
			name: "truncated blob",
			damage: func(t *testing.T, st, _, blob, _ string) {
				replaceFile(t, objectFile(st, blob), []byte("alpha"))
			},
			mark:  blobMark,
			verbs: append(blobVerbs(), verbCheck{"ctx-pack run.json", 2}),
		},
		{
			name: "manifest naming a missing blob",
			damage: func(t *testing.T, st, _, blob, _ string) {
				if err := os.Remove(objectFile(st, blob)); err != nil {
					t.Fatal(err)
				}
			},
			mark: blobMark, verbs: blobVerbs(),
		},
		{
			// The symlink leads to the right bytes: following it would
			// "work", and is exactly what the store must not do.
			name: "blob replaced by a symlink to a good copy outside",
			damage: func(t *testing.T, st, outside, blob, _ string) {
				good := filepath.Join(outside, "good-copy")
				ctxtest.WriteFile(t, good, []byte("alpha alpha\n"))
				plant(t, objectFile(st, blob), good)
			},
			mark:  blobMark,
			verbs: append(blobVerbs(), verbCheck{"ctx-pack run.json", 2}),
		},
		{
			name: "blob replaced by a symlink to a secret outside",
			damage: func(t *testing.T, st, outside, blob, _ string) {
				plant(t, objectFile(st, blob), filepath.Join(outside, "secret.txt"))
			},
			mark:  blobMark,
			verbs: append(blobVerbs(), verbCheck{"ctx-pack run.json", 2}),
		},
		{
			name: "objects/ab/ replaced by a symlink to a copy outside",
			damage: func(t *testing.T, st, outside, blob, _ string) {
				fan := filepath.Join(st, "objects", blob[:2])
				copyDir := filepath.Join(outside, "fan")
				if err := os.Rename(fan, copyDir); err != nil {
					t.Fatal(err)
				}
				plant(t, fan, copyDir)
			},
			mark:  blobMark,
			verbs: append(blobVerbs(), verbCheck{"ctx-pack run.json", 2}),
		},
		{
			name: "flipped byte in the manifest",
			damage: func(t *testing.T, st, _, _, pack string) {
				p := objectFile(st, pack)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				replaceFile(t, p, []byte(strings.Replace(string(b), `"m"`, `"n"`, 1)))
			},
			mark: packMark, verbs: manifestVerbs(),
		},
		{
			name: "manifest replaced by a symlink to a good copy outside",
			damage: func(t *testing.T, st, outside, _, pack string) {
				good := filepath.Join(outside, "manifest")
				b, err := os.ReadFile(objectFile(st, pack))
				if err != nil {
					t.Fatal(err)
				}
				ctxtest.WriteFile(t, good, b)
				plant(t, objectFile(st, pack), good)
			},
			mark:  packMark,
			verbs: append(manifestVerbs(), verbCheck{"ctx-pack run.json", 2}),
		},
		{
			name: "refs/latest replaced by a symlink to a good ref outside",
			damage: func(t *testing.T, st, outside, _, pack string) {
				good := filepath.Join(outside, "latest")
				ctxtest.WriteFile(t, good, []byte(pack+"\n"))
				plant(t, filepath.Join(st, "refs", "latest"), good)
			},
			mark:  func(_, _ string) string { return "refs/latest" },
			verbs: refVerbs(),
		},
		{
			name: "refs/ replaced by a symlink to a copy outside",
			damage: func(t *testing.T, st, outside, _, _ string) {
				refs := filepath.Join(st, "refs")
				copyDir := filepath.Join(outside, "refs")
				if err := os.Rename(refs, copyDir); err != nil {
					t.Fatal(err)
				}
				plant(t, refs, copyDir)
			},
			mark: func(_, _ string) string { return "refs" },
			verbs: append(refVerbs(),
				verbCheck{"ctx-pack run.json", 2},
				verbCheck{"ctx-log", 2}),
		},
	}
}

// TestDamageEveryVerb damages a store in each way of damageCases, then runs
// every verb that meets the damage: each must fail with the exit code of
// the contract, name what is damaged, never print what lies outside the
// store, and change nothing outside the store. ctx fsck must report the
// damage, and packing the run again must not make it look intact.
func TestDamageEveryVerb(t *testing.T) {
	for _, dc := range damageCases() {
		t.Run(strings.ReplaceAll(dc.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			ctxtest.WriteFile(t, filepath.Join(dir, "run.json"), []byte(corruptionRun))
			ctxtest.WriteFile(t, filepath.Join(dir, "report.md"), []byte("total: 3\n"))
			ctxtest.Must(t, dir, "ctx-init")
			st := filepath.Join(dir, ".ctx")
			pack := strings.TrimPrefix(strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "run.json")), "ctx://")
			blob := hexOf("alpha alpha\n")
			outside := t.TempDir()
			ctxtest.WriteFile(t, filepath.Join(outside, "secret.txt"), []byte(secret))
			dc.damage(t, st, outside, blob, pack)
			before := listTree(t, outside)
			mark := dc.mark(blob, pack)

			for _, v := range dc.verbs {
				args := strings.Fields(strings.NewReplacer("PACK", pack, "BLOB", blob).Replace(v.args))
				os.RemoveAll(filepath.Join(dir, "co"))
				stdout, stderr, code := ctxtest.Cmd(t, dir, args[0], args[1:]...)
				out := stdout + stderr
				if code != v.code {
					t.Errorf("%s: exit %d, want %d\n%s", v.args, code, v.code, out)
				}
				if !strings.Contains(out, mark) {
					t.Errorf("%s: the output does not name %s:\n%s", v.args, mark, out)
				}
				if strings.Contains(out, strings.TrimSpace(secret)) {
					t.Errorf("%s: printed what lies outside the store:\n%s", v.args, out)
				}
				if regexp.MustCompile(`(?m)^ctx-[a-z]+: error: $`).MatchString(stderr) {
					t.Errorf("%s: an empty error message", v.args)
				}
			}
			if strings.HasPrefix(dc.name, "refs/latest") {
				// ctx log does not read objects; it lists the packs but
				// marks none latest through a ref it cannot trust.
				out, errOut, code := ctxtest.Cmd(t, dir, "ctx-log")
				if code != 0 || !strings.Contains(out, pack[:12]) || strings.Contains(out, "(latest)") {
					t.Errorf("ctx log: exit %d\n%s%s", code, out, errOut)
				}
			}
			if after := listTree(t, outside); after != before {
				t.Errorf("the files outside the store changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if _, err := os.Stat(filepath.Join(dir, "co")); err == nil {
				t.Errorf("ctx checkout wrote into co despite the damage")
			}
		})
	}
}

// TestFlippedBlobSurvivesRepack: packing the same content again over a
// blob damaged in place (same size) is not a check of it (the store takes
// an object of the right size as present, as git does; see
// docs/RELIABILITY.md), so the pack succeeds, but the damage is not hidden:
// fsck and verify still report it.
func TestFlippedBlobSurvivesRepack(t *testing.T) {
	dir := t.TempDir()
	ctxtest.WriteFile(t, filepath.Join(dir, "run.json"), []byte(corruptionRun))
	ctxtest.WriteFile(t, filepath.Join(dir, "report.md"), []byte("total: 3\n"))
	ctxtest.Must(t, dir, "ctx-init")
	st := filepath.Join(dir, ".ctx")
	pack := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "run.json"))
	blob := hexOf("alpha alpha\n")
	replaceFile(t, objectFile(st, blob), []byte("alpha alphb\n"))
	if again := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "run.json")); again != pack {
		t.Fatalf("packing again gave %s, want %s", again, pack)
	}
	ps := ctxtest.Fsck(t, st)
	if len(ps) != 1 || ps[0].Kind != "corrupt" || ps[0].Object != "sha256:"+blob {
		t.Errorf("fsck after packing again: %v", ps)
	}
	if _, _, code := ctxtest.Cmd(t, dir, "ctx-verify", pack); code != 1 {
		t.Errorf("ctx verify after packing again: exit %d, want 1", code)
	}
}

// listTree lists a directory's files with the hash of their content, and
// its symlinks with their targets.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" -> "+target)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %s", rel, hexOf(string(b))))
		}
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}
