package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v3"
)

// EnvPrefix is the prefix of the environment variables that stand in for
// flags: --store is CTX_STORE, --allow-exec is CTX_ALLOW_EXEC.
const EnvPrefix = "CTX"

// Usage is the help text of one command. It is printed by -h/--help and
// pointed at by usage errors.
type Usage struct {
	Name     string // program name, "ctx-pack"
	Synopsis string // "ctx pack [flags] LOG|-", one or more lines
	Summary  string // one sentence, shown by 'ctx help'
	Help     string // paragraphs after the synopsis
	Examples string // shown last, one example per line or block
}

// Verb is the name users type after ctx: "pack" for "ctx-pack".
func (u Usage) Verb() string { return strings.TrimPrefix(u.Name, "ctx-") }

// Write prints the full usage text, with the flags of fs.
func (u Usage) Write(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n", strings.ReplaceAll(strings.TrimSpace(u.Synopsis), "\n", "\n       "))
	if u.Summary != "" {
		fmt.Fprintf(&b, "\n%s\n", u.Summary)
	}
	if h := strings.TrimSpace(u.Help); h != "" {
		fmt.Fprintf(&b, "\n%s\n", h)
	}
	if fs != nil {
		var flags strings.Builder
		fs.VisitAll(func(f *flag.Flag) {
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-"
			}
			arg, usage := flag.UnquoteUsage(f)
			if isBoolFlag(f) {
				arg = ""
			}
			left := dash + f.Name
			if arg != "" {
				left += " " + arg
			}
			fmt.Fprintf(&flags, "  %-24s %s", left, usage)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				fmt.Fprintf(&flags, " (default %s)", f.DefValue)
			}
			env := EnvPrefix + "_" + strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToUpper(f.Name))
			fmt.Fprintf(&flags, " [$%s]\n", env)
		})
		if flags.Len() > 0 {
			fmt.Fprintf(&b, "\nflags:\n%s", flags.String())
		}
	}
	if e := strings.TrimRight(u.Examples, " \n"); e != "" {
		e = strings.TrimLeft(e, "\n")
		fmt.Fprintf(&b, "\nexamples:\n%s\n", indent(e, "  "))
	}
	io.WriteString(w, b.String())
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Parse parses args into fs and returns the positional arguments. Flags may
// come before, between or after positional arguments (`ctx diff A B
// --human`); "--" ends the flags. Flags not given on the command line are
// taken from CTX_ environment variables. -h and --help print the usage on
// stdout and return an error that Main turns into exit 0.
func Parse(fs *flag.FlagSet, args []string, u Usage, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var positional []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				u.Write(stdout, fs)
				return nil, flag.ErrHelp
			}
			return nil, Usagef("%s", strings.TrimPrefix(err.Error(), "flag "))
		}
		consumed := len(rest) - fs.NArg()
		rest = fs.Args()
		if consumed > 0 && isTerminator(fs, args, len(args)-len(rest)-1) {
			positional = append(positional, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		positional = append(positional, rest[0])
		rest = rest[1:]
	}
	// Environment variables fill the flags the command line left unset.
	if err := ff.Parse(fs, []string{}, ff.WithEnvVarPrefix(EnvPrefix)); err != nil {
		return nil, Usagef("%s", err)
	}
	return positional, nil
}

// isTerminator reports whether args[i], the word just before what the last
// fs.Parse left over, was a "--" that ended the flags. The flag package
// swallows the terminator, so it has to be found again here.
func isTerminator(fs *flag.FlagSet, args []string, i int) bool {
	return i >= 0 && args[i] == "--" && !flagTakesValue(fs, args, i)
}

// flagTakesValue reports whether args[i] is the value of the flag before it
// (`--tag --`), in which case it is not a terminator.
func flagTakesValue(fs *flag.FlagSet, args []string, i int) bool {
	if i == 0 {
		return false
	}
	prev := args[i-1]
	if !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") || prev == "-" || prev == "--" {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(prev, "-"))
	return f != nil && !isBoolFlag(f)
}
