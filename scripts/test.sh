#!/usr/bin/env bash
# The whole test suite: formatting, lints, docs, every test of the workspace (unit,
# integration, doc tests, trybuild), and the official MCP Python SDK driving the quickstart
# server, and the official MCP conformance suite. Run from anywhere; needs a Rust toolchain,
# Python 3.10+ (the SDKs 1.x and 2.x and pytest are installed from PyPI into
# target/python-sdk1 and target/python-sdk2, the telemetry tests' packages into
# target/python-otel) and npm (which fetches Node 22 and the suite,
# and the OAuth tests' authorization server, the TypeScript SDK and the MCP Inspector's CLI).
set -euo pipefail
cd "$(dirname "$0")/.."

# Seconds of processor time in the output of `times` in FILE (its second line: the
# processes waited for).
cpu_of() {
  awk 'NR == 2 {
    n = 0
    for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] }
    printf "%d", n
  }' "$1"
}

# Each part's heading, with the seconds the suite has taken so far and the processor time
# its finished parts used (user and system, summed over every process waited for): where
# its time goes, on a machine whose two cores the parts share.
# (`times` is read from a file: in a command substitution it would report that subshell's.)
times_file=$(mktemp)
say() {
  local cpu
  times >"$times_file"
  cpu=$(cpu_of "$times_file")
  echo "== [${SECONDS} s, ${cpu} s of processor time] $*"
}

# nginx, for the scale-out and TLS tests (tests/tests/scale_out.rs, client_https.rs), which
# start their own instances; openssl, which makes the TLS test's certificate; redis-server,
# for the task store's tests and the tasks scale-out test (tests/tests/task_store.rs,
# scale_out_tasks.rs), which start their own, and the conformance run against Redis;
# prometheus, which scrapes the quickstart's /metrics in the telemetry tests (tests/python/otel).
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
command -v openssl >/dev/null || missing+=(openssl)
command -v prometheus >/dev/null || [ -x /usr/bin/prometheus ] || missing+=(prometheus)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # On a machine with no init system (a container) the package starts no service.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# A clean clone builds once: incremental state and debug info would only take disk (the
# trybuild cases link a binary each, with a profile of their own that the workspace's
# `[profile.dev]` does not reach).
if [ "${CI:-}" = "true" ]; then
  export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=false
fi
say "disk free where the build goes: $(df -h --output=avail . | tail -1 | tr -d ' ')"

logs=$(mktemp -d)
log=$logs/summary
# Whatever still runs in the background when the suite stops is stopped with it.
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$logs" "$times_file"' EXIT

# Parts run in the background, each with its output in a log of its own: `begin [--low]
# NAME COMMAND…` starts one (`--low`: at a lower priority, for builds, which then take the
# cores only while the parts in front leave them idle), and `end NAME HEADING` waits for
# it, prints its output under its heading with the processor time it took, adds it to the
# summary's log, and stops the suite if it failed.
declare -A running
begin() {
  local low=""
  if [ "$1" = --low ]; then
    low=1
    shift
  fi
  local name=$1
  shift
  (
    trap 'times >"$logs/$name.cpu"' EXIT
    if [ -n "$low" ]; then
      renice -n 10 -p "$BASHPID" >/dev/null
    fi
    "$@"
  ) >"$logs/$name" 2>&1 &
  running[$name]=$!
}
end() {
  local name=$1 heading=$2 status=0
  wait "${running[$name]}" || status=$?
  say "$heading ($(cpu_of "$logs/$name.cpu") s of processor time)"
  tee -a "$log" <"$logs/$name"
  if [ "$status" -ne 0 ]; then
    echo "error: $heading: failed (exit $status)"
    exit 1
  fi
}

# The supported Rust version: the three published crates, every feature, compiled (`cargo
# check`) with the toolchain that `rust-version` names (installed through rustup), in a
# target directory of their own, in the background from the start.
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml)
rustup toolchain install "$msrv" --profile minimal --no-self-update >/dev/null 2>&1 ||
  rustup toolchain install "$msrv" --profile minimal
msrv_check() {
  CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check --locked --all-features \
    -p mcp-runtime-core -p mcp-runtime-macros -p mcp-runtime
  echo "mcp-runtime-core, mcp-runtime-macros and mcp-runtime compile with rust $msrv, every feature on"
}
begin --low msrv msrv_check

say "cargo fmt --check"
cargo fmt --all -- --check

say "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

