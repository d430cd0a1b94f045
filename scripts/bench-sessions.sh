#!/usr/bin/env bash
# What keeping sessions in Redis costs: the load driver against `bench-server` over HTTP,
# 16 keep-alive clients, each sending every call in the session its `initialize` opened
# (`mcp-bench http --session`), with the sessions in memory and in Redis (a redis-server
# this script starts), side by side in each round; the median of the per-round ratios of
# calls/s. The case of docs/benchmarks.md ("Sessions shared by replicas"); a third case,
# without session ids, shows what the look-up in memory costs.
#
# Usage: bash scripts/bench-sessions.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
source scripts/bench-common.sh

http_run() { # label driver-flags server-args...
  local label=$1 flags=$2; shift 2
  serve_and_drive "$label" "$bin/bench-server" "$flags" "$@"
}

redis_port=$((20000 + RANDOM % 20000))
redis-server --port "$redis_port" --save '' --appendonly no --daemonize no >/dev/null &
until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done

for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  http_run no_session ""
  http_run memory_sessions --session
  http_run redis_sessions --session --session-store "redis://127.0.0.1:$redis_port"
done

python3 - "$out" <<'PY'
import json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
def runs(label):
    return [json.loads(line) for line in (out / f"{label}.jsonl").read_text().splitlines()]
rows = [
    ("sessions in memory, against no session id", "memory_sessions", "no_session"),
    ("sessions in Redis, against in memory", "redis_sessions", "memory_sessions"),
]
print("| case | median ratio | rounds | case calls/s | baseline calls/s |")
print("|---|---|---|---|---|")
for name, case, base in rows:
    a, b = runs(case), runs(base)
    pairs = [x["calls_per_s"] / y["calls_per_s"] for x, y in zip(a, b)]
    print(f"| {name} | {statistics.median(pairs):.3f} | {', '.join(f'{p:.2f}' for p in pairs)} "
          f"| {statistics.median(x['calls_per_s'] for x in a):,.0f} "
          f"| {statistics.median(y['calls_per_s'] for y in b):,.0f} |")
for label in ["no_session", "memory_sessions", "redis_sessions"]:
    wrong = sum(r.get("errors", 0) + r.get("lost", 0) for r in runs(label))
    if wrong:
        print(f"error: {label}: {wrong} wrong answers", file=sys.stderr)
        sys.exit(1)
PY
