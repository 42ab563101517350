package pack

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClipLine(t *testing.T) {
	for in, want := range map[string]string{
		"fix it":                          "fix it",
		"\n\n  first line  \nsecond":      "first line",
		"tab\tand\x1b[31m escape":         "tab and [31m escape",
		strings.Repeat("é", MaxSubject+5): strings.Repeat("é", MaxSubject-1) + "…",
		"bad \xff byte":                   "bad \uFFFD byte",
		"   \n\t\n":                       "",
	} {
		if got := clipLine(in); got != want {
			t.Errorf("clipLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTaskID(t *testing.T) {
	for meta, want := range map[string]string{
		`{"instance_id":"django-1"}`:         "django-1",
		`{"task_id":"t1","instance_id":"x"}`: "t1",
		`{"task":{"id":"not a string"}}`:     "",
		`{"task_id":"  "}`:                   "",
		`[1,2]`:                              "",
	} {
		if got := taskID(json.RawMessage(meta)); got != want {
			t.Errorf("taskID(%s) = %q, want %q", meta, got, want)
		}
	}
}
