#!/usr/bin/env bash
# bench/diff.sh: times `ctx diff` of two generated 10,000-step packs that
# differ at 1% of their steps, side by side with `jq -S . a.json b.json`
# over the two manifests (the least a jq-based check would do), in one run,
# alternating, several runs each. Prints the median wall time and peak RSS
# of each command and the ratio of each ctx row to jq.
#
#   bench/diff.sh [BIN]        BIN holds the ctx-* programs (default: built
#                              into a temporary directory)
#   RUNS=11 STEPS=20000 bench/diff.sh
set -euo pipefail

runs=${RUNS:-7}
steps=${STEPS:-10000}
jq=${JQ:-/usr/bin/jq}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT

bin=${1:-}
if [ -z "$bin" ]; then
  bin=$work/bin
  (cd "$here" && go build -o "$bin/" ./cmd/...)
fi
bin=$(cd "$bin" && pwd)
command -v "$jq" >/dev/null || { echo "bench/diff.sh: $jq not found (set JQ)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/diff.sh: /usr/bin/time not found (GNU time, for peak RSS)" >&2; exit 2; }

# gen SIDE: an execution log of $steps steps. B differs from A at 1% of the
# steps: half of those in a parameter, half in the output.
gen() {
  awk -v side="$1" -v n="$steps" 'BEGIN {
    split("read_file edit_file bash grep", tool, " ")
    printf "{\"created\":\"2026-01-01T00:00:00Z\",\"model\":{\"identifier\":\"m\",\"parameters\":{\"temperature\":0}},"
    printf "\"system_prompt\":\"You are a careful coding agent.\",\"prompts\":[{\"role\":\"user\",\"content\":\"Fix every failing test\"}],"
    printf "\"steps\":[\n"
    for (i = 0; i < n; i++) {
      line = i % 500
      out = "step " i ": package p" int(i / 100) "; func F" i "() { return " line " } // the output of a tool call, about two hundred bytes long, like a small file read"
      if (side == "b" && i % 200 == 37) line = line + 1
      if (side == "b" && i % 200 == 137) out = out " (changed)"
      printf "%s{\"tool\":\"%s\",\"parameters\":{\"path\":\"src/p%d/f%d.go\",\"line\":%d,\"context\":3},\"output\":\"%s\",\"timestamp\":\"2026-01-01T00:00:00Z\"}\n", (i ? "," : ""), tool[i % 4 + 1], int(i / 100), i, line, out
    }
    printf "],\"outputs\":[{\"name\":\"report.md\",\"content\":\"done %s\"}],\"environment\":{\"os\":\"linux\",\"tool_versions\":{\"bash\":\"5.2\"}}}\n", side
  }'
}

cd "$work"
gen a > a.log.json
gen b > b.log.json
"$bin/ctx-init" >/dev/null
A=$("$bin/ctx-pack" a.log.json)
B=$("$bin/ctx-pack" b.log.json)
"$bin/ctx-show" --json "$A" > a.json
"$bin/ctx-show" --json "$B" > b.json
drift=$("$bin/ctx-diff" "$A" "$B" | "$jq" .summary.total || true)

labels=("ctx diff A B (packs)" "ctx diff a.json b.json" "ctx diff --align=sequence" "jq -S . a.json b.json")
cmds=(
  "$bin/ctx-diff $A $B"
  "$bin/ctx-diff a.json b.json"
  "$bin/ctx-diff --align=sequence $A $B"
  "$jq -S . a.json b.json"
)

# time_one CMD: prints "milliseconds peak-RSS-KiB".
time_one() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f %M -o rss.txt $1 >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(tail -1 rss.txt)"
}

for k in "${!cmds[@]}"; do : > "times.$k"; done
for ((r = 0; r < runs; r++)); do
  for k in "${!cmds[@]}"; do time_one "${cmds[$k]}" >> "times.$k"; done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
jqms=$(cut -d' ' -f1 "times.$(( ${#cmds[@]} - 1 ))" | median)

echo "ctx diff vs jq: two packs of $steps steps differing at 1% ($drift drift entries), manifests $(du -k a.json | cut -f1) KiB each"
echo "$runs runs each, alternating; medians"
printf '%-30s %10s %12s %10s\n' command wall_ms peak_rss_kib vs_jq
for k in "${!cmds[@]}"; do
  ms=$(cut -d' ' -f1 "times.$k" | median)
  rss=$(cut -d' ' -f2 "times.$k" | median)
  printf '%-30s %10s %12s %10s\n' "${labels[$k]}" "$ms" "$rss" "$(echo "scale=2; $ms / $jqms" | bc)x"
done
