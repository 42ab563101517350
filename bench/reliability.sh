#!/usr/bin/env bash
# bench/reliability.sh [BIN]: what ctx pack's safety costs, side by side
# with what a user would otherwise reach for to keep a durable,
# content-named copy of the same files:
#   - a large input by path (a sparse file of SIZE_MB, default 1024: reads
#     give zeros without disk use): ctx pack against sha256sum, cp and
#     sync -f;
#   - a run of FILES small files by path (default 2000): ctx pack against
#     sha256sum, cp -r and sync -f.
# ctx pack hashes, writes to temporary files, syncs, links into place and
# writes the manifest, index entry and refs; the others hash, copy and sync.
# Runs alternate, RUNS times each (default 5); prints the median wall time,
# the median peak RSS and the ratio ctx/other. Needs GNU time at
# /usr/bin/time. BIN holds the ctx-* programs (default: build them).
#
#   SIZE_MB=1024 FILES=2000 RUNS=5 ./bench/reliability.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SIZE_MB=${SIZE_MB:-1024}
FILES=${FILES:-2000}

work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-reliability.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/bin
	go build -o "$bin/" ./cmd/...
fi
bin=$(cd "$bin" && pwd)

src=$work/src
mkdir -p "$src/tree"
truncate -s "${SIZE_MB}M" "$src/huge.bin"
printf '{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[{"path":"huge.bin"}]}\n' > "$src/huge.json"
{
	printf '{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":['
	for i in $(seq 1 "$FILES"); do
		printf 'file %d of the tree\n' "$i" > "$src/tree/f$i.txt"
		[ "$i" -gt 1 ] && printf ','
		printf '{"path":"tree/f%d.txt"}' "$i"
	done
	printf ']}\n'
} > "$src/tree.json"
echo "inputs: a sparse file of $SIZE_MB MiB; a tree of $FILES files"

measure() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$work/time.out" "$@" >/dev/null 2>"$work/err.out" || {
		echo "failed: $*" >&2
		cat "$work/err.out" >&2
		exit 1
	}
	cat "$work/time.out" >> "$work/$name"
}

fresh() {
	chmod -R u+w "$work/dst" 2>/dev/null || true
	rm -rf "$work/dst"
	mkdir -p "$work/dst"
	"$bin/ctx-init" "$work/dst" >/dev/null
}

for r in $(seq 1 "$RUNS"); do
	fresh
	measure huge-ctx "$bin/ctx-pack" --store "$work/dst/.ctx" --no-sidecars "$src/huge.json"
	fresh
	measure huge-cp sh -c 'sha256sum "$1" >/dev/null && cp "$1" "$2/" && sync -f "$2"' sh "$src/huge.bin" "$work/dst"
	fresh
	measure tree-ctx "$bin/ctx-pack" --store "$work/dst/.ctx" --no-sidecars "$src/tree.json"
	fresh
	measure tree-cp sh -c 'cd "$1" && find tree -type f -exec sha256sum {} + >/dev/null && cp -r tree "$2/" && sync -f "$2"' sh "$src" "$work/dst"
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
report() {
	local what=$1 ours=$2 theirs=$3
	local t1 t2 m1 m2
	t1=$(cut -d' ' -f1 "$work/$ours" | median)
	t2=$(cut -d' ' -f1 "$work/$theirs" | median)
	m1=$(cut -d' ' -f2 "$work/$ours" | median)
	m2=$(cut -d' ' -f2 "$work/$theirs" | median)
	awk -v w="$what" -v o="$ours" -v t="$theirs" -v t1="$t1" -v t2="$t2" -v m1="$m1" -v m2="$m2" 'BEGIN {
		r = (t2 > 0) ? sprintf("%.2fx", t1 / t2) : "n/a"
		printf "%-5s %-9s %6.2fs %7.1f MiB | %-8s %6.2fs %7.1f MiB | time ratio %s\n", w, o, t1, m1 / 1024, t, t2, m2 / 1024, r
	}'
}
echo "medians of $RUNS runs (wall time, peak RSS):"
report huge huge-ctx huge-cp
report tree tree-ctx tree-cp
