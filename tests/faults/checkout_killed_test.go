package faults_test

import (
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkoutTemps counts the temporary files (.tmp-ctx-*) and the other
// files of a checkout of writeLargeRun's tree into dir.
func checkoutTemps(dir string) (tmp, files int) {
	for i := 0; i < 20; i++ {
		d, err := os.Open(filepath.Join(dir, "src", fmt.Sprintf("d%02d", i)))
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if strings.HasPrefix(n, ".tmp-ctx-") {
				tmp++
			} else {
				files++
			}
		}
	}
	return tmp, files
}

// signalAt starts cmd and sends sig once at(dir) holds; it returns whether
// the signal ended the command (or the exit status it had), and the exit
// code.
func signalAt(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, at func() bool) (landed bool, code int) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return false, ctxtest.ExitCode(err)
		default:
		}
		if at() {
			cmd.Process.Signal(sig)
			err := <-done
			return true, ctxtest.ExitCode(err)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCheckoutInterruptedLeavesNothing ends ctx checkout of 3,000 files
// with SIGINT and with SIGTERM once a third of its temporary files are
// written: it exits 130 and DIR holds what it held before, no temporary
// file, no empty file under a real name, no new directory. (Before, it
// left up to 3,000 temporary files, and empty files under their names
// after which a run without --force refused.)
func TestCheckoutInterruptedLeavesNothing(t *testing.T) {
	st := ctxtest.MemStoreDir(t)
	log := ctxtest.WriteLargeRun(t, 3000, 0, 0)
	hash := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pack", "--store", st, "--no-sidecars", log))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := filepath.Join(t.TempDir(), "out")
		ctxtest.WriteFile(t, filepath.Join(dir, "mine.txt"), []byte("mine\n"))
		cmd := exec.Command("ctx-checkout", "--store", st, hash, dir)
		landed, code := signalAt(t, cmd, sig, func() bool { n, _ := checkoutTemps(dir); return n >= 1000 })
		if !landed {
			t.Fatalf("%v: the checkout finished first (exit %d)", sig, code)
		}
		if code != 130 {
			t.Errorf("%v: exit %d, want 130", sig, code)
		}
		var left []string
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && p != dir {
				rel, _ := filepath.Rel(dir, p)
				left = append(left, rel)
			}
			return nil
		})
		if strings.Join(left, ",") != "mine.txt" {
			t.Errorf("%v: left %d entries: %.200v", sig, len(left), left)
		}
	}
}

// TestCheckoutKilledFinishesAfter kills ctx checkout with SIGKILL once a
// third of its temporary files are written, then runs it again, without
// --force: it completes, every file holds the pack's bytes, and the
// temporary files of the killed run are gone.
func TestCheckoutKilledFinishesAfter(t *testing.T) {
	st := ctxtest.MemStoreDir(t)
	log := ctxtest.WriteLargeRun(t, 3000, 0, 0)
	hash := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pack", "--store", st, "--no-sidecars", log))
	dir := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command("ctx-checkout", "--store", st, hash, dir)
	landed, code := signalAt(t, cmd, syscall.SIGKILL, func() bool { n, _ := checkoutTemps(dir); return n >= 1000 })
	if !landed || code != 128+int(syscall.SIGKILL) {
		t.Fatalf("the kill did not land (exit %d)", code)
	}
	tmp, files := checkoutTemps(dir)
	t.Logf("after the kill: %d temporary files, %d files", tmp, files)
	if tmp == 0 {
		t.Fatal("the killed checkout left no temporary file: nothing is tested")
	}
	ctxtest.Must(t, "", "ctx-checkout", "--store", st, hash, dir)
	if tmp, files := checkoutTemps(dir); tmp != 0 || files != 3000 {
		t.Errorf("after checking out again: %d temporary files, %d files", tmp, files)
	}
	out := ctxtest.Must(t, "", "ctx-checkout", "--store", st, "--json", hash, dir)
	if !strings.Contains(out, `"written":[]`) {
		t.Errorf("a third checkout wrote files: %.300s", out)
	}
}

// TestForkInterruptedLeavesNothing ends ctx fork with SIGINT and SIGTERM
// while it writes a draft of 24 MB, into .ctx/drafts/ and with -o: it
// exits 130 and leaves no temporary file (before, .ctx/drafts/.tmp-* or
// one beside the -o file stayed) and no draft.
func TestForkInterruptedLeavesNothing(t *testing.T) {
	st := ctxtest.MemStoreDir(t)
	var inputs []string
	for i := 0; i < 400; i++ {
		inputs = append(inputs, fmt.Sprintf(`{"name":"f%03d.txt","content":%q}`, i, strings.Repeat(fmt.Sprintf("line %d of a long file\n", i), 2500)))
	}
	log := filepath.Join(t.TempDir(), "run.json")
	ctxtest.WriteFile(t, log, []byte(`{"model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[`+strings.Join(inputs, ",")+`]}`))
	hash := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pack", "--store", st, log))
	outDir := t.TempDir()
	temps := func(dir string) bool {
		names, _ := os.ReadDir(dir)
		for _, n := range names {
			if strings.HasPrefix(n.Name(), ".tmp-") {
				return true
			}
		}
		return false
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, args := range [][]string{{}, {"-o", filepath.Join(outDir, "draft.json")}} {
			watch := filepath.Join(st, "drafts")
			if len(args) > 0 {
				watch = outDir
			}
			cmd := exec.Command("ctx-fork", append([]string{"--store", st, hash}, args...)...)
			landed, code := signalAt(t, cmd, sig, func() bool { return temps(watch) })
			if !landed {
				t.Fatalf("%v %v: the fork finished first (exit %d)", sig, args, code)
			}
			if code != 130 {
				t.Errorf("%v %v: exit %d, want 130", sig, args, code)
			}
			for _, dir := range []string{filepath.Join(st, "drafts"), outDir} {
				if names, _ := os.ReadDir(dir); len(names) > 0 {
					t.Errorf("%v %v: %s holds %v", sig, args, dir, names)
				}
			}
		}
	}
}
