#!/usr/bin/env bash
# What layers and telemetry cost: the load driver against `bench-server`, round after
# round, each case beside its baseline in the same round, with medians of the per-round
# ratios. The cases of docs/benchmarks.md ("Layers, limits and telemetry"):
#
#   no layer, against an earlier build (BEFORE=dir holding its bench-server): stdio server
#     CPU per call, HTTP calls/s and HTTP server CPU per call;
#   the rate-limit and concurrency layers in memory, against none: stdio server CPU per call;
#   OTLP export on, against off: stdio server CPU per call (a receiver in this script);
#   rate limits in Redis, against in memory: HTTP calls/s and server CPU per call (a
#     redis-server it starts).
#
# Usage: bash scripts/bench-layers.sh [ROUNDS]   (BEFORE=/path/to/old/release to compare)
#
# The server's CPU time is read from /proc in clock ticks (10 ms): STDIO_CALLS (2,000,000 by
# default) makes a run long enough that one tick is under 1% of it, at about a microsecond
# a call (at 500,000, one tick was 2% of a run).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
stdio_calls=${STDIO_CALLS:-2000000}
source scripts/bench-common.sh

stdio_run() { # label server [args...]
  local label=$1; shift
  "$driver" stdio --window 64 -n "$stdio_calls" --json -- "$@" >>"$out/$label.jsonl"
}

http_run() { # label server-binary [args...]
  local label=$1 server=$2; shift 2
  serve_and_drive "$label" "$server" "" "$@"
}

before_runs() { # the earlier build's runs, with BEFORE set
  if [ -n "${BEFORE:-}" ]; then
    stdio_run before_stdio "$BEFORE/bench-server" serve --stdio
    http_run before_http "$BEFORE/bench-server"
  fi
}

start_otlp_receiver

redis_port=$((20000 + RANDOM % 20000))
redis-server --port "$redis_port" --save '' --appendonly no --daemonize no >/dev/null &
until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done

for round in $(seq "$rounds"); do
  echo "round $round of $rounds" >&2
  # The earlier build runs first in odd rounds and last in even ones: whichever runs
  # first in a round is otherwise favoured or not by what the machine did just before.
  if [ $((round % 2)) = 1 ]; then before_runs; fi
  stdio_run plain_stdio "$bin/bench-server" serve --stdio
  http_run plain_http "$bin/bench-server"
  if [ $((round % 2)) = 0 ]; then before_runs; fi
  stdio_run limits_stdio "$bin/bench-server" serve --stdio "${limits[@]}"
  # The server's log says how many spans it dropped, its export queue full: a run that
  # dropped some sent less than every span, and is told apart below.
  OTEL_EXPORTER_OTLP_ENDPOINT=$otlp OTEL_SERVICE_NAME=bench \
    "$driver" stdio --window 64 -n "$stdio_calls" --json -- "$bin/bench-server" serve --stdio \
    >>"$out/otel_stdio.jsonl" 2>"$out/otel_log.$round" || { cat "$out/otel_log.$round" >&2; exit 1; }
  http_run memory_limits_http "$bin/bench-server" "${limits[@]}"
  http_run redis_limits_http "$bin/bench-server" "${limits[@]}" --limit-store "redis://127.0.0.1:$redis_port"
done

python3 - "$out" <<'PY'
import json, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
def runs(label):
    path = out / f"{label}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
def ratio(case, base, key):
    a, b = runs(case), runs(base)
    pairs = [x[key] / y[key] for x, y in zip(a, b) if x.get(key) and y.get(key)]
    if not pairs:
        return None
    return statistics.median(pairs), statistics.median(x[key] for x in a), statistics.median(y[key] for y in b)
rows = [
    ("no layer, stdio server CPU per call (µs), against BEFORE", "plain_stdio", "before_stdio", "server_cpu_us_per_call"),
    ("no layer, HTTP calls/s, against BEFORE", "plain_http", "before_http", "calls_per_s"),
    ("no layer, HTTP server CPU per call (µs), against BEFORE", "plain_http", "before_http", "server_cpu_us_per_call"),
    ("rate-limit + concurrency layers in memory, stdio server CPU per call (µs)", "limits_stdio", "plain_stdio", "server_cpu_us_per_call"),
    ("OTLP export on, stdio server CPU per call (µs)", "otel_stdio", "plain_stdio", "server_cpu_us_per_call"),
    ("rate limits in Redis, HTTP calls/s, against in memory", "redis_limits_http", "memory_limits_http", "calls_per_s"),
    ("rate limits in Redis, HTTP server CPU per call (µs), against in memory", "redis_limits_http", "memory_limits_http", "server_cpu_us_per_call"),
]
print("| case | median ratio | case | baseline |")
print("|---|---|---|---|")
for name, case, base, key in rows:
    measured = ratio(case, base, key)
    if measured:
        r, a, b = measured
        print(f"| {name} | {r:.3f} | {a:.2f} | {b:.2f} |")
# Spans the OTLP runs dropped, their export queue full (`OTEL_BSP_MAX_QUEUE_SIZE`): the
# receiver here shares the machine, and a run where it fell behind sent fewer spans.
import re
dropped = []
for round_log in sorted(out.glob("otel_log.*"), key=lambda path: int(path.suffix[1:])):
    dropped.append(sum(int(n) for n in re.findall(r"dropped=(\d+)", round_log.read_text())))
if dropped:
    print(f"\nOTLP runs, spans dropped (export queue full), round by round: {dropped}")
    whole = [x["server_cpu_us_per_call"] / y["server_cpu_us_per_call"]
             for x, y, lost in zip(runs("otel_stdio"), runs("plain_stdio"), dropped) if lost == 0]
    if whole:
        print(f"OTLP export on, the {len(whole)} rounds that dropped none: median ratio {statistics.median(whole):.3f}")
for label in ["plain_stdio", "limits_stdio", "otel_stdio", "redis_limits_http"]:
    wrong = sum(r.get("errors", 0) + r.get("lost", 0) for r in runs(label))
    if wrong:
        print(f"error: {label}: {wrong} wrong answers", file=sys.stderr)
        sys.exit(1)
PY
