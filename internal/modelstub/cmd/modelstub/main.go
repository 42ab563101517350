// Command modelstub serves the model APIs' stand-in of internal/modelstub
// on 127.0.0.1, for tests that run the real coding agents (never linked
// into ctx). It prints its base URL (http://127.0.0.1:PORT) as its first
// line on standard output, answers from -script (read at every request)
// and appends a JSON line per request to -log. It stops when killed or
// when its standard input closes (so it never outlives a test that
// started it with a pipe).
//
//	modelstub -script script.json -log requests.jsonl
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/contextsubstrate/ctx/internal/modelstub"
)

func main() {
	script := flag.String("script", "", "the script file (JSON, internal/modelstub.Script)")
	logPath := flag.String("log", "", "the request log (JSON lines, internal/modelstub.Record)")
	addr := flag.String("addr", "127.0.0.1:0", "the address to listen on")
	watchStdin := flag.Bool("stdin", false, "stop when standard input closes")
	flag.Parse()
	if err := run(*script, *logPath, *addr, *watchStdin); err != nil {
		fmt.Fprintln(os.Stderr, "modelstub:", err)
		os.Exit(1)
	}
}

func run(script, logPath, addr string, watchStdin bool) error {
	if script == "" || logPath == "" {
		return fmt.Errorf("-script and -log are required")
	}
	if _, err := modelstub.ReadScript(script); err != nil {
		return err
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	if watchStdin {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			ln.Close()
		}()
	}
	err = http.Serve(ln, modelstub.NewServer(script, log))
	if watchStdin {
		return nil
	}
	return err
}
