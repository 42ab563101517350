package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestUsageErrorOfASubcommand: In points a usage error to the
// subcommand's --help, and leaves other errors as they are.
func TestUsageErrorOfASubcommand(t *testing.T) {
	var out bytes.Buffer
	Report("ctx-suite", In("ctx suite diff", Usagef("ctx suite diff takes two suite names")), &out)
	if !strings.HasSuffix(out.String(), "ctx-suite: hint: see 'ctx suite diff --help'\n") {
		t.Errorf("usage error in a subcommand:\n%s", out.String())
	}
	out.Reset()
	Report("ctx-suite", Usagef("ctx suite takes a command"), &out)
	if !strings.HasSuffix(out.String(), "ctx-suite: hint: see 'ctx suite --help'\n") {
		t.Errorf("usage error of the verb:\n%s", out.String())
	}
	plain := errors.New("not a usage error")
	if In("ctx suite diff", plain) != plain || In("x", nil) != nil {
		t.Error("In changed an error that is not a usage error")
	}
}

// TestSubcommandsExitTable: a subcommand's own rows replace the shared
// table in its --help, 2 keeping its shared meaning.
func TestSubcommandsExitTable(t *testing.T) {
	var out bytes.Buffer
	Usage{Name: "ctx-suite", Synopsis: "ctx suite diff", Exits: []string{"0 no task regressed", "1 a task regressed", "2"}}.Write(&out, nil)
	help := out.String()
	for _, want := range []string{"  0  no task regressed\n", "  1  a task regressed\n", "  2  the command could not do its job"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "  3  ") || strings.Contains(help, "drift found") {
		t.Errorf("help has the shared table:\n%s", help)
	}
}
