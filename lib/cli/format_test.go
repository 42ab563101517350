package cli

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

type outputConfig struct{ out Output }

func (c *outputConfig) RegisterFlags(fs *flag.FlagSet) {
	c.out.Register(fs, JSON, Formats{JSON: "print JSON", Human: "print sentences"})
}

// pageConfig is a verb of every format, Human the default.
type pageConfig struct{ out Output }

func (c *pageConfig) RegisterFlags(fs *flag.FlagSet) {
	c.out.Register(fs, Human, Formats{JSON: "print JSON", Human: "print a table", Markdown: "print Markdown", HTML: "write a page", JUnit: "write JUnit XML to `FILE`"})
}

// TestOutputFlags holds --json and --human to one rule for every verb:
// the default when neither is given, the command line over the
// environment, and a usage error for both at once.
func TestOutputFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want Format
		err  string
	}{
		{"default", nil, nil, JSON, ""},
		{"human", []string{"--human"}, nil, Human, ""},
		{"json", []string{"--json"}, nil, JSON, ""},
		{"taken back", []string{"--human", "--human=false"}, nil, JSON, ""},
		{"from the environment", nil, map[string]string{"CTX_HUMAN": "1"}, Human, ""},
		{"flag over the environment", []string{"--json"}, map[string]string{"CTX_HUMAN": "true"}, JSON, ""},
		{"environment false", nil, map[string]string{"CTX_JSON": "false"}, JSON, ""},
		{"both on the command line", []string{"--json", "--human"}, nil, 0, "--json and --human ask for two kinds of output; give one"},
		{"both the other way", []string{"--human", "--json"}, nil, 0, "--human and --json ask for two kinds of output; give one"},
		{"both in the environment", nil, map[string]string{"CTX_JSON": "1", "CTX_HUMAN": "1"}, 0, "CTX_HUMAN and CTX_JSON ask for two kinds of output; give one"},
		{"not a boolean", nil, map[string]string{"CTX_HUMAN": "yes"}, 0, `CTX_HUMAN="yes" is not a valid value for --human`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"CTX_JSON", "CTX_HUMAN"} {
				t.Setenv(k, tt.env[k])
				if tt.env[k] == "" {
					os.Unsetenv(k)
				}
			}
			var c outputConfig
			_, err := ParseArgs(&c, tt.args, Usage{Name: "ctx-test"}, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || ExitCode(err) != ExitTrouble {
					t.Fatalf("err %v; want a usage error %q", err, tt.err)
				}
				return
			}
			if err != nil || c.out.Format() != tt.want {
				t.Errorf("format %v, %v; want %v", c.out.Format(), err, tt.want)
			}
		})
	}
}

// TestOutputFormatsPerVerb holds the formats a verb declares: only their
// flags exist, any two at once are one usage error whichever they are,
// and -o goes with --html alone.
func TestOutputFormatsPerVerb(t *testing.T) {
	for _, k := range []string{"CTX_JSON", "CTX_HUMAN", "CTX_MARKDOWN", "CTX_HTML", "CTX_O", "CTX_JUNIT"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for _, tt := range []struct {
		name string
		cfg  interface {
			Config
			output() *Output
		}
		args []string
		want Format
		file string
		err  string
	}{
		{"default", &pageConfig{}, nil, Human, "", ""},
		{"markdown", &pageConfig{}, []string{"--markdown"}, Markdown, "", ""},
		{"markdown and json", &pageConfig{}, []string{"--markdown", "--json"}, 0, "", "--markdown and --json ask for two kinds of output; give one"},
		{"human and markdown", &pageConfig{}, []string{"--human", "--markdown"}, 0, "", "--human and --markdown ask for two kinds of output; give one"},
		{"html to a file", &pageConfig{}, []string{"--html", "-o", "page.html"}, HTML, "page.html", ""},
		{"a file without html", &pageConfig{}, []string{"-o", "page.html"}, 0, "", "-o writes the HTML page: give --html"},
		{"a file with markdown", &pageConfig{}, []string{"--markdown", "-o", "x.md"}, 0, "", "-o writes the HTML page: give --html"},
		{"junit beside markdown", &pageConfig{}, []string{"--markdown", "--junit", "r.xml"}, Markdown, "", ""},
		{"junit beside the default", &pageConfig{}, []string{"--junit", "r.xml"}, Human, "", ""},
		{"junit on standard output", &pageConfig{}, []string{"--junit", "-"}, JUnit, "", ""},
		{"junit on standard output and json", &pageConfig{}, []string{"--json", "--junit", "-"}, 0, "", "--junit - and --json ask for two kinds of output; give one"},
		{"junit not offered", &outputConfig{}, []string{"--junit", "r.xml"}, 0, "", "unknown flag --junit"},
		{"not offered", &outputConfig{}, []string{"--markdown"}, 0, "", "unknown flag --markdown"},
		{"no file without html", &outputConfig{}, []string{"-o", "x"}, 0, "", "unknown flag -o"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseArgs(tt.cfg, tt.args, Usage{Name: "ctx-test"}, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || ExitCode(err) != ExitTrouble {
					t.Fatalf("err %v; want a usage error %q", err, tt.err)
				}
				return
			}
			if o := tt.cfg.output(); err != nil || o.Format() != tt.want || o.file != tt.file {
				t.Errorf("format %v, file %q, %v; want %v, %q", o.Format(), o.file, err, tt.want, tt.file)
			}
		})
	}
}

func (c *outputConfig) output() *Output { return &c.out }
func (c *pageConfig) output() *Output   { return &c.out }

// TestExitTableEverywhere holds README.md and docs/CLI.md to the one table
// of exit codes that every verb's --help prints.
func TestExitTableEverywhere(t *testing.T) {
	want := ExitTable()
	for _, doc := range []string{"../../README.md", "../../docs/CLI.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold the table of exit codes of lib/cli (ExitTable):\n%s", doc, want)
		}
		if n := len(regexp.MustCompile(`(?m)^\| code \| meaning \|$`).FindAllString(string(b), -1)); n != 1 {
			t.Errorf("%s has %d tables of exit codes; want one", doc, n)
		}
	}
	var b strings.Builder
	testUsage().Write(&b, nil)
	for _, r := range ExitCodes() {
		if !regexp.MustCompile(`(?m)^  ` + r[0] + `  \S`).MatchString(b.String()) {
			t.Errorf("--help lacks exit code %s:\n%s", r[0], b.String())
		}
	}
}
