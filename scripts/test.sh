#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test of the workspace (unit, integration,
# doc tests). Run from anywhere; needs only a Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

echo "== cargo test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"

# One closing line for the whole suite, summed over every test binary and the doc tests.
awk '/^test result:/ { passed += $4; failed += $6; ignored += $8 }
     END { printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, ignored;
           if (passed == 0) { print "error: no test ran"; exit 1 } }' "$log"
