#!/usr/bin/env bash
# The official MCP conformance suite (pinned), at both frozen requirement sets, each at its
# own wire: 2025-11-25 (the initialize handshake) and 2026-07-28 (stateless, per-request
# _meta).
# - Server side: the conformance fixture server, served over streamable HTTP with names
#   valid for LLM APIs. The two sets run at once against one server, which keeps nothing
#   between requests but each handshake session's log level and capabilities.
# - Client side: the conformance client (tests/conformance-client), which the suite starts
#   once a scenario against servers of its own.
# All four runs go at once. What each set is known to fail is listed, with the reason and
# the issue that removes it, in tests/conformance/expected-failures-<set>.yml (`server:`
# and `client:`);
# any other failure (a warning too), or a listed one that passes, fails the run. The
# extension scenarios (skills, tasks, the authorization extensions) run by name with
# 2026-07-28, the tasks ones against Redis too; the suite reports them without scoring them,
# so this script fails the run when one of them does not pass. Needs npm, which fetches
# Node 22 and the suite.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=@modelcontextprotocol/conformance@0.2.0-alpha.12
sets=(2025-11-25 2026-07-28)
results=target/conformance-results

conformance() {
  npx --yes -p node@22 -p "$suite" -- conformance "$@" 2> >(grep -v '^npm warn' >&2)
}

# The server and the client, as the test command built them, or else built here.
server_bin=${CONFORMANCE_SERVER_BIN:-}
client_bin=${CONFORMANCE_CLIENT_BIN:-}
if [ -z "$server_bin" ] || [ -z "$client_bin" ]; then
  cargo build --locked --quiet -p conformance-server -p conformance-client
  server_bin="$PWD/target/debug/conformance-server"
  client_bin="$PWD/target/debug/conformance-client"
fi
mkdir -p "$results"
# Starts the conformance server with ARGS, its log in LOG, and sets the variable named VAR to
# its URL once it listens (empty if it did not).
start_server() {
  local var=$1 log=$2
  shift 2
  "$server_bin" serve --http 127.0.0.1:0 --llm-names --llm-names-bare tasks \
    "$@" > /dev/null 2> "$log" &
  for _ in $(seq 1 100); do
    grep -q '^listening on ' "$log" && break
    sleep 0.1
  done
  printf -v "$var" '%s' "$(awk '/^listening on / { print $3; exit }' "$log")"
  [ -n "${!var}" ] || { echo "the conformance server ($*) did not start:"; cat "$log"; exit 1; }
}

# The tasks extension's scenarios run twice: against the server whose tasks live in its
# memory, and against a second one whose tasks live in Redis (Debian's redis-server, on
# loopback, nothing saved).
redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis_dir=$(mktemp -d)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$redis_dir" \
  > "$results/redis.log" 2>&1 &
# Every process this script starts is stopped when it ends: the servers, redis-server.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$redis_dir"' EXIT
for _ in $(seq 1 100); do
  redis-cli -p "$redis_port" ping > /dev/null 2>&1 && break
  sleep 0.1
done
start_server url target/conformance-server.log
# The extension scenarios' own server: the same, serving the skills of a folder too.
start_server extensions_url target/conformance-server-extensions.log \
  --skills tests/conformance-server/skills
start_server redis_url target/conformance-server-redis.log \
  --task-store "redis://127.0.0.1:$redis_port" --task-namespace conformance

# Fetched once, before the two runs share npm's cache.
conformance list --requirements 2026-07-28 > /dev/null

pids=()
runs=()
for set in "${sets[@]}"; do
  conformance server --url "$url" --requirements "$set" \
    --expected-failures "tests/conformance/expected-failures-$set.yml" \
    --output-dir "$results/$set" > "$results/$set.log" 2>&1 &
  pids+=($!)
  runs+=("server $set")
  conformance client --command "$client_bin" --requirements "$set" \
    --expected-failures "tests/conformance/expected-failures-$set.yml" \
    --output-dir "$results/client-$set" > "$results/client-$set.log" 2>&1 &
  pids+=($!)
  runs+=("client $set")
done
tasks_scenarios=(tasks-lifecycle tasks-capability-negotiation tasks-wire-fields
  tasks-request-state-removal tasks-mrtr-input tasks-request-headers
  tasks-dispatch-and-envelope tasks-status-notifications tasks-required-task-error
  tasks-mrtr-composition)
