#!/usr/bin/env bash
# The official MCP conformance suite (server side, pinned) against the conformance fixture
# server, served over streamable HTTP with names valid for LLM APIs. Scenarios outside the
# product's scope are listed, with their reasons, in tests/conformance/expected-failures.yml;
# any other failure, or a listed scenario that passes, fails the run. Needs npm, which
# fetches Node 22 and the suite.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --locked --quiet -p conformance-server
log=target/conformance-server.log
target/debug/conformance-server serve --http 127.0.0.1:0 --llm-names 2> "$log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  grep -q '^listening on ' "$log" && break
  sleep 0.1
done
url=$(awk '/^listening on / { print $3; exit }' "$log")
[ -n "$url" ] || { echo "the conformance server did not start:"; cat "$log"; exit 1; }

npx --yes -p node@22 -p @modelcontextprotocol/conformance@0.1.16 -- \
  conformance server --url "$url" \
  --expected-failures tests/conformance/expected-failures.yml \
  --output-dir target/conformance-results \
  2> >(grep -v '^npm warn' >&2) | sed -n '/=== SUMMARY ===/,$p'
