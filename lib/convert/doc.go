// Package convert turns the transcripts real agents write (the formats of
// Formats, one reader file each; docs/CONVERT.md describes each) into a
// ctx execution log: the NDJSON event form of contract section 4, ready
// for `ctx pack -` (several logs one after another when the transcript
// holds several runs).
//
// Every format maps onto the same shape: the system prompt and user turns
// become the run's prompts, assistant text becomes non-deterministic
// model_call steps, each tool call becomes a tool_call step paired with its
// result by id, and files whose written content the transcript shows become
// outputs. A call that never ran is marked rejected, and where the agent
// shows a result in its own form the plain result replay's executors give
// is recorded beside it. What has no place in a log is kept under metadata.
//
// It must never drop part of a transcript without saying so (a warning, or
// a rule written in docs/CONVERT.md); every reader is held to account for
// the call-like records of its input (account.go), and losing them all is
// an error, never put the time of conversion or
// anything about the converting machine into the log, never let a path from
// a transcript become a name outside the run's working directory, and never
// touch a store: its only output is the log.
package convert
