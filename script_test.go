package ctx_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/itchyny/gojq"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/internal/registrytest"
	"github.com/contextsubstrate/ctx/lib/sandbox"
)

// TestMain registers every ctx-* main, so scripts run the real programs, and
// `ctx VERB` goes through the real dispatcher and exec. jq is gojq, so the
// jq checks of the scripts run on any machine with Go.
func TestMain(m *testing.M) {
	programs := ctxtest.Programs()
	programs["indexrec"] = func() { os.Exit(runIndexRec(os.Args[1:])) }
	programs["jq"] = func() { os.Exit(runJQ(os.Args[1:])) }
	programs["maxrss"] = func() { os.Exit(runMaxRSS(os.Args[1:])) }
	programs["tcpcat"] = func() { os.Exit(runCat("tcpcat", "tcp4", os.Args[1:])) }
	programs["unixcat"] = func() { os.Exit(runCat("unixcat", "unix", os.Args[1:])) }
	programs["memhog"] = func() { os.Exit(runMemHog(os.Args[1:])) }
	testscript.Main(m, programs)
}

// TestScripts runs testdata/scripts/*.txtar. Set CTX_UPDATE_SCRIPTS=1 to
// rewrite the golden files of failing cmp commands.
func TestScripts(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	agent := buildOtelAgent(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/scripts",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("CTX_UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			env.Setenv("CORPUS", filepath.Join(root, "testdata", "corpus"))
			env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
			env.Setenv("NPM", filepath.Join(root, "testdata", "npm"))
			env.Setenv("NODE_PATH", filepath.Join(root, "testdata", "npm", "node_modules"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			// What confines a replay's programs on this kernel ("landlock
			// ABI 7 and seccomp"), for scripts that print the sandbox a
			// replay ran in.
			if c, err := sandbox.Confinement(); err == nil {
				env.Setenv("SANDBOX", c)
			}
			env.Setenv("PATH", agent+string(os.PathListSeparator)+withoutInstalledCtx(env.Getenv("PATH")))
			return nil
		},
		Condition: scriptCondition,
		Cmds:      scriptCmds(),
	})
}

// scriptCmds are the commands scripts have beyond testscript's own; the
// registry and registryproxy commands are internal/registrytest's.
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := registrytest.Cmds()
	cmds["sha256env"] = sha256ToEnv
	cmds["stdout2env"] = stdoutToEnv
	cmds["listen"] = listenTCP
	cmds["listenunix"] = listenUnix
	return cmds
}

// scriptCondition evaluates the conditions of this project's scripts:
// [mountns] holds where this process may make a private mount namespace
// (unshare -m, as root), so a script can mount a small or read-only
// filesystem that no one else sees and that vanishes with it.
// [sandbox] holds where replay can sandbox the programs it starts (Linux
// with Landlock).
// [writable:DIR] holds where this process may make a file in DIR (/run,
// as root).
// [interop:NAME] holds where the real program NAME (docker-registry,
// chromium, oras, cosign; duckdb-node: node with @duckdb/node-api) is
// installed; see internal/interop.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "mountns":
		return exec.Command("unshare", "-m", "true").Run() == nil, nil
	case "sandbox":
		_, err := sandbox.LandlockABI()
		return err == nil, nil
	}
	if dir, ok := strings.CutPrefix(cond, "writable:"); ok {
		f, err := os.CreateTemp(dir, ".ctx-writable-*")
		if err != nil {
			return false, nil
		}
		f.Close()
		return true, os.Remove(f.Name())
	}
	if name, ok := strings.CutPrefix(cond, "interop:"); ok {
		return interop.Condition(name)
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// stdoutToEnv sets an environment variable to the last command's standard
// output, trimmed: `exec ctx pack log.json` then `stdout2env PACK`.
func stdoutToEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: stdout2env NAME")
	}
	ts.Setenv(args[0], strings.TrimSpace(ts.ReadFile("stdout")))
}

// listenTCP starts a listener on a free port of 127.0.0.1 for the rest of
// the script, which greets every connection with "hello from the
// listener": `listen NAME` sets NAME to its port.
func listenTCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: listen NAME")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "hello from the listener\n")
			c.Close()
		}
	}()
	ts.Setenv(args[0], strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
}

