package cli

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// OnSignal arranges for cleanup to run, and the program to exit 130, when
// SIGINT or SIGTERM arrives before stop is called; stop may be called more than once. Verbs that leave
// temporary files behind while they work use it; the others keep the default
// behaviour of dying at once, so a verb blocked on its input can always be
// interrupted.
func OnSignal(cleanup func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
			cleanup()
			os.Exit(130)
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}
