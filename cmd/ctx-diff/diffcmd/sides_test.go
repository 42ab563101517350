package diffcmd

import (
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

func TestShowJSONHash(t *testing.T) {
	canon := `{"created":"x","version":"0.1"}`
	h := store.Sum([]byte(canon))
	show := `{"hash":"` + h.String() + `",` + canon[1:] + "\n"
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"ctx show --json", show, true},
		{"edited", strings.Replace(show, `"x"`, `"y"`, 1), false},
		{"indented", strings.Replace(show, `,"created"`, `, "created"`, 1), false},
		{"hash not first", `{"created":"x","hash":"` + h.String() + `","version":"0.1"}`, false},
		{"short", `{"hash":"sha256:00"}`, false},
	}
	for _, tt := range tests {
		got, ok := showJSONHash([]byte(tt.in))
		if ok != tt.ok || (ok && got != h) {
			t.Errorf("%s: showJSONHash = %v, %v; want ok %v", tt.name, got, ok, tt.ok)
		}
	}
}
