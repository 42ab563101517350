#!/bin/sh
# bench/replay.sh [BIN]: ctx replay of a generated pack with 10,000 built-in
# read steps over 1,000 input files, side by side with what a user would
# otherwise reach for to re-read and re-hash the same files: xargs sha256sum
# over the same 10,000 paths in a checked-out tree. ctx runs twice: as a
# user runs it (a temporary workspace the 1,000 inputs are copied into and
# removed from), and with --workdir on the checked-out tree, which leaves
# the per-step cost alone. Runs alternate, RUNS times each (default 5); the
# medians, the ratios, the steps per second and replay's overhead per step
# beyond the reads themselves are printed, with the peak RSS of each.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$root/bin}" && pwd)
runs=${RUNS:-5}
files=1000
steps=10000
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work"

# The run: file i is 40 lines (about 2 KiB) under src/dNN/; step s reads
# file (7s mod 1000) and recorded its content. The same files go into
# tree/ for the baseline, and paths.txt lists what the steps read.
awk -v files=$files -v steps=$steps '
function content(i, nl,   l, s) {
	s = ""
	for (l = 0; l < 40; l++) s = s sprintf("line %02d of file %04d: the quick brown fox jumps%s", l, i, nl)
	return s
}
function name(i) { return sprintf("src/d%02d/f%04d.go", i % 50, i) }
BEGIN {
	printf "{\"created\":\"2026-01-01T00:00:00Z\",\"model\":{\"identifier\":\"m\"},\"prompts\":[],\"inputs\":[" > "run.json"
	for (i = 0; i < files; i++) {
		printf "%s{\"name\":\"%s\",\"content\":\"%s\"}", (i ? "," : ""), name(i), content(i, "\\n") > "run.json"
		dir = sprintf("tree/src/d%02d", i % 50)
		if (!(dir in made)) { system("mkdir -p " dir); made[dir] = 1 }
		printf "%s", content(i, "\n") > ("tree/" name(i))
		close("tree/" name(i))
	}
	printf "],\"steps\":[" > "run.json"
	for (s = 0; s < steps; s++) {
		i = (s * 7) % files
		printf "%s{\"tool\":\"read_file\",\"parameters\":{\"path\":\"%s\"},\"output\":\"%s\"}", (s ? "," : ""), name(i), content(i, "\\n") > "run.json"
		print name(i) > "paths.txt"
	}
	printf "]}\n" > "run.json"
}'

"$bin/ctx-init" >/dev/null
pack=$("$bin/ctx-pack" run.json)
"$bin/ctx-replay" "$pack" | tail -1 | grep -q '"status":"exact"' || { echo "bench/replay.sh: the replay is not exact" >&2; exit 1; }
"$bin/ctx-replay" --workdir tree "$pack" | tail -1 | grep -q '"status":"exact".*"drift":\[\]' || { echo "bench/replay.sh: the replay of tree/ is not exact" >&2; exit 1; }

# measure NAME CMD...: appends "seconds kilobytes" to NAME.times.
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o time.out "$@" >/dev/null
	cat time.out >> "$name.times"
}
i=0
while [ $i -lt "$runs" ]; do
	measure ctx "$bin/ctx-replay" "$pack"
	measure sha256sum sh -c 'cd tree && xargs sha256sum < ../paths.txt'
	measure workdir "$bin/ctx-replay" --workdir tree "$pack"
	i=$((i + 1))
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ctx_s=$(cut -d' ' -f1 ctx.times | median)
ctx_kb=$(cut -d' ' -f2 ctx.times | median)
sum_s=$(cut -d' ' -f1 sha256sum.times | median)
sum_kb=$(cut -d' ' -f2 sha256sum.times | median)
wd_s=$(cut -d' ' -f1 workdir.times | median)
wd_kb=$(cut -d' ' -f2 workdir.times | median)
awk -v c="$ctx_s" -v ck="$ctx_kb" -v s="$sum_s" -v sk="$sum_kb" -v w="$wd_s" -v wk="$wd_kb" -v n=$steps -v f=$files -v runs="$runs" 'BEGIN {
	printf "replay of %d built-in read steps over %d files, median of %d runs\n", n, f, runs
	printf "  ctx replay                 %7.3f s  %7d KiB peak RSS  %9.0f steps/s\n", c, ck, (c > 0 ? n / c : 0)
	printf "  ctx replay --workdir tree  %7.3f s  %7d KiB peak RSS  %9.0f steps/s\n", w, wk, (w > 0 ? n / w : 0)
	printf "  xargs sha256sum            %7.3f s  %7d KiB peak RSS\n", s, sk
	printf "  ratio ctx/sha256sum           %5.2f (--workdir: %.2f)\n", (s > 0 ? c / s : 0), (s > 0 ? w / s : 0)
	printf "  overhead per step          %7.1f us beyond the reads (--workdir: %.1f us)\n", (c - s) / n * 1e6, (w - s) / n * 1e6
}'