# The authorization server of the OAuth tests (tests/tests/oauth.rs, and the Python SDKs'
# OAuth clients in tests/python): oauth2-mock-server, pinned by tests/oauth/package-lock.json,
# under the machine's `node`.
say "npm ci: the OAuth tests' authorization server"
npm ci --prefix tests/oauth --no-audit --no-fund --loglevel=error

say "cargo test"
# The hostile-input tests and the Python SDKs drive the quickstart binary; the Python SDKs
# and the conformance suite the conformance server and client. Built once, here.
cargo build --locked -p quickstart --features quickstart/full -p conformance-server -p conformance-client
export QUICKSTART_BIN="$PWD/target/debug/quickstart"
export CONFORMANCE_SERVER_BIN="$PWD/target/debug/conformance-server"
export CONFORMANCE_CLIENT_BIN="$PWD/target/debug/conformance-client"
# Every test binary is built first.
cargo test --workspace --locked --no-run

# The compile-time cases of the attributes (tests/compile-time, trybuild) take longest by
# far, most of it compiling each case in a target directory of their own: they run in the
# background from here on, beside the other tests and the clients below, which mostly wait.
begin --low ui cargo test --locked -p mcp-ui-tests

cargo test --workspace --locked --exclude mcp-ui-tests 2>&1 | tee -a "$log"

