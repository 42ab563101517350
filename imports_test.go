package ctx_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importRow is a row of docs/DEVELOPING.md's table of what each package
// may import.
type importRow struct {
	kind    string // shared, capability or test
	imports []string
	why     string
}

// importTable reads the table of docs/DEVELOPING.md ("What each package
// may import"): each package of a row, with the row's kind, imports (last
// parts of package paths) and last column.
func importTable(t *testing.T) map[string]importRow {
	t.Helper()
	b, err := os.ReadFile("docs/DEVELOPING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "### What each package may import")
	section, _, _ = strings.Cut(section, "\n### ")
	rows := map[string]importRow{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		if len(cells) != 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "lib/") && !strings.HasPrefix(strings.TrimSpace(cells[1]), "internal/") {
			continue
		}
		row := importRow{kind: strings.TrimSpace(cells[2]), why: strings.ReplaceAll(cells[4], "\x00", "|")}
		if deps := strings.TrimSpace(cells[3]); deps != "nothing" {
			for _, d := range strings.Split(deps, ",") {
				row.imports = append(row.imports, strings.TrimSpace(d))
			}
		}
		for _, pkg := range strings.Split(cells[1], ",") {
			pkg = strings.TrimSpace(pkg)
			if _, dup := rows[pkg]; dup {
				t.Errorf("DEVELOPING.md lists %s twice", pkg)
			}
			rows[pkg] = row
		}
	}
	if len(rows) < 30 {
		t.Fatalf("DEVELOPING.md's table of imports has %d packages", len(rows))
	}
	return rows
}

// TestImports holds the packages to the layering of docs/DEVELOPING.md,
// read from its table: each package of lib/ and internal/ imports exactly
// the packages of this module its row lists, so the flow stays one way
// (cmd -> lib/<capability> -> the shared packages -> lib/store); a shared
// package imports only shared ones, and a capability imports another
// only where its row says why. A package of cmd/ imports lib/ and its own
// subcommands' packages, never another verb's.
func TestImports(t *testing.T) {
	rows := importTable(t)
	const module = "github.com/contextsubstrate/ctx/"
	imports := map[string]map[string]bool{} // package -> packages of this module it imports
	for _, root := range []string{"lib", "internal", "cmd"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			pkg := filepath.ToSlash(filepath.Dir(path))
			if imports[pkg] == nil {
				imports[pkg] = map[string]bool{}
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				if dep, ours := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module); ours {
					imports[pkg][dep] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A package is named in the table by the last part of its path. A
	// program (cmd/..., internal/X/cmd/NAME) is never imported, so its
	// name may repeat its library's.
	byName := map[string]string{}
	for pkg := range imports {
		if strings.HasPrefix(pkg, "cmd/") || strings.Contains(pkg, "/cmd/") {
			continue
		}
		name := pkg[strings.LastIndex(pkg, "/")+1:]
		if other, dup := byName[name]; dup {
			t.Fatalf("%s and %s end alike: the table cannot name them apart", pkg, other)
		}
		byName[name] = pkg
	}
	for pkg, deps := range imports {
		if strings.HasPrefix(pkg, "cmd/") {
			for dep := range deps {
				if !strings.HasPrefix(dep, "lib/") && !strings.HasPrefix(dep, pkg+"/") {
					t.Errorf("%s imports %s: a cmd package imports lib/ and its own subcommands only", pkg, dep)
				}
			}
			continue
		}
		row, ok := rows[pkg]
		if !ok {
			t.Errorf("%s: a package DEVELOPING.md's table does not place; add its row", pkg)
			continue
		}
		listed := map[string]bool{}
		for _, name := range row.imports {
			dep, ok := byName[name]
			if !ok {
				t.Errorf("%s's row lists %q, which is no package", pkg, name)
				continue
			}
			listed[dep] = true
			if !deps[dep] {
				t.Errorf("%s's row lists %s, which it does not import: take it off", pkg, name)
			}
			switch kind := rows[dep].kind; {
			case row.kind == "shared" && kind != "shared":
				t.Errorf("%s is shared but its row lets it import %s, a %s", pkg, name, kind)
			case row.kind == "capability" && kind == "capability" && !strings.Contains(row.why, name+":"):
				t.Errorf("%s imports the capability %s without a reason in its row (%q)", pkg, name, name+": why")
			case row.kind != "test" && kind == "test":
				t.Errorf("%s imports %s, a package of the tests", pkg, name)
			}
		}
		for dep := range deps {
			// A test package may import the verbs' own packages (cmd/):
			// the programs its tests run (internal/ctxtest's Programs).
			if !listed[dep] && !(row.kind == "test" && strings.HasPrefix(dep, "cmd/")) {
				t.Errorf("%s imports %s, which its row in DEVELOPING.md does not list", pkg, dep)
			}
		}
		switch row.kind {
		case "shared", "capability", "test":
		default:
			t.Errorf("%s: kind %q is not shared, capability or test", pkg, row.kind)
		}
	}
	for pkg := range rows {
		if imports[pkg] == nil {
			t.Errorf("DEVELOPING.md's table lists %s, which is not found", pkg)
		}
	}
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

// maxCmdLines bounds the non-test Go of each package under cmd/: a verb's
// package only wires (usage, flags, a library call, its output).
const maxCmdLines = 150

// TestCmdPackagesOnlyWire holds every package under cmd/ to maxCmdLines
// lines of non-test Go (docs/DEVELOPING.md). The dispatcher's own job has
// no library behind it; a package still over the bound is listed with
// its count, which may only go down, and leaves the list once under it.
func TestCmdPackagesOnlyWire(t *testing.T) {
	over := map[string]int{
		"cmd/ctx/ctxcmd": 504, // the dispatcher (DEVELOPING.md, "At most 150 lines per cmd package")
	}
	lines := map[string]int{}
	err := filepath.WalkDir("cmd", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines[filepath.ToSlash(filepath.Dir(path))] += bytes.Count(b, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg, n := range lines {
		if strings.Count(pkg, "/") < 2 {
			continue // cmd/ctx-VERB: the three-line main
		}
		limit, listed := over[pkg]
		switch {
		case !listed && n > maxCmdLines:
			t.Errorf("%s: %d lines of Go; a cmd package only wires (at most %d): move the work into lib/", pkg, n, maxCmdLines)
		case listed && n > limit:
			t.Errorf("%s: %d lines of Go, more than the %d it is allowed", pkg, n, limit)
		case listed && n <= maxCmdLines:
			t.Errorf("%s: %d lines of Go, within the bound: take it off the list", pkg, n)
		}
	}
	for pkg := range over {
		if _, ok := lines[pkg]; !ok {
			t.Errorf("%s: listed but not found", pkg)
		}
	}
	if len(lines) < 25 {
		t.Fatalf("found %d packages under cmd/", len(lines))
	}
}
