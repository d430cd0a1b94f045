#!/usr/bin/env bash
# What a `tasks/get` of a finished task costs over HTTP, against a `tools/call` of an inline
# tool on the same server at the same wire (2026-07-28), with the task store in memory and
# in Redis; and how many Redis commands one task takes from its creation to its result.
#
# A replica keeps the records of the ended tasks it has read, so the repeated `tasks/get`s
# of one finished task are answered from its memory. With Redis, two servers share the
# store, and `--first-reads-via` also times the first read of FIRST_READS (2000) finished
# tasks by the replica that did not create them: each of those pays the Redis round trip.
# With the store in memory there is no second replica sharing it (another process would not
# know the tasks, and the same one would answer from its memory), so that case is left out.
#
# The machines are shared and noisy, so each store is measured ROUNDS times (default 5),
# the two alternating which goes first, and the table gives the medians of the per-round
# figures and ratios. CLIENTS (16), N (20000), WARMUP (2000) and K (100, the tasks whose
# Redis commands are counted) can be set the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
clients=${CLIENTS:-16}
n=${N:-20000}
warmup=${WARMUP:-2000}
k=${K:-100}
first_reads=${FIRST_READS:-2000}
out=target/bench-tasks-rounds
rm -rf "$out" && mkdir -p "$out"

cargo build -q --release -p mcp-bench
bin=target/release

tmp=$(mktemp -d)
redis_pid=""
server_pid=""
other_pid=""
stop() {
  local pid=$1
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
}
cleanup() {
  stop "$server_pid"
  stop "$other_pid"
  stop "$redis_pid"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free loopback port for Redis.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$tmp" \
  >"$tmp/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 1 100); do
  [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] && break
  sleep 0.05
