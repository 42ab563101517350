package ctx_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestImports holds the packages to the layering of docs/DEVELOPING.md:
// each package of lib/ and internal/ imports only the packages of this
// module listed for it, so the flow stays one way (cmd -> lib/<capability>
// -> lib/store) and no capability reaches into another. A new package, or
// a new import between packages, is added here and in DEVELOPING.md.
func TestImports(t *testing.T) {
	allowed := map[string]string{
		"lib/beneath":                      "",
		"lib/store":                        "lib/beneath",
		"lib/text":                         "",
		"lib/execpath":                     "",
		"lib/pack/jcs":                     "",
		"lib/pack/agenttool":               "",
		"lib/pack":                         "lib/pack/jcs lib/store lib/text",
		"lib/pack/replaystream":            "lib/pack lib/pack/jcs lib/store",
		"lib/pack/sidecar":                 "lib/pack lib/store lib/text",
		"lib/cli":                          "lib/pack lib/store lib/text",
		"lib/convert":                      "lib/pack lib/pack/agenttool lib/pack/jcs",
		"lib/diff":                         "lib/pack lib/pack/jcs lib/store lib/text",
		"lib/replay":                       "lib/beneath lib/execpath lib/pack lib/pack/agenttool lib/pack/jcs lib/pack/replaystream lib/sandbox lib/store lib/text",
		"lib/sandbox":                      "",
		"lib/verify":                       "lib/pack lib/pack/sidecar lib/store lib/text",
		"lib/verify/signed":                "lib/attest lib/pack lib/pack/sidecar lib/store lib/verify",
		"lib/attest":                       "lib/pack lib/pack/jcs lib/store",
		"lib/attest/sigbundle":             "lib/attest lib/pack/jcs",
		"lib/share":                        "lib/pack lib/pack/jcs lib/pack/sidecar lib/store lib/text",
		"lib/show":                         "lib/pack lib/pack/jcs lib/store lib/text",
		"lib/bundle":                       "lib/pack lib/store lib/text",
		"lib/fsck":                         "lib/pack lib/store lib/text",
		"lib/gc":                           "lib/pack lib/store lib/text",
		"lib/redact":                       "lib/pack lib/pack/jcs lib/secrets lib/store lib/text",
		"lib/side":                         "lib/cli lib/pack lib/pack/replaystream lib/store",
		"lib/htmlview":                     "lib/diff lib/pack lib/pack/replaystream lib/pack/sidecar lib/store lib/text lib/verify",
		"lib/oci":                          "lib/attest lib/pack lib/store lib/text",
		"lib/secrets":                      "lib/pack lib/store",
		"lib/record":                       "lib/convert lib/pack lib/store",
		"lib/suite":                        "lib/convert lib/diff lib/pack lib/pack/jcs lib/store lib/text",
		"lib/suite/tables":                 "lib/pack lib/store lib/suite",
		"lib/complete":                     "lib/execpath lib/pack lib/store",
		"lib/mcp":                          "lib/pack lib/pack/jcs lib/store",
		"lib/agentstore":                   "",
		"lib/session":                      "lib/agentstore lib/convert lib/pack lib/pack/jcs lib/store lib/text",
		"internal/interop":                 "",
		"internal/storetest":               "lib/store",
		"internal/packtest":                "lib/pack lib/store",
		"internal/registrytest":            "internal/interop",
		"internal/otelagent":               "",
		"internal/testprogress":            "",
		"internal/mcpserver":               "",
		"internal/modelstub":               "",
		"internal/modelstub/cmd/modelstub": "internal/modelstub",
		"internal/agenttest":               "internal/interop internal/modelstub lib/agentstore",
	}
	const module = "github.com/contextsubstrate/ctx/"
	seen := map[string]bool{}
	for _, root := range []string{"lib", "internal"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			pkg := filepath.ToSlash(filepath.Dir(path))
			seen[pkg] = true
			want, ok := allowed[pkg]
			if !ok {
				t.Errorf("%s: a package DEVELOPING.md does not place; add it there and here", pkg)
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				dep, ours := strings.CutPrefix(p, module)
				if ours && !contains(strings.Fields(want), dep) {
					t.Errorf("%s imports %s, which %s may not import (docs/DEVELOPING.md)", path, dep, pkg)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var missing []string
	for pkg := range allowed {
		if !seen[pkg] {
			missing = append(missing, pkg)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("packages listed but not found: %v", missing)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestParquetOnlyInSuiteTables holds the Parquet library to the one
// package that writes Parquet (ctx suite export), so no other verb links
// it.
func TestParquetOnlyInSuiteTables(t *testing.T) {
	for _, root := range []string{"lib", "cmd", "internal"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				if strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), "github.com/parquet-go/") && filepath.ToSlash(filepath.Dir(path)) != "lib/suite/tables" {
					t.Errorf("%s imports %s: only lib/suite/tables may", path, imp.Path.Value)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