// listenUnix starts a listener on a Unix socket at PATH for the rest of
// the script, which greets every connection with "hello from the unix
// listener": `listenunix PATH`.
func listenUnix(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: listenunix PATH")
	}
	path := ts.MkAbs(args[0])
	l, err := net.Listen("unix", path)
	ts.Check(err)
	ts.Defer(func() { l.Close(); os.Remove(path) })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "hello from the unix listener\n")
			c.Close()
		}
	}()
}

// runMemHog is `memhog MIB`: it maps MIB MiB of memory, touching every
// page, and says so, or says why it cannot as a C program whose malloc
// fails does ("memhog: cannot allocate memory") and exits 1.
func runMemHog(args []string) int {
	n, err := strconv.Atoi(strings.Join(args, ""))
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "usage: memhog MIB")
		return 2
	}
	b, err := syscall.Mmap(-1, 0, n<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		fmt.Fprintln(os.Stderr, "memhog:", err)
		return 1
	}
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	fmt.Printf("allocated %d MiB\n", n)
	return 0
}

// runCat is `tcpcat HOST:PORT` (network "tcp4") and `unixcat PATH`
// (network "unix"): it connects and copies what it reads to stdout, or
// says why it cannot connect and exits 1.
func runCat(name, network string, args []string) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: %s ADDRESS\n", name)
		return 2
	}
	c, err := net.DialTimeout(network, args[0], 5*time.Second)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	defer c.Close()
	io.Copy(os.Stdout, c)
	return 0
}

// sha256ToEnv sets an environment variable to the hex SHA-256 of a file:
// `sha256env FILE NAME`.
func sha256ToEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sha256env FILE NAME")
	}
	sum := sha256.Sum256([]byte(ts.ReadFile(args[0])))
	ts.Setenv(args[1], hex.EncodeToString(sum[:]))
}

// runJQ is the part of jq the scripts use, on gojq: jq [-e] [-r] [-c] [-s]
// FILTER [FILE...]. -e exits 1 when the last output is false or null, as jq
// does.
func runJQ(args []string) int {
	var raw, exit, slurp bool
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		for _, c := range args[0][1:] {
			switch c {
			case 'r':
				raw = true
			case 'e':
				exit = true
			case 'c':
			case 's':
				slurp = true
			default:
				fmt.Fprintf(os.Stderr, "jq: unknown flag -%c\n", c)
				return 2
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: jq [-ercs] FILTER [FILE...]")
		return 2
	}
	q, err := gojq.Parse(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "jq:", err)
		return 3
	}
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(os.Environ))
	if err != nil {
		fmt.Fprintln(os.Stderr, "jq:", err)
		return 3
	}
	var inputs []io.Reader
	for _, f := range args[1:] {
		fh, err := os.Open(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "jq:", err)
			return 2
		}
		defer fh.Close()
		inputs = append(inputs, fh)
	}
	if len(inputs) == 0 {
		inputs = append(inputs, os.Stdin)
	}
	dec := json.NewDecoder(io.MultiReader(inputs...))
	dec.UseNumber()
	var values []any
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "jq: parse error:", err)
			return 2
		}
		values = append(values, normalizeNumbers(v))
	}
	if slurp {
		values = []any{values}
	}
	status := 0
	var last any = nil
	outputs := 0
	for _, v := range values {
		iter := code.Run(v)
		for {
			out, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := out.(error); ok {
				fmt.Fprintln(os.Stderr, "jq: error:", err)
				return 5
			}
			last, outputs = out, outputs+1
			if s, ok := out.(string); ok && raw {
				fmt.Println(s)
				continue
			}
			b, _ := gojq.Marshal(out)
			fmt.Println(string(b))
		}
	}
	if exit && (outputs == 0 || last == nil || last == false) {
		status = 1
	}
	return status
}

// normalizeNumbers turns json.Number into the int or float64 gojq expects.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

// withoutInstalledCtx is PATH without the directories that hold a ctx
// program installed on this machine (make install puts them in
// $GOPATH/bin): the scripts run the programs of this tree only, which
// testscript puts first, and an installed ctx-VERB would make the
// dispatcher warn that it is shadowed. (Programs beside it, such as oras
// and cosign in $GOPATH/bin, go too: their scripts then skip, unless
// CTX_REQUIRE_INTEROP makes them fail, as on CI, which never installs
// ctx.)
func withoutInstalledCtx(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "ctx-pack")); err == nil && !strings.Contains(dir, "testscript-main") {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}
