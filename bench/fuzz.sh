#!/usr/bin/env bash
# fuzz.sh: run every go test -fuzz target of the module for FUZZTIME each
# (default 30s), one after the other, and print one line per target.
#
#   ./bench/fuzz.sh 10m            # every target, ten minutes each
#   ./bench/fuzz.sh 1m Import      # only targets whose name matches
#
# A failing input is written by Go under the package's
# testdata/fuzz/<Target>/ (commit it: it becomes part of the seed corpus);
# the full output of each run is in bench/out/fuzz-<Target>.log.
set -u
cd "$(dirname "$0")/.."
fuzztime=${1:-30s}
match=${2:-.}
mkdir -p bench/out
failed=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' | grep -E "$match"); do
    log=bench/out/fuzz-$target.log
    start=$(date +%s)
    if go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 10s "$pkg" >"$log" 2>&1; then
      status=ok
    else
      status=FAIL
      failed=1
    fi
    execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    printf '%-6s %-28s %-48s %6ss %12s execs\n' "$status" "$target" "${pkg#github.com/contextsubstrate/ctx/}" "$(( $(date +%s) - start ))" "${execs:-?}"
  done
done
exit $failed
