package record

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/contextsubstrate/ctx/lib/child"
)

// Config is one ctx record: a command to run with the receiver, or none
// (a long-running receiver, --listen).
type Config struct {
	Options
	// Command is CMD and its arguments; empty, the receiver runs until
	// SIGINT or SIGTERM.
	Command []string
	// Listen is the address to listen on; "" is 127.0.0.1 on a free
	// port.
	Listen string
	// Drain is the longest wait, after CMD exits, for exports still under
	// way (a child that outlived it).
	Drain time.Duration
	// Stdin, Stdout and Stderr are CMD's, untouched.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interactive says standard input is a terminal: SIGINT and SIGQUIT
	// typed there reach CMD directly, so they are not sent again.
	Interactive bool
	// Listening is told the receiver's URL once it listens.
	Listening func(url string)
}

// Result is how a recording ended.
type Result struct {
	Summary
	// ExitCode is CMD's exit status (128+N when a signal N ended it); 0
	// without a command.
	ExitCode int
}

// NotFoundError is a CMD that cannot be run.
type NotFoundError struct {
	Name string
	Err  error
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("cannot run %s: %v", e.Name, e.Err) }
func (e *NotFoundError) Unwrap() error { return e.Err }

// ListenError is an address the receiver cannot listen on.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string { return fmt.Sprintf("cannot listen on %s: %v", e.Addr, e.Err) }
func (e *ListenError) Unwrap() error { return e.Err }

// ErrorHints says what may hold the port.
func (e *ListenError) ErrorHints() []string {
	return []string{"another receiver (a collector?) may have the port; name another with --listen"}
}

// Err is what makes a recording that ran a failure, nil when it is none:
// traces that could not be packed, or a command that sent no trace with
// GenAI spans (none at all, or spans of other kinds). CMD's own exit
// status is ExitCode's.
func (r Result) Err(command []string) error {
	switch {
	case r.Failed > 0:
		return fmt.Errorf("%d of %d traces could not be packed", r.Failed, r.Failed+r.Packs)
	case r.Packs > 0 || len(command) == 0:
		return nil
	case r.ReceivedSpans:
		return fmt.Errorf("nothing recorded: %s sent no trace with GenAI spans", command[0])
	}
	return &nothingSent{command[0]}
}

// nothingSent is a command that sent no span at all.
type nothingSent struct{ name string }

func (e *nothingSent) Error() string { return "nothing recorded: " + e.name + " sent no span" }

// ErrorHints says what to check.
func (e *nothingSent) ErrorHints() []string {
	return []string{"is it instrumented, exporting OTLP over HTTP?"}
}

// ListenAddr resolves a --listen value: a port alone, or a host left out
// (":4318"), is the loopback interface, unlike net.Listen's every
// interface. public reports an address other machines can reach.
func ListenAddr(s string) (addr string, public bool, err error) {
	if s == "" {
		return "127.0.0.1:0", false, nil
	}
	if _, err := strconv.ParseUint(s, 10, 16); err == nil {
		return "127.0.0.1:" + s, false, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", false, fmt.Errorf("--listen %s: %v (HOST:PORT, :PORT or PORT)", s, err)
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port), false, nil
	}
	if host == "localhost" {
		return s, false, nil
	}
	ip := net.ParseIP(host)
	return s, ip == nil || !ip.IsLoopback(), nil
}

// otelEnv is the environment CMD runs with: its own, with the OTLP
// exporter pointed at the receiver (traces, and logs for the GenAI
// events). A protocol the receiver speaks that the environment chose
// (http/json) is kept; any other (grpc) becomes http/protobuf.
func otelEnv(base []string, url string) []string {
	lookup := func(k string) (string, bool) {
		for i := len(base) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(base[i], k+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	protocol := func(k string) string {
		if v, _ := lookup(k); v == "http/json" {
			return v
		}
		return "http/protobuf"
	}
	set := [][2]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", url},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url + "/v1/traces"},
		{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", url + "/v1/logs"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", protocol("OTEL_EXPORTER_OTLP_PROTOCOL")},
		{"OTEL_TRACES_EXPORTER", "otlp"},
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL"} {
		if _, ok := lookup(k); ok {
			set = append(set, [2]string{k, protocol(k)})
		}
	}
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		overridden := false
		for _, s := range set {
			overridden = overridden || s[0] == k
		}
		if !overridden {
			env = append(env, kv)
		}
	}
	for _, s := range set {
		env = append(env, s[0]+"="+s[1])
	}
	return env
}

