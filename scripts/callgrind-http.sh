#!/usr/bin/env bash
# The instructions one `tools/call` of `bench.add` costs an HTTP server, counted by callgrind
# over the whole process (which stays the same from run to run on a noisy machine): the
# counters are zeroed after a warm-up, N requests (default 20000) are sent by
# `mcp-bench http --clients 4`, and the counters are dumped. Each of the floor (`floor-http`),
# the framework (`bench-server serve --http --quiet`) and the framework with each request in a
# session (`--session`, memory store) is counted so.
#
#   cargo build --release -p mcp-bench && bash scripts/callgrind-http.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-20000}
bin=${CARGO_TARGET_DIR:-target}/release
out=${CARGO_TARGET_DIR:-target}/callgrind-http
rm -rf "$out" && mkdir -p "$out"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# count NAME [DRIVER FLAGS] -- SERVER ARGS…: the instructions per request, printed.
count() {
  local name=$1 && shift
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1") && shift; done
  shift
  local port && port=$(free_port)
  local args=("$@")
  args=("${args[@]//PORT/$port}")
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.%p.out" "${args[@]}" \
    >"$out/$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  local url="http://127.0.0.1:$port/mcp"
  "$bin/mcp-bench" http "$url" --clients 4 -n 2000 --warmup 200 "${flags[@]}" >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  "$bin/mcp-bench" http "$url" --clients 4 -n "$n" --warmup 0 "${flags[@]}" >/dev/null
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill "$pid" && wait "$pid" 2>/dev/null || true
  python3 - "$n" "$out" "$name" <<'PY'
import glob, re, sys
n, out, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]
# The dump made after the requests: the file numbered `.1` (`.out` alone is the end's).
dump = sorted(glob.glob(f"{out}/{name}.*.out.1"))[-1]
total = int(re.search(r"^(?:summary|totals): (\d+)", open(dump).read(), re.M).group(1))
print(f"{name}: {round(total / n)} instructions a request")
PY
}

count floor -- "$bin/floor-http" --addr 127.0.0.1:PORT
count framework -- "$bin/bench-server" serve --http 127.0.0.1:PORT --quiet
count framework-session --session -- "$bin/bench-server" serve --http 127.0.0.1:PORT --quiet
