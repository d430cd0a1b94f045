#!/usr/bin/env bash
# The soak over HTTP, every part on: `mcp-bench soak` sends CALLS calls (default 1,000,000)
# over 16 keep-alive connections to nginx (examples/http/nginx.conf, the documented
# configuration), which passes them to two bench-server replicas. Each replica checks an
# OAuth access token on every request (the authorization server of the tests,
# oauth2-mock-server, run by tests/oauth/issuer.mjs), keeps its tasks in one Redis, and
# logs at its default level. The calls are a mix: half inline, a quarter reporting
# progress and logging to the client, a quarter run as tasks and polled until they end.
# Once half the calls have ended, the first replica is killed (SIGKILL) and started again
# on the same port.
#
# It prints the driver's figures (calls/s, p50, p99 by kind), the failures in two groups,
# those of calls in flight when the replica was killed (started before it was gone, ended
# after the kill began) and all the others, which must be none, and the resident memory of
# each replica sampled every 10 s from start to end. It exits 1 when a failure is not
# the kill's, or a call is missing. Everything the run wrote stays in
# $CARGO_TARGET_DIR/soak (target/soak by default): the logs, soak.json, rss.txt.
#
#   bash scripts/soak.sh            # 1,000,000 calls
#   bash scripts/soak.sh 20000      # a quick one
#
# CLIENTS (16) can be set, and BIN_DIR, a directory holding bench-server and mcp-bench
# already built, which are otherwise built here (`cargo build --release -p mcp-bench`).
# Needs nginx, redis-server and node; tests/oauth's npm packages are installed with
# `npm ci` when they are not there.
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-1000000}
clients=${CLIENTS:-16}
target=${CARGO_TARGET_DIR:-target}
run=$target/soak

for program in nginx redis-server redis-cli node python3; do
  command -v "$program" >/dev/null || { echo "soak: $program is needed" >&2; exit 2; }
done
[[ -d tests/oauth/node_modules/oauth2-mock-server ]] || npm ci --silent --prefix tests/oauth
bin=${BIN_DIR:-}
if [[ -z "$bin" ]]; then
  cargo build -q --release -p mcp-bench
  bin=$target/release
fi
rm -rf "$run" && mkdir -p "$run"
# The programs copied: the replica started again runs the same one, whatever is built
# meanwhile.
cp "$bin/bench-server" "$bin/mcp-bench" "$run/"
run=$(cd "$run" && pwd)

pids=()
cleanup() {
  [[ -f "$run/nginx/nginx.pid" ]] && nginx -p "$run/nginx" -c "$run/nginx/nginx.conf" \
    -e "$run/nginx/error.log" -s stop 2>/dev/null || true
  exec 3>&- 2>/dev/null || true
  for pid in "${pids[@]}" $(cat "$run"/replica-*.pid 2>/dev/null); do
    kill "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ms() { date +%s%3N; }
# Waits until the command "$@" succeeds, for up to 20 s.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 400); do
    "$@" && return 0
    sleep 0.05
  done
  echo "soak: $what did not come" >&2
  exit 1
}
listening() { (exec 9<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Four free loopback ports: Redis, nginx and the two replicas.
read -r redis_port nginx_port port_1 port_2 < <(python3 -c '
import socket
held = [socket.socket() for _ in range(4)]
for s in held:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in held))')
url=http://127.0.0.1:$nginx_port/mcp

redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$run" \
  >"$run/redis.log" 2>&1 &
pids+=($!)
wait_for "redis-server" listening "$redis_port"

# The authorization server; it stops when its standard input closes (fd 3, held here).
mkfifo "$run/issuer.in"
node tests/oauth/issuer.mjs <"$run/issuer.in" >"$run/issuer.out" 2>"$run/issuer.err" &
pids+=($!)
exec 3>"$run/issuer.in"
wait_for "the issuer's address" grep -q issuer "$run/issuer.out"
issuer=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["issuer"])' <"$run/issuer.out")
# A token from its token endpoint, for this endpoint as its audience (RFC 8707 `resource`).
token=$(python3 - "$issuer/token" "$url" <<'PY'
import json, sys, urllib.parse, urllib.request
form = urllib.parse.urlencode({"grant_type": "client_credentials", "resource": sys.argv[2]})
with urllib.request.urlopen(sys.argv[1], data=form.encode()) as answer:
    print(json.load(answer)["access_token"])
PY
)

