#!/usr/bin/env bash
# The instructions of one call over stdio, counted by callgrind (which stays the same from
# run to run on a noisy machine): `bench-server serve --stdio` answering `bench.add` calls
# from the load driver (a window of 64), with telemetry off, then with OTLP export on (to a
# receiver in this script that takes every export), then with the rate-limit and concurrency
# layers in memory (bench-common.sh's `limits`, which no run reaches).
#
# Each case runs twice under callgrind, answering N calls (default 22,000) and 2,000 calls;
# a call's count is the difference between the two runs over the calls between them, so
# that start-up and shutdown are left out.
#
# Usage: bash scripts/callgrind-stdio.sh   (N=42000 for more calls)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-22000}
short=2000
source scripts/bench-common.sh
start_otlp_receiver

# The server's arguments past `serve --stdio`.
server_args=()

total() { # calls [VARIABLE=value...]: the instructions callgrind counted in a run
  local calls=$1; shift
  env "$@" "$driver" stdio --window 64 -n "$calls" --json -- \
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.$calls" \
    "$bin/bench-server" serve --stdio "${server_args[@]}" >/dev/null 2>"$out/log.$calls"
  sed -n 's/^\(summary\|totals\): \([0-9]*\).*/\2/p' "$out/callgrind.$calls" | head -1
}

per_call() { # label [VARIABLE=value...]
  local label=$1; shift
  local long short_run
  long=$(total "$n" "$@")
  short_run=$(total "$short" "$@")
  echo "$label: $(( (long - short_run) / (n - short) )) instructions a call"
}

per_call "telemetry off"
per_call "OTLP export on" OTEL_EXPORTER_OTLP_ENDPOINT="$otlp" OTEL_SERVICE_NAME=bench
server_args=("${limits[@]}")
per_call "rate-limit and concurrency layers in memory"
