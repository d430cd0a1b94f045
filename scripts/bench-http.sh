#!/usr/bin/env bash
# The HTTP server against the bare axum floor: the load driver against `floor-http` and
# `bench-server serve --http` (sessions in memory, the default), 16 keep-alive clients,
# without session ids and with each call in the session its `initialize` opened
# (`mcp-bench http --session`), side by side in each round; the median of the per-round
# ratios of calls/s. The HTTP line of `mcp-bench suite`, alone and with sessions.
#
# Usage: bash scripts/bench-http.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
source scripts/bench-common.sh

floor_run() {
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$bin/floor-http" --addr "127.0.0.1:$port" &
  local pid=$!
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do sleep 0.05; done
  "$driver" http "http://127.0.0.1:$port/mcp" --clients 16 -n "$http_calls" --json >>"$out/floor.jsonl"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  floor_run
  serve_and_drive framework "$bin/bench-server" ""
  serve_and_drive framework_sessions "$bin/bench-server" --session
done

python3 - "$out" <<'PY'
import json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
def runs(label):
    return [json.loads(line) for line in (out / f"{label}.jsonl").read_text().splitlines()]
print("| case | median ratio to the floor | rounds | calls/s | floor calls/s |")
print("|---|---|---|---|---|")
floor = runs("floor")
for name, label in [("no session id", "framework"), ("each call in its session (memory)", "framework_sessions")]:
    case = runs(label)
    pairs = [x["calls_per_s"] / y["calls_per_s"] for x, y in zip(case, floor)]
    print(f"| {name} | {statistics.median(pairs):.3f} | {', '.join(f'{p:.2f}' for p in pairs)} "
          f"| {statistics.median(x['calls_per_s'] for x in case):,.0f} "
          f"| {statistics.median(y['calls_per_s'] for y in floor):,.0f} |")
for label in ["floor", "framework", "framework_sessions"]:
    wrong = sum(r.get("errors", 0) + r.get("lost", 0) for r in runs(label))
    if wrong:
        print(f"error: {label}: {wrong} wrong answers", file=sys.stderr)
        sys.exit(1)
PY
