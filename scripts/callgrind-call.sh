#!/usr/bin/env bash
# The instructions of one in-process call, counted by callgrind (which stays the same from
# run to run on a noisy machine): the hand-written serde baseline against `Registry::call`
# of the inline object-returning tool of `mcp-runtime/benches/call.rs`.
#
# The bench binary, run with MCP_CALL_COUNT=N, makes N calls of each; callgrind counts only
# inside the two functions that make one call (their inputs are made before and their
# outputs dropped after, as in the criterion bench), and the figure is that count over N.
# N (default 10000) can be set.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-10000}
target=${CARGO_TARGET_DIR:-target}
bin=$(cargo bench -q -p mcp-runtime --bench call --no-run --message-format=json |
  python3 -c 'import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message["target"]["name"] == "call" and message.get("executable"):
        print(message["executable"])')
out="$target/callgrind-call"
rm -rf "$out" && mkdir -p "$out"

count() {
  MCP_CALL_COUNT=$n valgrind --tool=callgrind --toggle-collect="call::$1" \
    --callgrind-out-file="$out/$1.out" "$bin" >/dev/null 2>"$out/$1.log"
  python3 - "$out/$1.out" "$n" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
total = int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))
print(round(total / int(sys.argv[2])))
PY
}

baseline=$(count one_baseline)
call=$(count one_call)
echo "instructions per call: baseline $baseline, Registry::call $call, ratio $(python3 -c "print(f'{$call / $baseline:.2f}')")"
