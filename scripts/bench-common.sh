# What the HTTP benchmark scripts share; sourced by them, from the repository root. It
# builds the load driver and the servers (release), and sets `bin` (their folder), `driver`
# (mcp-bench), `http_calls` (HTTP_CALLS, 60,000 by default) and `out` (a scratch directory,
# removed at exit, when every job the script started is stopped), and `limits` (the
# server's arguments for the rate-limit and concurrency layers); `start_otlp_receiver`
# starts a receiver of OTLP exports.

http_calls=${HTTP_CALLS:-60000}
cargo build --release --quiet -p mcp-bench
bin=target/release
driver=$bin/mcp-bench
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT

# Limits no run reaches: the layers do all their work, and refuse nothing.
limits=(--tool-rate-limit 'bench.*=1000000000/s' --tool-concurrency 'bench.*=1024')

# Serves over HTTP with SERVER (`serve --http 127.0.0.1:0 --quiet ARGS`), drives it with 16
# keep-alive clients and the driver's FLAGS (a word list, possibly empty), appends the
# driver's JSON line to $out/LABEL.jsonl, then stops the server. The line gains
# `server_cpu_us_per_call`: the server's CPU time from `/proc` (start-up and the driver's
# 2,000 warm-up calls included) over the calls made. Where other work shares the machine,
# it moves less from run to run than calls/s, which the driver's own share of the cores
# and the other work's both move.
serve_and_drive() { # label server "flags" [args...]
  local label=$1 server=$2 flags=$3; shift 3
  "$server" serve --http 127.0.0.1:0 --quiet "$@" 2>"$out/listen" &
  local pid=$!
  # The address once its whole line is written: a line read half-written names no URL.
  local url=
  until [ -n "$url" ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$out/listen" >&2; exit 1; }
    sleep 0.05
    url=$(sed -n 's/.*listening on \(http[^ ]*\/mcp\)$/\1/p' "$out/listen" | head -1)
  done
  local line ticks
  # shellcheck disable=SC2086
  line=$("$driver" http "$url" --clients 16 -n "$http_calls" $flags --json)
  ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  python3 -c 'import json, sys
line, ticks, hz = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
line["server_cpu_us_per_call"] = ticks / hz * 1e6 / (line["n"] + 2000)
print(json.dumps(line))' "$line" "$ticks" "$(getconf CLK_TCK)" >>"$out/$label.jsonl"
}

# Starts an OTLP/HTTP receiver that takes every export and answers 200, so that an
# exporter does its whole work, and sets `otlp` to its address: the load driver's
# `otlp-sink`, or with OTLP_RECEIVER=python one in Python's standard library. Both keep the
# connection open between exports (HTTP/1.1), as a collector does: a receiver that closed it
# after each (Python's default, HTTP/1.0) would add a connection a batch to the server's
# cost, which no deployment pays. The Python one falls behind on two busy cores: the
# server's queue of 2,048 spans fills, and it drops spans (about 5% of them in a run of
# bench-layers.sh), sending less than a server whose receiver keeps up.
start_otlp_receiver() {
  if [ "${OTLP_RECEIVER:-sink}" = python ]; then
    python3 - "$out/otlp.port" <<'PY' &
import http.server, sys
class Take(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200); self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Take)
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
  else
    "$driver" otlp-sink --port-file "$out/otlp.port" 2>/dev/null &
  fi
  until [ -s "$out/otlp.port" ]; do sleep 0.05; done
  otlp="http://127.0.0.1:$(cat "$out/otlp.port")"
}
