package ctx_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoProgramIsTracked fails when a file the repository tracks is a
// compiled program (ELF, Mach-O or PE): built programs go to bin/, which
// is ignored, and are never committed.
func TestNoProgramIsTracked(t *testing.T) {
	if _, err := os.Stat(".git"); err != nil {
		t.Skip("not a git checkout: no list of tracked files")
	}
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	magics := [][]byte{
		{0x7f, 'E', 'L', 'F'},    // ELF
		{0xcf, 0xfa, 0xed, 0xfe}, // Mach-O 64-bit
		{0xce, 0xfa, 0xed, 0xfe}, // Mach-O 32-bit
		{0xca, 0xfe, 0xba, 0xbe}, // Mach-O universal
		{'M', 'Z'},               // PE
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		for _, m := range magics {
			if bytes.HasPrefix(head[:n], m) {
				t.Errorf("%s is a compiled program: git rm --cached it (programs are built into bin/)", name)
			}
		}
	}
}
