// Package child runs the programs ctx starts on a user's behalf (ctx
// record's CMD, an MCP server and an MCP client, a verb the dispatcher
// cannot exec into): started on the streams the caller gave the
// exec.Cmd, the signals ctx gets passed on to it while it runs when asked,
// stopped politely (SIGTERM, then SIGKILL), with what it started when it
// runs in a process group of its own, waited for, and its end said
// as a shell says it (Status: 128+N when signal N ended it).
//
// It never decides what runs or with what: the caller builds the
// exec.Cmd. It imports nothing of ctx.
package child

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"time"
)

// Options control Start.
type Options struct {
	// Forward passes on to the child the signals ctx gets (Forwarded)
	// until it exits; ctx itself is not ended by them meanwhile.
	Forward bool
	// Interactive says the child shares ctx's terminal: SIGINT and
	// SIGQUIT typed there reach it directly, so they are not sent again.
	Interactive bool
	// Group starts the child in a process group of its own, so that Stop
	// also ends the programs it started and left behind (a server run
	// by npx, a grandchild that holds the child's output open). Signals
	// typed on a terminal then reach ctx only.
	Group bool
}

// Child is a started program.
type Child struct {
	cmd    *exec.Cmd
	group  bool
	done   chan struct{}
	status int
	err    error
}

// Start starts cmd. The child is waited for at once, so cmd's streams
// must not be pipes made by cmd.StdoutPipe and the like (exec.Cmd.Wait
// closes them): give it *os.File ends (os.Pipe) or any reader and writer.
func Start(cmd *exec.Cmd, opts Options) (*Child, error) {
	var sigs chan os.Signal
	if opts.Forward {
		// Registered before the start: a signal that comes at once is
		// passed on, not taken for ctx's own.
		sigs = make(chan os.Signal, 8)
		signal.Notify(sigs, Forwarded()...)
	}
	if opts.Group {
		newGroup(cmd)
	}
	if err := cmd.Start(); err != nil {
		if sigs != nil {
			signal.Stop(sigs)
		}
		return nil, err
	}
	c := &Child{cmd: cmd, group: opts.Group, done: make(chan struct{})}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	go func() {
		defer close(c.done)
		if sigs != nil {
			defer signal.Stop(sigs)
		}
		for {
			select {
			case sig := <-sigs: // never, when sigs is nil
				if opts.Interactive && fromTerminal(sig) {
					continue // the terminal sent it to the child as well
				}
				_ = cmd.Process.Signal(sig)
			case err := <-waited:
				c.status, c.err = Status(err)
				return
			}
		}
	}()
	return c, nil
}

// Done is closed once the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Wait waits for the child to exit and returns its Status.
func (c *Child) Wait() (int, error) {
	<-c.done
	return c.status, c.err
}

// Stop ends the child: SIGTERM (on Windows, which has none, a kill), and
// SIGKILL if it has not exited after grace; it returns once the child has
// exited. With Group, what is left of the child's group after it exited
// gets the same, at most grace more: nothing the child started outlives
// Stop.
func (c *Child) Stop(grace time.Duration) {
	select {
	case <-c.done:
	default:
		c.signal(terminate())
		select {
		case <-c.done:
		case <-time.After(grace):
			c.signal(os.Kill)
			<-c.done
		}
	}
	if c.group {
		endGroup(c.cmd.Process.Pid, grace)
	}
}

// signal sends sig to the child, or to its whole group with Group.
func (c *Child) signal(sig os.Signal) {
	if c.group && signalGroup(c.cmd.Process.Pid, sig) {
		return
	}
	_ = c.cmd.Process.Signal(sig)
}

// Status is a finished program's exit status as a shell says it: 0 for
// nil, its exit code, or 128+N when signal N ended it. An error that is
// not an exit status (the program could not be waited for) is returned.
func Status(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, err
	}
	if n, ok := signalled(ee); ok {
		return 128 + n, nil
	}
	if c := ee.ExitCode(); c >= 0 {
		return c, nil
	}
	return 1, nil
}
