#!/usr/bin/env bash
# What each of mcp-runtime's Cargo features costs a tool binary: the size of a release
# build of examples/multi-crate/server (two tools in a library crate, served by a binary
# whose main is one line), and the time of its clean build, per feature set.
#
# Each set builds from nothing in a target directory of its own (target/feature-sizes/SET).
# The wall time depends on the machine and what else it runs; the CPU time (user and
# system, summed over the compiler's processes) much less, so it is the one to compare.
# Sets may be named on the command line (`none http client oauth redis all`, the default).
set -euo pipefail
cd "$(dirname "$0")/.."
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(none http client oauth redis all)
root=target/feature-sizes
mkdir -p "$root"

features_of() {
  case "$1" in
    none) echo "" ;;
    all) echo "mcp-runtime/http,mcp-runtime/client,mcp-runtime/tls,mcp-runtime/oauth,mcp-runtime/redis" ;;
    *) echo "mcp-runtime/$1" ;;
  esac
}

printf '%-8s %12s %14s %9s %8s\n' set "binary (MiB)" "stripped (MiB)" "wall (s)" "CPU (s)"
for set in "${sets[@]}"; do
  dir="$root/$set"
  rm -rf "$dir"
  features=$(features_of "$set")
  times=$(mktemp)
  started=$(date +%s.%N)
  CARGO_TARGET_DIR="$dir" CARGO_INCREMENTAL=0 /usr/bin/time -f '%U %S' -o "$times" \
    cargo build --quiet --locked --release -p multi-crate-server ${features:+--features "$features"}
  ended=$(date +%s.%N)
  cpu=$(awk '{ print $1 + $2 }' "$times")
  rm -f "$times"
  binary="$dir/release/multi-crate-server"
  strip -o "$dir/stripped" "$binary"
  printf '%-8s %12.1f %14.1f %9.0f %8.0f\n' "$set" \
    "$(echo "$(stat -c %s "$binary") / 1048576" | bc -l)" \
    "$(echo "$(stat -c %s "$dir/stripped") / 1048576" | bc -l)" \
    "$(echo "$ended - $started" | bc -l)" "$cpu"
  rm -rf "$dir"
done