# Every extension scenario the suite lists (`conformance list` marks them [extension]), each
# run by name: the suite reports extensions without scoring them, so this script requires
# each one to pass at least one check, and none to fail, warn or be skipped. The one
# exception is tasks-status-notifications, whose only check the suite itself skips, pending
# its rewrite: it must report 0/0 with nothing failed.
server_extensions=(sep-2640-skills-directory sep-2640-skills-enumeration
  sep-2640-skills-manifest "${tasks_scenarios[@]}")
client_extensions=(auth/client-credentials-jwt auth/client-credentials-basic
  auth/enterprise-managed-authorization auth/dpop auth/dpop-nonce auth/wif-jwt-bearer
  sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size
  sep-2640-client-verify-frontmatter)
# Runs one scenario by name: SIDE (server or client), SCENARIO, where its results go, and
# the flags that say what is tested (`--url URL` or `--command PROGRAM`); prints its result
# lines, each led by the side and the scenario.
run_scenario() {
  local side=$1 scenario=$2 out=$3
  shift 3
  conformance "$side" "$@" --scenario "$scenario" --spec-version 2026-07-28 --force \
    --output-dir "$out" 2>&1 | grep -E '^(Passed|Total)|FAILURE|WARNING|SKIPPED' \
    | sed "s|^|$side $scenario: |"
}
(
  for scenario in "${server_extensions[@]}"; do
    run_scenario server "$scenario" "$results/extensions" --url "$extensions_url"
  done
  for scenario in "${client_extensions[@]}"; do
    run_scenario client "$scenario" "$results/extensions" --command "$client_bin"
  done
) > "$results/extensions.log" 2>&1 &
extensions_run=$!
(
  for scenario in "${tasks_scenarios[@]}"; do
    run_scenario server "$scenario" "$results/redis" --url "$redis_url"
  done
) > "$results/tasks-redis.log" 2>&1 &
redis_run=$!
# Whether the log LOG of scenarios run by name holds COUNT passes: each scenario passed at
# least one check, and none failed, warned or was skipped; but for tasks-status-notifications,
# whose only check the suite itself skips, which must report 0/0 with nothing failed.
all_passed() {
  local log=$1 count=$2 passed unchecked skipped
  passed=$(grep -cE ': Passed: [1-9][0-9]*/[0-9]+, 0 failed, 0 warnings$' "$log" || true)
  unchecked=$(grep -cx 'server tasks-status-notifications: Passed: 0/0, 0 failed, 0 warnings' \
    "$log" || true)
  skipped=$(grep -v '^server tasks-status-notifications: ' "$log" | grep -c SKIPPED || true)
  echo "($passed of $count passed, $unchecked unchecked by the suite, $skipped checks skipped)"
  [ "$((passed + unchecked))" -eq "$count" ] && [ "$skipped" -eq 0 ]
}
failed=0
for i in "${!runs[@]}"; do
  status=0
  wait "${pids[$i]}" || status=$?
  read -r side set <<< "${runs[$i]}"
  log="$results/$set.log"
  [ "$side" = server ] || log="$results/client-$set.log"
  echo "== $side side, requirement set $set: exit $status"
  if grep -q 'SUMMARY ===' "$log"; then
    sed -n '/SUMMARY ===/,$p' "$log"
  else
    tail -n 40 "$log"
  fi
  [ "$status" -eq 0 ] || failed=1
done
wait "$redis_run" || true
wait "$extensions_run" || true
echo "== the extension scenarios, each run by name"
cat "$results/extensions.log"
if ! all_passed "$results/extensions.log" $((${#server_extensions[@]} + ${#client_extensions[@]})); then
  echo "== not every extension scenario passed"
  failed=1
fi
echo "== the tasks extension's scenarios against the Redis task store"
cat "$results/tasks-redis.log"
if ! all_passed "$results/tasks-redis.log" ${#tasks_scenarios[@]}; then
  echo "== not every tasks scenario passed against Redis"
  failed=1
fi
# The tasks extension's scenarios: reported, not scored, by the suite; every one must pass.
tasks_log="$results/2026-07-28.log"
if grep -q '✗ tasks-' "$tasks_log"; then
  echo "== the tasks extension's scenarios that failed:"
  grep '✗ tasks-' "$tasks_log"
  failed=1
elif [ "$(grep -c '✓ tasks-' "$tasks_log")" -lt 9 ]; then
  echo "== the tasks extension's scenarios did not all run:"
  grep ' tasks-' "$tasks_log" || true
  failed=1
fi
exit "$failed"
