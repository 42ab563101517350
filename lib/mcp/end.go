package mcp

import (
	"os"
	"os/signal"
	"syscall"
)

// Why a session ended, as ctx record and ctx serve say it (the JSON's
// "ended", the pack's metadata.mcp.ended).
const (
	// EndedClientClosed: the client closed its output, the stdio
	// transport's end of a session.
	EndedClientClosed = "client_closed"
	// EndedClientStoppedReading: a write to the client failed (EPIPE):
	// it closed its input, or exited.
	EndedClientStoppedReading = "client_stopped_reading"
	// EndedClientExited: the client program (ctx record --mcp-url CMD)
	// exited.
	EndedClientExited = "client_exited"
	// EndedServerExited: the server ended (or closed its output) before
	// the client left.
	EndedServerExited = "server_exited"
	// EndedSignal: SIGINT or SIGTERM.
	EndedSignal = "signal"
)

// ignoreSIGPIPE makes a write to a client that went away fail with EPIPE
// instead of ending ctx by SIGPIPE (what every other verb does, as git
// does): the session ends, and what came is packed. The signal is caught,
// not ignored, so the programs ctx starts get it as usual.
func ignoreSIGPIPE() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// endedSentence says why a session ended, for a note.
func endedSentence(ended string) string {
	switch ended {
	case EndedClientClosed:
		return "the client closed the session"
	case EndedClientStoppedReading:
		return "the client stopped reading"
	case EndedClientExited:
		return "the client exited"
	case EndedServerExited:
		return "the server ended first"
	case EndedSignal:
		return "ended by a signal"
	}
	return ""
}
