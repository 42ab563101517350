#!/usr/bin/env bash
# bench/log.sh [BIN]: ctx log over a store of N packs, side by side with
# git log --oneline over a repository of N commits, the tool a user would
# otherwise reach for. Runs alternate (git, ctx warm, ctx cold), RUNS times
# each; prints the median wall time and peak RSS of each, and the ratios.
#
#   warm: the cache of the whole index is in place (packs/ unchanged since
#         the last ctx log): the usual case.
#   cold: no cache (the first ctx log after packs/ changed): every index
#         entry is read, and the cache is written again.
#
# BIN holds ctx-log (default: built into a temporary directory). N=10000
# and RUNS=11 can be set in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
RUNS=${RUNS:-11}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-log.XXXXXX")
trap 'rm -rf "$work"' EXIT

bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/bin
	go build -o "$bin/" ./cmd/ctx-log
fi
bin=$(cd "$bin" && pwd)
go build -o "$work/genpacks" ./bench/genpacks

echo "making a store of $N packs and a git repository of $N commits..." >&2
"$work/genpacks" -store "$work/store/.ctx" -n "$N"
mkdir "$work/repo"
git -C "$work/repo" init -q
awk -v n="$N" 'BEGIN {
	for (i = 0; i < n; i++) {
		msg = sprintf("run %d: fix the failing test\n", i)
		data = sprintf("run %d\n", i)
		printf "commit refs/heads/main\nmark :%d\ncommitter ctx <ctx@example.com> %d +0000\n", i + 1, 1767225600 + i * 60
		printf "data %d\n%s", length(msg), msg
		if (i > 0) printf "from :%d\n", i
		printf "M 644 inline f.txt\ndata %d\n%s\n", length(data), data
	}
}' | git -C "$work/repo" fast-import --quiet
git -C "$work/repo" checkout -q main 2>/dev/null || true
[ "$(git -C "$work/repo" rev-list --count main)" = "$N" ] || { echo "bench/log.sh: the repository does not have $N commits" >&2; exit 1; }

# The cache is written only once packs/ has been still for a second.
sleep 1.1
(cd "$work/store" && "$bin/ctx-log" >/dev/null && "$bin/ctx-log" | wc -l) | grep -qx "$N" ||
	{ echo "bench/log.sh: ctx log does not list $N packs" >&2; exit 1; }
[ -f "$work/store/.ctx/cache/log" ] || { echo "bench/log.sh: no cache was written" >&2; exit 1; }

# run NAME DIR CMD...: one timed run; appends "microseconds kilobytes".
run() {
	local name=$1 dir=$2
	shift 2
	local s e
	s=$(date +%s%N)
	(cd "$dir" && /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null)
	e=$(date +%s%N)
	echo "$(((e - s) / 1000)) $(cat "$work/rss")" >>"$work/$name"
}

for _ in $(seq "$RUNS"); do
	run git "$work/repo" env GIT_PAGER=cat git log --oneline
	run warm "$work/store" "$bin/ctx-log"
	cp "$work/store/.ctx/cache/log" "$work/cache.keep"
	rm "$work/store/.ctx/cache/log"
	run cold "$work/store" "$bin/ctx-log"
	cp "$work/cache.keep" "$work/store/.ctx/cache/log"
done

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
printf '%-28s %12s %12s\n' "N=$N, $RUNS runs each" "median ms" "peak RSS KB"
for name in git warm cold; do
	t=$(cut -d' ' -f1 "$work/$name" | median)
	m=$(cut -d' ' -f2 "$work/$name" | median)
	echo "$t" >"$work/$name.t"
	case $name in
	git) label="git log --oneline" ;;
	warm) label="ctx log (cache)" ;;
	cold) label="ctx log (no cache)" ;;
	esac
	printf '%-28s %12.1f %12d\n' "$label" "$(echo "$t / 1000" | bc -l)" "$m"
done
g=$(cat "$work/git.t")
printf 'ratio ctx/git: %.2f with the cache, %.2f without\n' \
	"$(echo "$(cat "$work/warm.t") / $g" | bc -l)" "$(echo "$(cat "$work/cold.t") / $g" | bc -l)"