done
[[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] || { echo "redis-server did not start" >&2; cat "$tmp/redis.log" >&2; exit 1; }

# Starts bench-server over HTTP with the task store $1; sets server_pid and url.
serve() {
  : >"$tmp/server.err"
  "$bin/bench-server" serve --http 127.0.0.1:0 --task-store "$1" 2>"$tmp/server.err" &
  server_pid=$!
  url=""
  for _ in $(seq 1 200); do
    url=$(sed -n 's/^listening on //p' "$tmp/server.err" | head -n 1)
    [[ -n "$url" ]] && return 0
    sleep 0.05
  done
  echo "bench-server did not say where it listens" >&2
  cat "$tmp/server.err" >&2
  exit 1
}

# Starts a second replica on the task store $1, the same Redis and namespace: sets
# other_pid and other_url.
serve_other() {
  local first_pid=$server_pid first_url=$url
  serve "$1"
  other_pid=$server_pid other_url=$url
  server_pid=$first_pid url=$first_url
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq 1 "$rounds"); do
  if (( round % 2 )); then stores=(memory redis); else stores=(redis memory); fi
  for store in "${stores[@]}"; do
    first=()
    if [[ $store == memory ]]; then
      serve memory
    else
      serve "redis://127.0.0.1:$port"
      serve_other "redis://127.0.0.1:$port"
      first=(--first-reads-via "$other_url" --first-reads "$first_reads")
    fi
    "$bin/mcp-bench" tasks "$url" --clients "$clients" -n "$n" --warmup "$warmup" "${first[@]}" \
      --json >"$out/$round-$store.json"
    echo "round $round, $store: $(cat "$out/$round-$store.json")" >&2
    if [[ $store == redis ]]; then
      # Every command Redis runs for K tasks, each created and polled until completed.
      redis-cli -p "$port" config resetstat >/dev/null
      "$bin/mcp-bench" tasks "$url" --lifecycle "$k" --json >"$out/$round-lifecycle.json"
      redis-cli -p "$port" info commandstats >"$out/$round-commandstats.txt"
    fi
    stop "$server_pid"
    stop "$other_pid"
    server_pid="" other_pid=""
  done
done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$out" "$rounds" "$clients" "$n" "$k" "$first_reads" <<'PY'
import json, pathlib, re, statistics, sys
out, rounds, clients, n, k, first_reads = pathlib.Path(sys.argv[1]), *map(int, sys.argv[2:])
med = statistics.median
def run(r, store):
    return json.loads((out / f"{r}-{store}.json").read_text())
def per_round(store, pick):
    return [pick(run(r, store)) for r in range(1, rounds + 1)]
def listed(values, fmt):
    return ", ".join(fmt.format(v) for v in values)

print(f"\n{rounds} rounds, {clients} clients, {n} requests of each kind per run "
      f"({first_reads} first reads); medians of the per-round figures. Each ratio is to the "
      "tools/call of the same run, on the first replica\n")
print("| case | tasks/get p50 | p90 | p99 | tasks/get req/s | tools/call p50 | tools/call req/s "
      "| p50 get/call | per round | req/s get/call | per round |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
ratios = {}
cases = [
    ("memory, repeated reads", "memory", "tasks_get", lambda j: j["p50_ratio"], lambda j: j["throughput_ratio"]),
    ("Redis, repeated reads", "redis", "tasks_get", lambda j: j["p50_ratio"], lambda j: j["throughput_ratio"]),
    ("Redis, first read by another replica", "redis", "first_reads",
     lambda j: j["first_reads"]["p50_ratio"], lambda j: j["first_reads"]["throughput_ratio"]),
]
for label, store, kind, pick_ratio, pick_rate_ratio in cases:
    p50 = per_round(store, lambda j: j[kind]["p50_us"])
    p90 = per_round(store, lambda j: j[kind]["p90_us"])
    p99 = per_round(store, lambda j: j[kind]["p99_us"])
    rate = per_round(store, lambda j: j[kind]["per_s"])
    call_p50 = per_round(store, lambda j: j["tools_call"]["p50_us"])
    call_rate = per_round(store, lambda j: j["tools_call"]["per_s"])
    ratio = per_round(store, pick_ratio)
    rate_ratio = per_round(store, pick_rate_ratio)
    ratios[label] = ratio
    print(f"| {label} | {med(p50):.1f} µs | {med(p90):.1f} µs | {med(p99):.1f} µs | {med(rate):,.0f} "
          f"| {med(call_p50):.1f} µs | {med(call_rate):,.0f} | {med(ratio):.2f} | {listed(ratio, '{:.2f}')} "
          f"| {med(rate_ratio):.2f} | {listed(rate_ratio, '{:.2f}')} |")

counts = []
for r in range(1, rounds + 1):
    stats = {}
    for line in (out / f"{r}-commandstats.txt").read_text().splitlines():
        m = re.match(r"cmdstat_([^:]+):calls=(\d+)", line)
        # The counting's own commands are left out.
        if m and m.group(1) not in ("config|resetstat", "config", "info"):
            stats[m.group(1)] = int(m.group(2))
    polls = json.loads((out / f"{r}-lifecycle.json").read_text())["polls"]
    counts.append((stats, polls))
# Commands Redis runs only inside the store's two Lua scripts (create, replace): they
# come with an EVALSHA, not in a round trip of their own.
in_scripts = {"exists", "hget", "hset", "pexpireat", "persist"}
total = [sum(s.values()) / k for s, _ in counts]
polls = [p / k for _, p in counts]
server = [(sum(s.values()) - p) / k for s, p in counts]
trips = [sum(v for c, v in s.items() if c not in in_scripts) / k for s, _ in counts]
server_trips = [(sum(v for c, v in s.items() if c not in in_scripts) - p) / k for s, p in counts]
print(f"\nRedis commands per task: K = {k} tasks of `bench.task_add`, each polled every 10 ms "
      "until completed, between `CONFIG RESETSTAT` and `INFO COMMANDSTATS`. Commands = the calls "
      "of every command / K, those run inside the Lua scripts included; without the polls = "
      "(all calls − tasks/get sent) / K, each tasks/get being one HMGET. Round trips leave out "
      f"the commands run only inside the scripts ({', '.join(sorted(c.upper() for c in in_scripts))}).\n")
print("| per task | median | per round |")
print("|---|---|---|")
print(f"| commands | {med(total):.2f} | {listed(total, '{:.2f}')} |")
print(f"| tasks/get polls | {med(polls):.2f} | {listed(polls, '{:.2f}')} |")
print(f"| commands without the polls | {med(server):.2f} | {listed(server, '{:.2f}')} |")
print(f"| round trips | {med(trips):.2f} | {listed(trips, '{:.2f}')} |")
print(f"| round trips without the polls | {med(server_trips):.2f} | {listed(server_trips, '{:.2f}')} |")
names = sorted({name for s, _ in counts for name in s})
for name in names:
    values = [s.get(name, 0) / k for s, _ in counts]
    print(f"| `{name.upper()}` | {med(values):.2f} | {listed(values, '{:.2f}')} |")
print()
for label in ["Redis, repeated reads", "Redis, first read by another replica"]:
    ratio = med(ratios[label])
    met = "met" if ratio <= 1.5 else "**missed**"
    print(f"Target, {label}: tasks/get p50 ≤ 1.5 × tools/call p50: {met} ({ratio:.2f})")
PY