# Starts replica $1 on its port, appending to its log; waits until it listens.
start_replica() {
  local number=$1 port
  port=$([[ $1 == 1 ]] && echo "$port_1" || echo "$port_2")
  local log=$run/replica-$number.log
  local before
  before=$(grep -c '^listening on' "$log" 2>/dev/null || true)
  "$run/bench-server" serve --http "127.0.0.1:$port" \
    --task-store "redis://127.0.0.1:$redis_port" \
    --oauth-issuer "$issuer" --oauth-audience "$url" 2>>"$log" &
  echo $! >"$run/replica-$number.pid"
  wait_for "replica $number" said_listening "$log" "${before:-0}"
}
# Whether the log $1 says `listening on` more than $2 times.
said_listening() { [[ $(grep -c '^listening on' "$1" 2>/dev/null) -gt $2 ]]; }
start_replica 1
start_replica 2

# nginx with the documented configuration, its three addresses changed below the comment.
mkdir -p "$run/nginx"
sed -e "/^daemon/,\$ s/127\.0\.0\.1:8081/127.0.0.1:$port_1/" \
    -e "/^daemon/,\$ s/127\.0\.0\.1:8082/127.0.0.1:$port_2/" \
    -e "/^daemon/,\$ s/127\.0\.0\.1:8080/127.0.0.1:$nginx_port/" \
    examples/http/nginx.conf >"$run/nginx/nginx.conf"
nginx -p "$run/nginx" -c "$run/nginx/nginx.conf" -e "$run/nginx/error.log" &
pids+=($!)
wait_for "nginx" listening "$nginx_port"

# Resident memory of each replica every 10 s: ms since the start, then pid and VmRSS (KiB)
# of replica 1, then of replica 2 ("-" while one is down).
started=$(now_ms)
sample() {
  local line=$(( $(now_ms) - started )) number pid rss
  for number in 1 2; do
    pid=$(cat "$run/replica-$number.pid")
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    line+=" $pid ${rss:--}"
  done
  echo "$line" >>"$run/rss.txt"
}
while :; do sample; sleep 10; done &
sampler=$!
pids+=("$sampler")

echo "soak: $calls calls, $clients clients, $url -> 127.0.0.1:$port_1, 127.0.0.1:$port_2;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$run/mcp-bench" soak "$url" --clients "$clients" -n "$calls" --bearer "$token" --json \
  >"$run/soak.json" 2>"$run/soak.err" &
driver=$!
tail --pid "$driver" -f "$run/soak.err" >&2 &

# Half the calls ended: replica 1 is killed, then started again.
halfway() { grep -q '^soak: halfway' "$run/soak.err" || ! kill -0 "$driver" 2>/dev/null; }
until halfway; do sleep 0.05; done
kill_started=0 kill_ended=0 restarted=0
if kill -0 "$driver" 2>/dev/null; then
  victim=$(cat "$run/replica-1.pid")
  kill_started=$(now_ms)
  kill -KILL "$victim"
  wait "$victim" 2>/dev/null || true
  kill_ended=$(now_ms)
  echo "soak: replica 1 (pid $victim) killed" >&2
  start_replica 1
  restarted=$(now_ms)
  echo "soak: replica 1 started again (pid $(cat "$run/replica-1.pid"))" >&2
fi
wait "$driver" || true
echo "soak: load average after $(cut -d' ' -f1-3 /proc/loadavg)" >&2
# One more sample at the end.
kill "$sampler"
sample

python3 - "$run" "$started" "$kill_started" "$kill_ended" "$restarted" "$calls" <<'PY'
import collections, json, pathlib, re, statistics, sys
run = pathlib.Path(sys.argv[1])
started, kill_started, kill_ended, restarted, calls = map(int, sys.argv[2:])
soak = json.loads((run / "soak.json").read_text())

def fmt(kind):
    return (f"{kind['calls']:,} calls, p50 {kind['p50_us'] / 1000:.2f} ms, p90 {kind['p90_us'] / 1000:.2f} ms, "
            f"p99 {kind['p99_us'] / 1000:.2f} ms, p99.9 {kind['p999_us'] / 1000:.2f} ms, max {kind['max_us'] / 1000:.1f} ms")

