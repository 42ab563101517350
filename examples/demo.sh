#!/bin/sh
# demo.sh BIN: the main job of ctx on the bundled examples, in a scratch
# directory, with the programs built in BIN (make demo builds them).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/bin}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

say() { printf '\n$ %s\n' "$*"; }
run() { say "$@"; "$@"; }

# The example replay executor, built beside the ctx programs, where replay
# looks for ctx-tool-NAME.
(cd "$root" && go build -o "$bin/" ./examples/ctx-tool-example)

cd "$work"
run "$bin/ctx-init"
say "$bin/ctx-pack $root/examples/replay/run.json"
pack=$("$bin/ctx-pack" "$root/examples/replay/run.json")
echo "$pack"

# Replay: the glob, the reads, the edit and the example plugin run again and
# match; the bash step is recorded (no --allow-exec), and so is the model
# call. The plugin reports 1.1.0 where the run recorded 1.0.0: dependency
# drift, which does not make the replay less exact.
run "$bin/ctx-replay" --human "$pack"

# The same as NDJSON, one line per step, for jq and ctx diff.
say "$bin/ctx-replay $pack | head -3"
"$bin/ctx-replay" "$pack" | head -3

# Saved as a new pack whose parent is the run.
say "$bin/ctx-replay --save $pack | tail -1"
"$bin/ctx-replay" --save "$pack" | tail -1
run "$bin/ctx-show" latest

# A run from another framework: its write_file said "File written" with
# another byte count than the built-in, so that step diverges (exit 1).
pack=$("$bin/ctx-pack" "$root/testdata/corpus/contextsubstrate-examples/langchain.json")
say "$bin/ctx-replay --human $pack"
"$bin/ctx-replay" --human "$pack" || echo "(exit status $?: degraded)"
