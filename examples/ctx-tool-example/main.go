// Command ctx-tool-example is an example replay executor: the tool
// "example", which counts the lines, words and bytes of a file like wc.
//
// ctx replay runs a program named ctx-tool-NAME for the steps whose tool is
// NAME. The protocol:
//
//   - the step's parameters arrive as one JSON object on standard input;
//   - the working directory is the replay's workspace;
//   - the output goes to standard output, and is what replay hashes;
//   - exit status 0 means the tool ran; anything else fails the step, with
//     the last line of standard error as the reason;
//   - `ctx-tool-NAME --version` prints the version on its first line,
//     compared with environment.tool_versions[NAME] of the pack.
//
// Put the program on $CTX_EXEC_PATH, beside ctx, or on $PATH.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

const version = "1.1.0"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(version)
		return
	}
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ctx-tool-example:", err)
		os.Exit(1)
	}
}

// run reads {"path": "..."} and writes "LINES WORDS BYTES PATH\n".
func run(in io.Reader, out io.Writer) error {
	var p struct {
		Path string `json:"path"`
	}
	if err := json.NewDecoder(in).Decode(&p); err != nil {
		return fmt.Errorf("parameters: %v", err)
	}
	// A tool sees only the workspace: refuse what would leave it.
	clean := filepath.Clean(filepath.FromSlash(p.Path))
	if p.Path == "" || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("parameter path: %q is not a file in the workspace", p.Path)
	}
	f, err := os.Open(clean)
	if err != nil {
		return err
	}
	defer f.Close()
	var lines, words, bytes int
	inWord := false
	r := bufio.NewReader(f)
	for {
		c, size, err := r.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		bytes += size
		if c == '\n' {
			lines++
		}
		if unicode.IsSpace(c) {
			inWord = false
		} else if !inWord {
			inWord = true
			words++
		}
	}
	_, err = fmt.Fprintf(out, "%d %d %d %s\n", lines, words, bytes, p.Path)
	return err
}
