#!/usr/bin/env bash
# The whole test suite: formatting, lints, docs, every test of the workspace (unit,
# integration, doc tests, trybuild), and the official MCP Python SDK driving the quickstart
# server, and the official MCP conformance suite. Run from anywhere; needs a Rust toolchain,
# Python 3.10+ (the SDKs 1.x and 2.x and pytest are installed from PyPI into
# target/python-sdk1 and target/python-sdk2) and npm (which fetches Node 22 and the suite,
# and the OAuth tests' authorization server).
set -euo pipefail
cd "$(dirname "$0")/.."

# nginx, for the scale-out and TLS tests (tests/tests/scale_out.rs, client_https.rs), which
# start their own instances; openssl, which makes the TLS test's certificate; redis-server,
# for the task store's tests and the tasks scale-out test (tests/tests/task_store.rs,
# scale_out_tasks.rs), which start their own, and the conformance run against Redis.
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
command -v openssl >/dev/null || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
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
echo "== disk free where the build goes: $(df -h --output=avail . | tail -1 | tr -d ' ')"

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

# The authorization server of the OAuth tests (tests/tests/oauth.rs, and the Python SDKs'
# OAuth clients in tests/python): oauth2-mock-server, pinned by tests/oauth/package-lock.json,
# under the machine's `node`.
echo "== npm ci: the OAuth tests' authorization server"
npm ci --prefix tests/oauth --no-audit --no-fund --loglevel=error

echo "== cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The hostile-input tests and the Python SDKs drive the quickstart binary; the Python SDKs
# and the conformance suite the conformance server. Built once, here.
cargo build --locked -p quickstart -p conformance-server -p conformance-client
export QUICKSTART_BIN="$PWD/target/debug/quickstart"
export CONFORMANCE_SERVER_BIN="$PWD/target/debug/conformance-server"
cargo test --workspace --locked 2>&1 | tee "$log"

for sdk in sdk1 sdk2; do
  echo "== Python: the official MCP SDK ($sdk) against the quickstart server"
  venv=target/python-$sdk
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "tests/python/$sdk/requirements.txt"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "tests/python/$sdk" 2>&1 | tee -a "$log"
done

echo "== The official MCP conformance suite (server and client sides)"
bash scripts/conformance.sh

echo "== disk free at the end: $(df -h --output=avail . | tail -1 | tr -d ' '), target: $(du -sh target | cut -f1)"

# One closing line for the whole suite, summed over every cargo test binary, the doc tests
# and pytest.
awk '/^test result:/ { passed += $4; failed += $6; ignored += $8 }
     /^[0-9]+ (passed|failed|skipped)/ {
       for (i = 1; i < NF; i++) {
         if ($(i + 1) ~ /^passed/) passed += $i
         if ($(i + 1) ~ /^failed/) failed += $i
         if ($(i + 1) ~ /^skipped/) ignored += $i
       }
     }
     END { printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, ignored;
           if (passed == 0) { print "error: no test ran"; exit 1 } }' "$log"