print(f"\n## {soak['n']:,} calls, {soak['clients']} clients, {soak['elapsed_s']:.0f} s\n")
print(f"- calls/s (calls that succeeded / elapsed): {soak['calls_per_s']:,.0f}; "
      f"HTTP requests: {soak['requests']:,} (the tasks' polls included)")
print(f"- all calls: {fmt(soak['latency'])}")
for name, kind in soak["kinds"].items():
    if kind:
        print(f"- {name}: {fmt(kind)}")

failures = soak["failures"]
def at_kill(f):
    return kill_started and f["started_ms"] <= kill_ended and f["ended_ms"] >= kill_started
in_flight = [f for f in failures if at_kill(f)]
others = [f for f in failures if not at_kill(f)]
unlisted = soak["errors"] - len(failures)
def by_fault(group):
    return dict(collections.Counter(f"{f['call']}: {f['fault']}" for f in group)) or "none"
print(f"\nFailures: {soak['errors']}")
if kill_started:
    print(f"- of calls in flight at the kill (started before {kill_ended - started} ms, "
          f"ended after {kill_started - started} ms, since the start): {len(in_flight)}, {by_fault(in_flight)}")
print(f"- others: {len(others) + unlisted}, {by_fault(others)}")
for f in others[:20]:
    print(f"  {f['call']} #{f['id']}: {f['fault']}, {f['started_ms'] - started}..{f['ended_ms'] - started} ms: {f['detail'][:160]}")
missing = calls - soak["ok"] - soak["errors"]
print(f"- calls neither answered nor failed: {missing}")
print(f"- connections opened again: {soak['reconnects']}")
if kill_started:
    print(f"- replica 1 killed at {kill_started - started} ms, gone at {kill_ended - started} ms, "
          f"listening again at {restarted - started} ms")

# nginx: the statuses it answered, and the requests it passed on to the other replica.
statuses, retried = collections.Counter(), 0
for line in (run / "nginx" / "access.log").read_text().splitlines():
    m = re.search(r'" (\d{3}) upstream="([^"]*)"', line)
    if m:
        statuses[m.group(1)] += 1
        retried += "," in m.group(2)
print(f"\nnginx: {dict(statuses)}; passed on to the other replica after a failure: {retried}")

# RSS of each replica process, every 10 s.
rows = [line.split() for line in (run / "rss.txt").read_text().splitlines()]
print("\nResident memory (VmRSS, MiB), every 10 s:\n")
print("| t (s) | replica 1 | replica 2 |")
print("|---|---|---|")
series = collections.defaultdict(list)  # (replica, pid) -> [(t, KiB)]
for row in rows:
    t, cells = int(row[0]) / 1000, []
    for number, (pid, rss) in zip((1, 2), (row[1:3], row[3:5])):
        if rss == "-":
            cells.append("down")
        else:
            series[(number, pid)].append((t, int(rss)))
            cells.append(f"{int(rss) / 1024:.1f}")
    print(f"| {t:.0f} | {cells[0]} | {cells[1]} |")
print("\nPer process, from its first sample 30 s or more after it started to its last:\n")
print("| replica (pid) | samples | first | max | last | growth | verdict (last ≤ first + 10 %) |")
print("|---|---|---|---|---|---|---|")
grew = False
for (number, pid), samples in series.items():
    t0 = samples[0][0]
    kept = [kib for t, kib in samples if t - t0 >= 30] or [samples[-1][1]]
    first, last = kept[0], kept[-1]
    flat = last <= first * 1.10
    grew |= not flat
    print(f"| {number} ({pid}) | {len(kept)} | {first / 1024:.1f} | {max(kept) / 1024:.1f} | {last / 1024:.1f} | "
          f"{(last - first) / 1024:+.1f} MiB ({(last - first) / first * 100:+.1f} %) | {'flat' if flat else '**grew**'} |")

logs = {p.name: p.stat().st_size for p in sorted(run.glob("replica-*.log"))}
print(f"\nReplica logs: {', '.join(f'{n} {s / 1e6:.1f} MB' for n, s in logs.items())}")
bad = len(others) + unlisted + missing
print(f"\n{'PASS' if bad == 0 else 'FAIL'}: {bad} failure(s) not of the kill, RSS {'grew' if grew else 'flat'}")
sys.exit(1 if bad else 0)
PY
