#!/usr/bin/env bash
# bench/store.sh [BIN]: times ctx export, ctx import and ctx fsck side by
# side with what a user would otherwise reach for (tar for moving a store's
# files, find + sha256sum for checking them), on one generated store. ctx
# import makes what it stores durable; tar -x does not, so it is also
# timed followed by sync -f, which does the same.
# Runs alternate, RUNS times each (default 5); prints the median wall time,
# the median peak RSS and the ratio ctx/other. Needs GNU time at
# /usr/bin/time. BIN holds the ctx-* programs (default: build them).
#
#   PACKS=200 BIG_MB=64 RUNS=5 ./bench/store.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
PACKS=${PACKS:-200}
BIG_MB=${BIG_MB:-64}

work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-store.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/bin
	go build -o "$bin/" ./cmd/...
fi
bin=$(cd "$bin" && pwd)

# The store: PACKS runs with a 64 KiB input of their own, a shared input
# and a few small blobs, plus one run with a BIG_MB input given by path.
src=$work/src
mkdir -p "$src/logs"
"$bin/ctx-init" "$src" >/dev/null
head -c $((BIG_MB << 20)) /dev/urandom > "$src/logs/big.bin"
for i in $(seq 1 "$PACKS"); do
	own=$(head -c 49152 /dev/urandom | base64 -w0)
	printf '{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[{"role":"user","content":"task %d"}],"inputs":[{"name":"shared.txt","content":"shared\\n"},{"name":"own.bin","content_base64":"%s"}],"steps":[{"tool":"read_file","parameters":{"path":"own.bin"},"output":"read %d"},{"tool":"grep","parameters":{"q":"x"},"output":"hits %d"}]}\n' "$i" "$own" "$i" "$i" > "$src/logs/run.json"
	"$bin/ctx-pack" --store "$src/.ctx" --no-sidecars "$src/logs/run.json" >/dev/null
done
printf '{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"inputs":[{"name":"big.bin","path":"big.bin"}],"steps":[]}\n' > "$src/logs/big.json"
"$bin/ctx-pack" --store "$src/.ctx" --no-sidecars "$src/logs/big.json" >/dev/null
objects=$(find "$src/.ctx/objects" -type f | wc -l)
size=$(du -sm "$src/.ctx/objects" | cut -f1)
echo "store: $((PACKS + 1)) packs, $objects objects, ${size} MiB"

# measure NAME CMD...: runs CMD under /usr/bin/time, appends "seconds kib"
# to $work/NAME.
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
	"$bin/ctx-init" "$work/dst" >/dev/null
}

"$bin/ctx-export" --store "$src/.ctx" --all -o "$work/ctx.tar"
tar -cf "$work/tar.tar" -C "$src/.ctx" objects packs
for r in $(seq 1 "$RUNS"); do
	measure export-ctx "$bin/ctx-export" --store "$src/.ctx" --all -o "$work/ctx.tar"
	measure export-tar tar -cf "$work/tar.tar" -C "$src/.ctx" objects packs

	fresh
	measure import-ctx "$bin/ctx-import" --store "$work/dst/.ctx" "$work/ctx.tar"
	fresh
	measure import-tar tar -xf "$work/tar.tar" -C "$work/dst/.ctx"
	fresh
	measure import-tar+sync sh -c 'tar -xf "$1" -C "$2" && sync -f "$2"' sh "$work/tar.tar" "$work/dst/.ctx"

	measure fsck-ctx "$bin/ctx-fsck" --store "$src/.ctx"
	measure fsck-sha256sum sh -c 'cd "$1/objects" && find . -type f -exec sha256sum {} + > /dev/null' sh "$src/.ctx"
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
		printf "%-7s %-15s %6.2fs %7.1f MiB | %-15s %6.2fs %7.1f MiB | time ratio %s\n", w, o, t1, m1 / 1024, t, t2, m2 / 1024, r
	}'
}
echo "medians of $RUNS runs (wall time, peak RSS):"
report export export-ctx export-tar
report import import-ctx import-tar
report import import-ctx import-tar+sync
report fsck fsck-ctx fsck-sha256sum
