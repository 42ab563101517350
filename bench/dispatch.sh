#!/usr/bin/env bash
# bench/dispatch.sh [BIN]: what going through the ctx dispatcher costs.
#
#   ctx show latest    vs  ctx-show latest          (the exec hop, per call)
#   ctx help           vs  bash -c 'compgen -c ctx-' (listing ctx-* programs
#                          on a PATH with 2000 of them)
#
# Each pair runs alternately, RUNS samples of REPS calls each; it prints the
# median time per call, the ratio ctx/other, and the median peak RSS
# (/usr/bin/time -f %M) of each side. BIN defaults to bin/ (make build).
set -euo pipefail

bin=$(cd "${1:-bin}" && pwd)
runs=${RUNS:-7}
reps=${REPS:-40}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for p in ctx ctx-init ctx-pack ctx-show; do
	[ -x "$bin/$p" ] || { echo "bench/dispatch.sh: $bin/$p is missing (run make build)" >&2; exit 2; }
done

cd "$work"
"$bin/ctx-init" >/dev/null
"$bin/ctx-pack" --no-sidecars "$here/testdata/corpus/contextsubstrate-examples/claude-code.json" >/dev/null

# A PATH directory crowded with ctx-* programs, for the listing.
mkdir crowd
for i in $(seq 1 2000); do printf '#!/bin/sh\n' > "crowd/ctx-plugin$i"; done
chmod 755 crowd/*
crowded_path="$work/crowd:$PATH"

# usec_per_call CMD...: microseconds per call, over $reps calls.
usec_per_call() {
	local start end i
	start=$(date +%s%N)
	for ((i = 0; i < reps; i++)); do "$@" >/dev/null 2>&1; done
	end=$(date +%s%N)
	echo $(((end - start) / reps / 1000))
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

peak_rss_kib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }

# compare LABEL -- CTX-COMMAND... -- OTHER-COMMAND...
compare() {
	local label=$1; shift; shift
	local a=() b=()
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	local ta=() tb=() ra=() rb=() r
	for ((r = 0; r < runs; r++)); do
		ta+=("$(usec_per_call "${a[@]}")")
		tb+=("$(usec_per_call "${b[@]}")")
		ra+=("$(peak_rss_kib "${a[@]}")")
		rb+=("$(peak_rss_kib "${b[@]}")")
	done
	local ma mb mra mrb
	ma=$(printf '%s\n' "${ta[@]}" | median)
	mb=$(printf '%s\n' "${tb[@]}" | median)
	mra=$(printf '%s\n' "${ra[@]}" | median)
	mrb=$(printf '%s\n' "${rb[@]}" | median)
	printf '%-34s %9s us %9s us %7s %9s KiB %9s KiB\n' "$label" "$ma" "$mb" \
		"$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.2fx", (b ? a / b : 0) }')" "$mra" "$mrb"
}

printf '%-34s %12s %12s %7s %13s %13s\n' "$runs runs x $reps calls, medians" "ctx" "other" "ratio" "ctx rss" "other rss"
compare "ctx show latest / ctx-show latest" -- "$bin/ctx" show latest -- "$bin/ctx-show" latest
export PATH="$crowded_path"
compare "ctx help / compgen -c ctx- (2000)" -- "$bin/ctx" help -- bash -c 'compgen -c ctx-'
