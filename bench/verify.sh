#!/usr/bin/env bash
# bench/verify.sh: times ctx verify side by side with what a user would
# otherwise reach for, sha256sum -c against a checksum file, on the same
# files in one run: runs alternate, each tool runs RUNS times, and the
# medians of wall time, CPU time (user + system) and peak RSS are printed
# with their ratios.
#
#   bench/verify.sh [BIN]     BIN holds the ctx-* programs (default: build them)
#
# Environment: RUNS (default 5), FILES (tree size, default 2000), BIG_MB
# (size of the one large artifact, default 256).
#
# ctx verify does more than sha256sum: it reads each sidecar and rehashes
# every object of the pack (here the outputs' blobs, as large as the
# artifacts), so about twice the bytes are hashed. Timings on a shared
# machine are preliminary.
set -euo pipefail

RUNS=${RUNS:-5}
FILES=${FILES:-2000}
BIG_MB=${BIG_MB:-256}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-verify.XXXXXX")
trap 'rm -rf "$work"' EXIT

bin=${1:-}
if [ -z "$bin" ]; then
  bin=$work/bin
  (cd "$here" && go build -o "$bin/" ./cmd/...)
fi
bin=$(cd "$bin" && pwd)
[ -x /usr/bin/time ] || { echo "bench/verify.sh: /usr/bin/time is needed for peak RSS" >&2; exit 2; }

# A run whose outputs are files given by path: FILES small ones in a tree,
# and one large one.
cd "$work"
"$bin/ctx-init" >/dev/null
python3 - "$FILES" "$BIG_MB" <<'EOF'
import json, os, sys
files, big_mb = int(sys.argv[1]), int(sys.argv[2])
outs = []
for i in range(files):
    d = "dist/%02d" % (i % 50)
    os.makedirs(d, exist_ok=True)
    p = "%s/%05d.txt" % (d, i)
    with open(p, "w") as f:
        f.write(("line %d of artifact %d\n" % (0, i)) * 200)
    outs.append({"name": p, "path": p})
with open("big.bin", "wb") as f:
    chunk = os.urandom(1 << 20)
    for _ in range(big_mb):
        f.write(chunk)
outs.append({"name": "big.bin", "path": "big.bin"})
json.dump({"created": "2026-01-01T00:00:00Z", "model": {"identifier": "bench"},
           "prompts": [], "steps": [{"tool": "write_file", "output": "ok"}],
           "outputs": outs}, open("run.json", "w"))
EOF
"$bin/ctx-pack" run.json >/dev/null
find dist -name '*.txt' | sort | xargs sha256sum > dist.sha256
sha256sum big.bin > big.sha256

# measure CMD...: prints "wall_seconds cpu_seconds peak_kib" of one run.
# CPU time (user + system) says more than wall time on a busy machine.
measure() {
  /usr/bin/time -o "$work/time.out" -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
  tail -1 "$work/time.out" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# compare NAME "CTX CMD" "OTHER CMD": alternating runs, then medians.
compare() {
  local name=$1 ctx_cmd=$2 other_cmd=$3 i t c m
  local ctx_t=() ctx_c=() ctx_m=() oth_t=() oth_c=() oth_m=()
  # One untimed run each, so both start with a warm page cache; both must
  # pass, or the comparison means nothing.
  eval "$ctx_cmd" >/dev/null || { echo "bench/verify.sh: $ctx_cmd failed" >&2; exit 1; }
  eval "$other_cmd" >/dev/null || { echo "bench/verify.sh: $other_cmd failed" >&2; exit 1; }
  for ((i = 0; i < RUNS; i++)); do
    read -r t c m < <(eval "measure $ctx_cmd")
    ctx_t+=("$t"); ctx_c+=("$c"); ctx_m+=("$m")
    read -r t c m < <(eval "measure $other_cmd")
    oth_t+=("$t"); oth_c+=("$c"); oth_m+=("$m")
  done
  local ct cc cm ot oc om
  ct=$(printf '%s\n' "${ctx_t[@]}" | median); cc=$(printf '%s\n' "${ctx_c[@]}" | median); cm=$(printf '%s\n' "${ctx_m[@]}" | median)
  ot=$(printf '%s\n' "${oth_t[@]}" | median); oc=$(printf '%s\n' "${oth_c[@]}" | median); om=$(printf '%s\n' "${oth_m[@]}" | median)
  printf '%-30s %8s s wall %8s s cpu %9s KiB peak RSS\n' "$name: ctx verify" "$ct" "$cc" "$cm"
  printf '%-30s %8s s wall %8s s cpu %9s KiB peak RSS\n' "$name: sha256sum -c" "$ot" "$oc" "$om"
  awk -v a="$ct" -v b="$ot" -v c="$cc" -v d="$oc" -v e="$cm" -v f="$om" '
    function ratio(x, y) { return y > 0 ? sprintf("%.2fx", x / y) : "-" }
    BEGIN { printf "%-30s %9s wall %9s cpu %10s peak RSS  (ctx / sha256sum)\n", "ratio", ratio(a, b), ratio(c, d), ratio(e, f) }'
  echo
}

echo "ctx verify vs sha256sum -c, median of $RUNS alternating runs each ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
compare "tree of $FILES files" "'$bin/ctx-verify' -r dist" "sha256sum --quiet -c dist.sha256"
compare "one ${BIG_MB} MiB file" "'$bin/ctx-verify' big.bin" "sha256sum --quiet -c big.sha256"