# The three published crates packaged as crates.io would take them, and each built from its
# package alone, every feature on: what a user who depends on mcp-runtime compiles.
package() {
  # cargo verifies each crate against the others through a registry in target/package, and
  # unpacks them under $CARGO_HOME/registry/src/-<hash of that folder>/. It does not unpack
  # again a version already there, so a second run from the same folder would verify against
  # the first run's sources: drop cargo's unpacked copies of these three from such registries.
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/mcp-runtime-{core-,macros-,}[0-9]*
  cargo package --locked --quiet --all-features -p mcp-runtime-core -p mcp-runtime-macros -p mcp-runtime
}
# The workspace's crates turn mcp-runtime's features on together. A tool binary that turns
# none on, built alone, links no HTTP stack, and refuses `serve --http` saying why.
featureless() {
  cargo build --locked --quiet -p multi-crate-server
  if cargo tree --locked -p multi-crate-server -e normal --prefix none | grep -qE '^(axum|hyper|reqwest) '; then
    echo "error: multi-crate-server, which turns no feature on, depends on an HTTP stack"
    exit 1
  fi
  refused=$(target/debug/multi-crate-server serve --http 127.0.0.1:0 2>&1) && status=0 || status=$?
  if [ "$status" -ne 2 ] || ! grep -q "enable mcp-runtime's \`http\` feature" <<<"$refused"; then
    echo "error: serve --http without the http feature: exit $status, said: $refused"
    exit 1
  fi
  echo "no HTTP stack linked; serve --http refused (exit 2): $refused"
  for mount in --mount=up=http://127.0.0.1:9/mcp --servers=target/no-such-mcp.json; do
    flag=${mount%%=*}
    refused=$(target/debug/multi-crate-server "$mount" serve --stdio </dev/null 2>&1) && status=0 || status=$?
    if [ "$status" -ne 2 ] || ! grep -q "enable mcp-runtime's \`client\` feature" <<<"$refused"; then
      echo "error: $flag without the client feature: exit $status, said: $refused"
      exit 1
    fi
    # Its help, wrapped as the terminal's width has it, as one line.
    help=$(target/debug/multi-crate-server --help | tr -s ' \n' ' ')
    if ! grep -q -- "$flag [^-]*Needs mcp-runtime's \`client\` feature" <<<"$help"; then
      echo "error: --help does not say that $flag needs the client feature"
      exit 1
    fi
    echo "no client linked; $flag refused (exit 2): $refused"
  done
  refused=$(target/debug/multi-crate-server serve --stdio --oauth-issuer http://127.0.0.1:9 </dev/null 2>&1) && status=0 || status=$?
  if [ "$status" -ne 2 ] || ! grep -q "enable mcp-runtime's \`oauth\` feature" <<<"$refused"; then
    echo "error: --oauth-issuer without the oauth feature: exit $status, said: $refused"
    exit 1
  fi
  echo "no OAuth linked; --oauth-issuer refused (exit 2): $refused"
  # The README's first command builds the quickstart with its default features: stdio alone.
  if cargo tree --locked -p quickstart -e normal --prefix none | grep -qE '^(axum|hyper|reqwest|redis|jsonwebtoken) '; then
    echo "error: the quickstart's default build, the README's first command, links an HTTP stack or Redis"
    exit 1
  fi
  echo "the quickstart's default build: $(cargo tree --locked -p quickstart -e normal,build --prefix none | sed 's/ (\*)$//' | sort -u | wc -l) crates, no HTTP stack"
  # A library with no command line turns mcp-runtime's default feature `cli` off: then no
  # clap, no indicatif, and tracing-subscriber without its formatting. (Features show in
  # the inverted tree, where each is listed once.)
  cli_only=$({
    cargo tree --locked -p mcp-runtime --no-default-features -e normal --prefix none
    cargo tree --locked -p mcp-runtime --no-default-features -e normal,features -i tracing-subscriber --prefix none
  } | grep -E '^(clap|indicatif) |^tracing-subscriber feature "(fmt|ansi|env-filter)"' | sort -u) || true
  if [ -n "$cli_only" ]; then
    echo "error: mcp-runtime without its default features still depends on what only the command line needs:"
    echo "$cli_only"
    exit 1
  fi
  echo "mcp-runtime without its default features: no clap, indicatif or tracing-subscriber formatting"
}
say "the clients, the conformance suite and the builds left, at once in the background"
# Both build what the tests did not, one after the other: they share cargo's build lock.
builds() {
  package
  featureless
}
begin --low builds builds

# The clients, all at once: they mostly wait on the servers they start.
# The official MCP Python SDK, 1.x (sdk1) and 2.x (sdk2), and the telemetry tests (otel), each
# with its packages from PyPI in a virtual environment of its own under target/.
python_suite() {
  local venv=target/python-$1
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "tests/python/$1/requirements.txt"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "tests/python/$1"
}
begin sdk1 python_suite sdk1
begin sdk2 python_suite sdk2
# Telemetry through real parts: the quickstart's spans exported over OTLP to a receiver that
# decodes them with the official OTLP definitions (PyPI opentelemetry-proto), a trace begun by
# the official OpenTelemetry SDK and passed in a call's `_meta`, one trace through the gateway
# across three processes, and Debian's Prometheus scraping `serve --http … --metrics`.
begin otel python_suite otel
# The official MCP TypeScript SDK's client and the official MCP Inspector's CLI, pinned by
# tests/typescript/package-lock.json, against the quickstart server, under the machine's
# `node` and its test runner: both check a result against the tool's output schema.
typescript_suite() {
  npm ci --prefix tests/typescript --no-audit --no-fund --loglevel=error
  node --test --test-reporter=tap tests/typescript/quickstart.test.mjs
}
begin typescript typescript_suite
begin conformance bash scripts/conformance.sh

end sdk1 "Python: the official MCP SDK (sdk1) against the quickstart server"
end sdk2 "Python: the official MCP SDK (sdk2) against the quickstart server"
end otel "Python: OpenTelemetry: OTLP export, trace context and Prometheus against the quickstart server"
end typescript "TypeScript: the official MCP SDK's client and the MCP Inspector's CLI against the quickstart server"
end conformance "The official MCP conformance suite (server and client sides)"
end builds "cargo package: mcp-runtime-core, mcp-runtime-macros, mcp-runtime; a tool binary without mcp-runtime's features"
end ui "the attributes' compile-time cases (tests/compile-time), run in the background"
end msrv "the supported Rust version (rust $msrv), checked in the background from the start"

say "disk free at the end: $(df -h --output=avail . | tail -1 | tr -d ' '), target: $(du -sh target | cut -f1)"

# One closing line for the whole suite, summed over every cargo test binary, the doc tests,
# pytest and node's test runner (a cancelled test is a failed one).
awk '/^test result:/ { passed += $4; failed += $6; ignored += $8 }
     /^# (pass|fail|cancelled|skipped) [0-9]+$/ {
       if ($2 == "pass") passed += $3
       else if ($2 == "skipped") ignored += $3
       else failed += $3
     }
     /^[0-9]+ (passed|failed|skipped)/ {
       for (i = 1; i < NF; i++) {
         if ($(i + 1) ~ /^passed/) passed += $i
         if ($(i + 1) ~ /^failed/) failed += $i
         if ($(i + 1) ~ /^skipped/) ignored += $i
       }
     }
     END { printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, ignored;
           if (passed == 0) { print "error: no test ran"; exit 1 } }' "$log"