// conns counts the receiver's open connections: once CMD has exited, the
// exports still under way are those of connections still open.
type conns struct {
	mu   sync.Mutex
	open map[net.Conn]bool
}

func (c *conns) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch st {
	case http.StateNew, http.StateActive, http.StateIdle:
		c.open[conn] = true
	default:
		delete(c.open, conn)
	}
}

func (c *conns) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// memoryLimit is the Go runtime's soft limit while recording, unless
// GOMEMLIMIT sets one.
const memoryLimit = 40 << 20

// Run records: it listens, runs the command (or waits for a signal), and
// packs every trace that holds GenAI spans.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Idle <= 0 {
		cfg.Idle = 3 * time.Second
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The live data stays small (a span at a time, the spool's index,
		// the manifest); the collector is asked to keep garbage from
		// piling up past it when requests come fast.
		debug.SetMemoryLimit(memoryLimit)
	}
	addr, _, err := ListenAddr(cfg.Listen)
	if err != nil {
		return Result{}, err
	}
	var cmd *exec.Cmd
	if len(cfg.Command) > 0 {
		// Looked up before anything listens: a command that cannot run
		// records nothing.
		cmd = exec.Command(cfg.Command[0], cfg.Command[1:]...)
		if cmd.Err != nil {
			return Result{}, &NotFoundError{Name: cfg.Command[0], Err: cmd.Err}
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return Result{}, &ListenError{Addr: addr, Err: err}
	}
	url := "http://" + ln.Addr().String()
	rec := New(cfg.Options)
	defer rec.Close()
	cs := &conns{open: map[net.Conn]bool{}}
	srv := &http.Server{Handler: rec.Receiver(), ReadHeaderTimeout: 10 * time.Second, ConnState: cs.track}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if cfg.Listening != nil {
		cfg.Listening(url)
	}

	sweepDone := make(chan struct{})
	stopSweep := make(chan struct{})
	go func() {
		defer close(sweepDone)
		tick := time.NewTicker(min(max(cfg.Idle/4, 50*time.Millisecond), time.Second))
		defer tick.Stop()
		for {
			select {
			case <-stopSweep:
				return
			case now := <-tick.C:
				rec.Sweep(now)
			}
		}
	}()

	res := Result{}
	if cmd != nil {
		res.ExitCode, err = runCommand(cmd, cfg, url)
		if err != nil {
			close(stopSweep)
			<-sweepDone
			_ = srv.Close()
			return res, err
		}
		drain(cs, cfg.Drain)
	} else {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		select {
		case <-sigs:
		case <-ctx.Done():
		case err := <-served:
			signal.Stop(sigs)
			close(stopSweep)
			<-sweepDone
			return res, err
		}
		// A second signal ends ctx record at once.
		signal.Stop(sigs)
	}
	close(stopSweep)
	<-sweepDone
	shut, cancel := context.WithTimeout(context.Background(), max(cfg.Drain, time.Second))
	_ = srv.Shutdown(shut)
	cancel()
	rec.Flush()
	res.Summary = rec.Summary()
	return res, nil
}

// drain waits, once CMD has exited, until no connection is open, or at
// most d: exporters close theirs when their process ends.
func drain(cs *conns, d time.Duration) {
	deadline := time.Now().Add(d)
	for cs.count() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// runCommand runs CMD with its streams and the OTEL environment, passing
// on the signals ctx record gets (lib/child), and returns its exit status.
func runCommand(cmd *exec.Cmd, cfg Config, url string) (int, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = cfg.Stdin, cfg.Stdout, cfg.Stderr
	cmd.Env = otelEnv(os.Environ(), url)
	c, err := child.Start(cmd, child.Options{Forward: true, Interactive: cfg.Interactive})
	if err != nil {
		return 0, &NotFoundError{Name: cfg.Command[0], Err: err}
	}
	return c.Wait()
}
