// Package replay re-executes the steps of a pack and compares each output's
// SHA-256 with the recorded one: the step runner, the workspace the steps
// run in, and the executors that run them (ctx-tool-NAME programs, tools
// from .ctx/config.json, and the built-in file and shell tools).
//
// It must never let a path taken from a pack reach outside the workspace
// (no "..", no absolute path, no symlink that leaves it), never run a
// program on a pack's own authority (shell tools need AllowExec; only
// programs the user installed run otherwise), never stop at a failed step,
// and never write to the store except to save a replay as a new pack.
package replay
