package convert

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// section is the part of a markdown text from the heading head to the
// next heading of its level or above.
func section(t *testing.T, doc, head string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+head+"\n")
	if i < 0 {
		t.Fatalf("docs/CONVERT.md has no %q", head)
	}
	level := strings.IndexByte(head, ' ')
	rest := doc[i+len(head)+2:]
	for off := 0; ; {
		k := strings.Index(rest[off:], "\n#")
		if k < 0 {
			return rest
		}
		off += k + 1
		if n := strings.IndexByte(rest[off:], ' '); n > 0 && n <= level && strings.Trim(rest[off:off+n], "#") == "" {
			return rest[:off]
		}
	}
}

// tableColumn is the first backquoted word of column col of each row of
// the markdown tables of text.
func tableColumn(text string, col int) []string {
	var out []string
	word := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) <= col || strings.HasPrefix(line, "|---") {
			continue
		}
		if m := word.FindStringSubmatch(cells[col]); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// TestDocsListEveryFormat holds docs/CONVERT.md to the format table: the
// --from list, the detection table, a section for each format, the
// companion files and the files of run records come from Formats(), so a
// format added there and not in the docs fails here.
func TestDocsListEveryFormat(t *testing.T) {
	b, err := os.ReadFile("../../docs/CONVERT.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	names := FormatNames()
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "| `--from FORMAT` |") {
			listed := tableColumnWords(strings.Split(line, " | ")[2])
			if want := append([]string{"auto"}, names...); !slices.Equal(listed, want) {
				t.Errorf("--from lists %v, want %v", listed, want)
			}
		}
		if strings.HasPrefix(line, "| `--record ID` |") {
			for _, f := range RecordFiles() {
				if !strings.Contains(line, f) {
					t.Errorf("--record does not name %s: %s", f, line)
				}
			}
		}
	}
	detected := tableColumn(section(t, doc, "### Detection"), 1)
	for _, name := range names {
		if !slices.Contains(detected, name) {
			t.Errorf("the detection table has no row for %s", name)
		}
		if !strings.Contains(doc, "\n### `"+name+"`: ") {
			t.Errorf("docs/CONVERT.md has no section ### `%s`: ...", name)
		}
	}
	for _, d := range detected {
		if _, ok := formatByName(d); !ok {
			t.Errorf("the detection table names %s, which is no format", d)
		}
	}
	var rows, want []string
	rows = tableColumn(section(t, doc, "### Companion files"), 0)
	for _, f := range Formats() {
		for range f.companions {
			want = append(want, f.Name)
		}
	}
	slices.Sort(rows)
	slices.Sort(want)
	if !slices.Equal(rows, want) {
		t.Errorf("the companion files table has rows for %v, the format table companions of %v", rows, want)
	}
}

// tableColumnWords is every backquoted word of a cell.
func tableColumnWords(cell string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}
