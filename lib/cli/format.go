package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
)

// Format is one way a verb prints its result.
type Format int

// The formats, in the order their flags are listed; the zero value is
// "none chosen".
const (
	JSON     Format = iota + 1 // JSON or NDJSON, for programs
	Human                      // sentences or a table, for people
	Markdown                   // for a CI job summary or a pull request comment
	HTML                       // one self-contained page; -o FILE writes it to a file
	// JUnit is JUnit XML for CI systems' test reports: --junit FILE writes
	// it to a file beside whichever format goes to standard output
	// (--junit - writes it there instead).
	JUnit
)

// allFormats lists every Format in the order of their flags.
func allFormats() []Format { return []Format{JSON, Human, Markdown, HTML, JUnit} }

// String names a format as its flag does.
func (f Format) String() string {
	switch f {
	case JSON:
		return "json"
	case Human:
		return "human"
	case Markdown:
		return "markdown"
	case HTML:
		return "html"
	case JUnit:
		return "junit"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Formats are the formats a verb offers, each with the help text of its
// flag.
type Formats map[Format]string

// Output is the one option of a verb's output: the verb declares the
// formats it offers and its default (Register, as oras's
// option.Format.SetTypes(default, allowed...)), and gets a flag per format
// (--json, --human, --markdown, --html) and, with HTML, -o FILE; JUnit is
// --junit FILE, a file written beside the output (WriteFile). The
// command line wins over the environment: CTX_HUMAN=1 does not undo
// --json. Asking for two formats at once (on the command line, or both in
// the environment), or -o without --html, is a usage error, found here
// once the flags are parsed.
type Output struct {
	def              Format
	offered          Formats
	cmd, env         Format
	cmdName, envName string // the flag or variable that set cmd, env
	both             string // the two names given at once, for the usage error
	file             string // -o, for HTML
	junit            string // --junit FILE
}

// Register declares the verb's formats and its default (one of them), and
// registers their flags on fs. The default's help says so.
func (o *Output) Register(fs *flag.FlagSet, def Format, offered Formats) {
	if _, ok := offered[def]; !ok {
		panic(fmt.Sprintf("cli: default format %s is not offered", def))
	}
	o.def, o.offered = def, offered
	first := true
	for _, f := range allFormats() {
		help, ok := offered[f]
		if !ok {
			continue
		}
		if f == JUnit {
			// A file beside the output, not a format of its own.
			fs.StringVar(&o.junit, "junit", "", help)
			continue
		}
		if f == def {
			help += " (the default)"
		}
		fs.Var(&formatFlag{o: o, f: f, first: first}, f.String(), help)
		first = false
	}
	if _, ok := offered[HTML]; ok {
		fs.StringVar(&o.file, "o", "", "with --html, write the page to `FILE` instead of standard output")
	}
}

// Format is the format asked for on standard output: the command
// line's, else JUnit for --junit -, else the environment's, else the
// default.
func (o *Output) Format() Format {
	switch {
	case o.junit == "-":
		return JUnit
	case o.cmd != 0:
		return o.cmd
	case o.env != 0:
		return o.env
	}
	return o.def
}

// Human reports whether the result is to be printed for people.
func (o *Output) Human() bool { return o.Format() == Human }

// Write writes the result that write produces: into the file -o names
// (WriteOutput: whole or not at all), else to stdout.
func (o *Output) Write(stdout io.Writer, write func(io.Writer) error) error {
	return WriteOutput(o.file, stdout, write)
}

// WriteFile writes what write produces into the file a file format (the
// FILE of --junit) names, whole or not at all (WriteOutput); it does
// nothing when the format was not asked for, or was asked for on
// standard output (Format).
func (o *Output) WriteFile(f Format, write func(io.Writer) error) error {
	if f != JUnit || o.junit == "" || o.junit == "-" {
		return nil
	}
	return WriteOutput(o.junit, nil, write)
}

// formatFlag is the flag of one format; all write into one Output.
type formatFlag struct {
	o     *Output
	f     Format
	first bool // the flag that speaks for the Output once parsed
}

func (v *formatFlag) String() string {
	if v == nil || v.o == nil {
		return "false"
	}
	return strconv.FormatBool(v.o.Format() == v.f && (v.o.cmd != 0 || v.o.env != 0))
}

func (v *formatFlag) IsBoolFlag() bool { return true }

// Set is the command line's flag (=false takes it back).
func (v *formatFlag) Set(s string) error {
	return v.set(s, &v.o.cmd, &v.o.cmdName, "--"+v.f.String())
}

// setEnv is the flag's CTX_ variable; it counts only when the command
// line chose no format.
func (v *formatFlag) setEnv(s string) error {
	if v.o.cmd != 0 {
		return nil
	}
	return v.set(s, &v.o.env, &v.o.envName, EnvName(v.f.String()))
}

func (v *formatFlag) set(s string, slot *Format, slotName *string, name string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	switch {
	case on && *slot != 0 && *slot != v.f:
		if v.o.both == "" {
			v.o.both = *slotName + " and " + name
		}
	case on:
		*slot, *slotName = v.f, name
	case *slot == v.f:
		*slot, *slotName = 0, ""
	}
	return nil
}

// checkFlag is called once the flags are parsed; the first flag of an
// Output speaks for it.
func (v *formatFlag) checkFlag() error {
	switch {
	case !v.first:
		return nil
	case v.o.both != "":
		return Usagef("%s ask for two kinds of output; give one", v.o.both)
	case v.o.junit == "-" && v.o.cmd != 0:
		return Usagef("--junit - and %s ask for two kinds of output; give one (or --junit FILE)", v.o.cmdName)
	case v.o.file != "" && v.o.Format() != HTML:
		return Usagef("-o writes the HTML page: give --html")
	}
	return nil
}
