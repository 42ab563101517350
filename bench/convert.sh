#!/usr/bin/env bash
# bench/convert.sh: times `ctx convert` (and `ctx convert | ctx pack -`) on
# the largest transcript of the corpus and on a generated Claude Code
# session of about 50 MB, side by side with what a user would otherwise
# run over the same bytes: a one-pass `jq -c` projection of the tool calls,
# and `sha256sum` as the floor of reading them once. Each command runs in
# turn, several times; the table shows median wall time, MB/s of input and
# peak RSS (the largest process of a pipeline), and the ratio to jq.
#
#   bench/convert.sh [BIN]     BIN holds the ctx-* programs (default: built
#                              into a temporary directory)
#   RUNS=7 MB=50 bench/convert.sh
set -euo pipefail

runs=${RUNS:-5}
mb=${MB:-50}
jq=${JQ:-jq}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-convert.XXXXXX")
trap 'rm -rf "$work"' EXIT

bin=${1:-}
if [ -z "$bin" ]; then
  bin=$work/bin
  (cd "$here" && go build -o "$bin/" ./cmd/...)
fi
bin=$(cd "$bin" && pwd)
command -v "$jq" >/dev/null || { echo "bench/convert.sh: $jq not found (set JQ)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/convert.sh: /usr/bin/time not found (GNU time, for peak RSS)" >&2; exit 2; }

# gen MB: a Claude Code session of about MB megabytes: one prompt, then
# turns of assistant text and a Read, Edit or Bash call with its result (and
# the toolUseResult Claude Code keeps beside it), over 40 files in a
# temporary working directory.
gen() {
  awk -v target=$(( $1 * 1000000 )) 'BEGIN {
    cwd = "/tmp/tmpbench01"
    body = ""
    for (k = 0; k < 40; k++) body = body "    value_" k " = compute(" k ", limit=1024)\\n"
    env = "\"sessionId\":\"bench\",\"version\":\"2.1.14\",\"cwd\":\"" cwd "\",\"gitBranch\":\"main\",\"userType\":\"external\",\"isSidechain\":false"
    printf "{\"type\":\"user\",%s,\"uuid\":\"u0\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"Refactor the compute module and keep the tests green.\"}}\n", env
    size = 0
    for (i = 1; size < target; i++) {
      ts = sprintf("2026-01-01T%02d:%02d:%02d.000Z", int(i / 3600) % 24, int(i / 60) % 60, i % 60)
      f = cwd "/src/module_" (i % 40) ".py"
      line = sprintf("{\"type\":\"assistant\",%s,\"uuid\":\"a%d\",\"parentUuid\":\"u%d\",\"timestamp\":\"%s\",\"requestId\":\"req_%d\",\"message\":{\"id\":\"msg_%d\",\"model\":\"claude-opus-4-5-20251101\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Step %d: I will look at %s and then adjust the call sites so the limit is passed explicitly everywhere it is used.\"}],\"stop_reason\":null,\"usage\":{\"input_tokens\":%d,\"output_tokens\":40}}}", env, i, i - 1, ts, i, i, i, f, 1000 + i)
      print line; size += length(line) + 1
      kind = i % 3
      if (kind == 0) {
        call = sprintf("{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Read\",\"input\":{\"file_path\":\"%s\"}}", i, f)
        res = sprintf("\"content\":\"%s\"}]},\"toolUseResult\":{\"type\":\"text\",\"file\":{\"filePath\":\"%s\",\"content\":\"def compute_%d():\\n%s\",\"numLines\":41,\"startLine\":1,\"totalLines\":41}}", "def compute():\\n" body, f, i % 40, body)
      } else if (kind == 1) {
        call = sprintf("{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Edit\",\"input\":{\"file_path\":\"%s\",\"old_string\":\"limit=1024\",\"new_string\":\"limit=LIMIT\"}}", i, f)
        res = sprintf("\"content\":\"The file %s has been updated.\"}]},\"toolUseResult\":{\"filePath\":\"%s\",\"oldString\":\"limit=1024\",\"newString\":\"limit=LIMIT\",\"originalFile\":\"def compute_%d():\\n%s\",\"structuredPatch\":[],\"userModified\":false,\"replaceAll\":false}", f, f, i % 40, body)
      } else {
        call = sprintf("{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"Bash\",\"input\":{\"command\":\"cd %s && python -m pytest tests/test_module_%d.py -q\",\"description\":\"Run the tests\"}}", i, cwd, i % 40)
        res = sprintf("\"content\":\"%s\",\"is_error\":false}]},\"toolUseResult\":{\"stdout\":\"%s\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}", body "41 passed in 0.52s", body "41 passed in 0.52s")
      }
      line = sprintf("{\"type\":\"assistant\",%s,\"uuid\":\"b%d\",\"parentUuid\":\"a%d\",\"timestamp\":\"%s\",\"requestId\":\"req_%d\",\"message\":{\"id\":\"msg_%d\",\"model\":\"claude-opus-4-5-20251101\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[%s],\"stop_reason\":null,\"usage\":{\"input_tokens\":%d,\"output_tokens\":60}}}", env, i, i, ts, i, i, call, 1000 + i)
      print line; size += length(line) + 1
      line = sprintf("{\"type\":\"user\",%s,\"uuid\":\"u%d\",\"parentUuid\":\"b%d\",\"timestamp\":\"%s\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_%d\",\"type\":\"tool_result\",%s,\"sourceToolAssistantUUID\":\"b%d\"}", env, i, i, ts, i, res, i)
      print line; size += length(line) + 1
    }
  }'
}

