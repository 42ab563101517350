// Package faults_test holds the tests of ctx's programs under faults:
// killed or interrupted while they write (crash_test.go, crash_stream_test.go,
// crash_registry_test.go, checkout_killed_test.go), a damaged store as every
// verb meets it (corruption_test.go), and programs at once on one store, ctx
// gc beside writers among them (concurrency_test.go, gc_concurrency_test.go,
// gc_sweep_test.go, races_test.go). They are a package of their own, apart
// from the root's testscripts, so that go test runs the two side by side,
// each under its own -timeout. The helpers are internal/ctxtest's.
package faults_test

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/contextsubstrate/ctx/internal/ctxtest"
)

// TestMain puts every ctx-* program on PATH (as this test binary under
// the verb's name), so the tests run the real programs.
func TestMain(m *testing.M) {
	testscript.Main(m, ctxtest.Programs())
}
