package ctx_test

import (
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os/exec"
	"strings"
	"testing"
)

// signingPackages are the packages that sign and check signatures: ctx's
// own and the libraries under them (in-toto, DSSE, SSH keys, Sigstore).
func signingPackages() []string {
	return []string{
		"github.com/contextsubstrate/ctx/lib/attest",
		"github.com/in-toto/",
		"github.com/secure-systems-lab/go-securesystemslib",
		"golang.org/x/crypto/ssh",
		"github.com/sigstore/",
	}
}

// TestVerbsLinkOnlyWhatTheyNeed holds every program to the dependencies
// its work needs (as go-containerregistry's cmd/crane/depcheck_test.go
// does): only the verbs that sign or check signatures (attest, key, pack
// --sign, push and pull with their attestations, verify --key) link the
// signing code, and only those, ctx record (OTLP) and ctx suite (Parquet)
// link protobuf. A verb that only reads (cat, log, show, diff, checkout,
// fork, ...) stays small and quick to start.
func TestVerbsLinkOnlyWhatTheyNeed(t *testing.T) {
	signs := map[string]bool{"ctx-attest": true, "ctx-key": true, "ctx-pack": true, "ctx-pull": true, "ctx-push": true, "ctx-verify": true}
	// protobuf comes with OTLP (record) and with parquet-go (suite's tables).
	protobuf := map[string]bool{"ctx-record": true, "ctx-suite": true}
	out, err := exec.Command(ctxtest.GoTool(t), "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", "./cmd/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		verb, ok := strings.CutPrefix(pkg, "github.com/contextsubstrate/ctx/cmd/")
		if !ok || strings.Contains(verb, "/") {
			continue // a verb's own package: its main links the same
		}
		seen++
		var banned []string
		if !signs[verb] {
			banned = append(banned, signingPackages()...)
			if !protobuf[verb] {
				banned = append(banned, "google.golang.org/protobuf")
			}
		}
		var links []string
		for _, d := range deps {
			for _, b := range banned {
				if strings.HasPrefix(d, b) {
					links = append(links, d)
					break
				}
			}
		}
		if len(links) > 0 {
			t.Errorf("%s links %d packages only the verbs that sign (or read OTLP) may link: %s", verb, len(links), strings.Join(links, " "))
		}
	}
	if seen < 20 {
		t.Fatalf("go list found %d programs under cmd/", seen)
	}
}
