package replay

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"*.go", []string{"a.go", ".x.go"}, []string{"src/a.go", "a.gox"}},
		{"**/*.go", []string{"a.go", "src/a.go", "a/b/c/d.go"}, []string{"a.txt", "src/a.go/x"}},
		{"src/**", []string{"src/a", "src/a/b"}, []string{"src", "lib/a"}},
		{"src/**/test/*.py", []string{"src/test/a.py", "src/x/y/test/b.py"}, []string{"src/test/x/a.py"}},
		{"**/*.{ts,tsx}", []string{"a.ts", "x/b.tsx"}, []string{"c.js"}},
		{"{src,lib}/{a,b}.go", []string{"src/a.go", "lib/b.go"}, []string{"cmd/a.go", "src/c.go"}},
		{"a/**/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"b", "a/x"}},
		{"./docs//*.md", []string{"docs/a.md"}, []string{"a.md"}},
		{"[ab]?.txt", []string{"a1.txt", "bz.txt"}, []string{"c1.txt", "a.txt"}},
		{"x{y", []string{"x{y"}, []string{"xy"}},
		{"{only}", []string{"{only}"}, []string{"only"}},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tt.pattern, err)
			continue
		}
		for _, p := range tt.yes {
			if !g.match(p) {
				t.Errorf("%q does not match %q", tt.pattern, p)
			}
		}
		for _, p := range tt.no {
			if g.match(p) {
				t.Errorf("%q matches %q", tt.pattern, p)
			}
		}
	}
}

func TestGlobRefuses(t *testing.T) {
	for pattern, want := range map[string]string{
		"":                             "empty",
		"/etc/*":                       "absolute",
		"../*":                         "leaves the workspace",
		"a/{b,../c}":                   "leaves the workspace",
		"[":                            "not a valid pattern",
		"C:/x/*":                       "drive letter",
		"A{,}:/0":                      "alternative with a drive letter, A:/0",
		"{/etc,x}/passwd":              "absolute alternative /etc/passwd",
		"**/.ctx/*":                    "enters a .ctx store",
		".":                            "matches nothing",
		strings.Repeat("{a,b}", 9):     "more than 256",
		strings.Repeat("{a,{b,c}}", 6): "more than 256",
	} {
		if _, err := compileGlob(pattern); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("compileGlob(%q) = %v; want an error with %q", pattern, err, want)
		}
	}
}

func TestGlobPrefix(t *testing.T) {
	for pattern, want := range map[string]string{
		"src/lib/*.go":     "src/lib",
		"src/**/*.go":      "src",
		"*.go":             "",
		"{src,lib}/a.go":   "",
		"src/{a,b}/x.go":   "src",
		"src/lib/main.go":  "src/lib",
		"src/[ab]/x.go":    "src",
		"docs/v{1,2}/*.md": "docs",
		"a/b/**":           "a/b",
	} {
		g, err := compileGlob(pattern)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", pattern, err)
		}
		if got := g.prefix(); got != want {
			t.Errorf("prefix(%q) = %q; want %q", pattern, got, want)
		}
	}
}

// Many ** against a deep path stays fast: the match is linear in each.
func TestGlobManyStars(t *testing.T) {
	g, err := compileGlob(strings.Repeat("**/a*/", 40) + "z")
	if err != nil {
		t.Fatal(err)
	}
	if g.match(strings.Repeat("a/", 200) + "y") {
		t.Error("matched a path that does not end in z")
	}
}