cd "$work"
zcat "$here/testdata/corpus/inspect-ai/2025-05-12T20-27-36-04-00_browser.json.gz" > corpus-largest.json
gen "$mb" > session.jsonl
# Both inputs must convert and pack before they are timed.
"$bin/ctx-init" check >/dev/null
for f in corpus-largest.json session.jsonl; do
  "$bin/ctx-convert" "$f" 2>/dev/null | "$bin/ctx-pack" --store check/.ctx - >/dev/null
done
steps=$("$bin/ctx-convert" session.jsonl 2>/dev/null | grep -c '"event":"step"')

# The jq projection: what a user would write to pull the tool calls and
# results out of the same session.
proj='select(.message) | .message.content | arrays | .[] | select(.type == "tool_use" or .type == "tool_result") | {id: (.id // .tool_use_id), name, input, content}'

labels=() cmds=() inputs=()
for f in corpus-largest.json session.jsonl; do
  labels+=("ctx convert $f")
  cmds+=("$bin/ctx-convert $f")
  inputs+=("$f")
  # Each pack goes into a fresh store, so every blob is written.
  labels+=("ctx convert | ctx pack - ($f)")
  cmds+=("sh -c 'd=\$(mktemp -d -p .) && $bin/ctx-init \$d >/dev/null && $bin/ctx-convert $f 2>/dev/null | $bin/ctx-pack --store \$d/.ctx - >/dev/null'")
  inputs+=("$f")
done
labels+=("jq -c projection session.jsonl" "sha256sum session.jsonl")
cmds+=("$jq -c '$proj' session.jsonl" "sha256sum session.jsonl")
inputs+=(session.jsonl session.jsonl)

# time_one CMD: prints "milliseconds peak-RSS-KiB".
time_one() {
  local t0 t1
  t0=$(date +%s%N)
  eval "/usr/bin/time -f %M -o rss.txt $1" >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(tail -1 rss.txt)"
}

for k in "${!cmds[@]}"; do : > "times.$k"; done
for ((r = 0; r < runs; r++)); do
  for k in "${!cmds[@]}"; do
    time_one "${cmds[$k]}" >> "times.$k"
    rm -rf ./tmp.*
  done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
jqk=$(( ${#cmds[@]} - 2 ))
jqms=$(cut -d' ' -f1 "times.$jqk" | median)

echo "ctx convert: corpus-largest.json (Inspect log, $(du -k corpus-largest.json | cut -f1) KiB) and session.jsonl (generated Claude Code session, $(du -m session.jsonl | cut -f1) MiB, $steps steps)"
echo "$runs runs each, alternating; medians; peak RSS is the largest process of a pipeline"
printf '%-52s %9s %8s %13s %9s\n' command wall_ms MB/s peak_rss_kib vs_jq
for k in "${!cmds[@]}"; do
  ms=$(cut -d' ' -f1 "times.$k" | median)
  rss=$(cut -d' ' -f2 "times.$k" | median)
  bytes=$(stat -c %s "${inputs[$k]}")
  rate=$(awk -v b="$bytes" -v ms="$ms" 'BEGIN { if (ms < 1) ms = 1; printf "%.1f", b / 1e6 / (ms / 1000) }')
  vs="-"
  [ "${inputs[$k]}" = session.jsonl ] && vs=$(awk -v a="$ms" -v b="$jqms" 'BEGIN { printf "%.2fx", a / (b < 1 ? 1 : b) }')
  printf '%-52s %9s %8s %13s %9s\n' "${labels[$k]}" "$ms" "$rate" "$rss" "$vs"
done
