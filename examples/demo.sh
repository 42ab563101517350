#!/bin/sh
# demo.sh BIN: the main job of ctx on the example runs under examples/runs,
# in a scratch directory, with the programs built in BIN (make demo builds
# them): make a store, pack two attempts at one task, show one, diff them,
# replay one, and verify the file it produced. The work directory (the
# store, the runs and their sidecars) stays in BIN/demo, made anew by each
# demo, and the HTML diff of the two runs in BIN/demo-diff.html.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/bin}" && pwd)
work=$bin/demo
rm -rf "$work"
mkdir -p "$work"

# The example replay executor is built beside the ctx programs, where
# replay looks for ctx-tool-NAME; ctx runs the verbs from its own directory.
(cd "$root" && go build -o "$bin/" ./examples/ctx-tool-example)
PATH=$bin:$PATH
export PATH

say() { printf '\n$ %s\n' "$*"; }
run() { say "$@"; "$@"; }
# Drift, degraded replays and failed verifications exit 1 by design.
finding() { say "$@"; "$@" || echo "(exit status $?)"; }

cp -R "$root/examples/runs" "$work/runs"
cd "$work"

run ctx init

# Two attempts at the same task. Each run's output file exists on disk, so
# ctx pack writes a provenance sidecar beside it.
say ctx pack --tag first runs/rename/run.json
first=$(ctx pack --tag first runs/rename/run.json)
echo "$first"
say ctx pack --tag retry runs/rename-retry/run.json
retry=$(ctx pack --tag retry runs/rename-retry/run.json)
echo "$retry"
run ctx log
run ctx show first

# Where did the second attempt go another way?
finding ctx diff --human first retry
# The same report as JSON, for jq and CI (here only its summary).
say "ctx diff first retry   # JSON; its summary:"
ctx diff first retry | sed 's/.*"summary":\({[^}]*}\).*/\1/' || true
# And as one HTML page, the two runs side by side, kept after the demo.
page=$bin/demo-diff.html
finding ctx diff --html -o "$page" first retry
echo "the HTML diff of the two runs is $page: open it in a browser"

# Replay the first run step by step in a fresh workspace: the glob, the
# reads, the edit and the example plugin run again and match; the shell
# step and the model call are recorded (no --allow-exec). The plugin
# reports 1.1.0 where the run recorded 1.0.0: dependency drift.
finding ctx replay --human first

# Is the file on disk the one the first run produced?
run cat runs/rename/src/main.py.ctx.json
run ctx verify --human runs/rename/src/main.py
say "printf '# edited by hand\\n' >> runs/rename/src/main.py"
printf '# edited by hand\n' >> runs/rename/src/main.py
finding ctx verify --human runs/rename/src/main.py

# The store checks out clean.
run ctx fsck --human

cat <<EOF

The demo's store and runs are kept in $work: try
  cd $work && $bin/ctx log && $bin/ctx show --html -o run.html first
EOF
