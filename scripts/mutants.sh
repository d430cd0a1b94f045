#!/usr/bin/env bash
# Mutation testing with cargo-mutants: change the code, and see whether a test notices.
#
#   bash scripts/mutants.sh [--base REV] [ARGS…]
#       The mutants of a change: every line it changes since its merge base with REV (by
#       default the upstream branch, else origin/main), committed or not. Run it before
#       handing in a change; every mutant it reports as missed needs a test, or an entry in
#       .cargo/mutants.toml saying why no test can catch it.
#   bash scripts/mutants.sh --full [--shard K/N] [ARGS…]
#       Every mutant of mcp-core and mcp-runtime, or the K-th of N slices of them (K from 0).
#       docs/testing.md records the figures of the last full run. (mcp-macros is measured by
#       its ui cases instead: its mutants change the code it generates, which only the tests
#       of the crates using it can see.)
#
# ARGS go to `cargo mutants` (for example `--file mcp-runtime/src/server/*.rs`, `--list`).
#
# Each mutant is tried in two rounds. First against the tests of the crate it lives in,
# which build in seconds; then each mutant those tests missed, or that timed out, against
# every Rust test of the workspace. A mutant counts as missed only when the whole workspace
# misses it. The outcome of both rounds is in mutants.out/ (caught.txt, missed.txt,
# timeout.txt, unviable.txt), each round's own in target/mutants/, and a table of the
# figures per file is printed. The script exits 0 when nothing was missed. A timeout is a
# mutant under which the tests hang: it is reported, to be read (an endless loop is seen by
# the hang; a slow test is not).
#
# cargo-mutants is installed from crates.io when missing. Round 2 runs the scale-out test,
# which needs nginx (scripts/test.sh installs it). The Python SDK and conformance suites are
# not run: a mutant only they would catch shows as missed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  echo "error: round 2 runs the scale-out test, which needs nginx: run scripts/test.sh once, or install it" >&2
  exit 2
fi

if ! cargo mutants --version >/dev/null 2>&1; then
  echo "== installing cargo-mutants"
  cargo install --locked cargo-mutants
fi

base=""
full=false
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="$2"; shift 2 ;;
    --base=*) base="${1#--base=}"; shift ;;
    --full) full=true; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

# The hostile-input tests run the quickstart built from the mutated tree, not this one.
unset QUICKSTART_BIN

if [ "$full" = true ]; then
  scope=(-p mcp-runtime-core -p mcp-runtime)
else
  scope=(-p mcp-runtime-core -p mcp-runtime-macros -p mcp-runtime)
  if [ -z "$base" ]; then
    base=$(git rev-parse --abbrev-ref --symbolic-full-name '@{upstream}' 2>/dev/null) \
      || base=origin/main
  fi
  if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
    echo "error: no commit \`$base\` to compare with: name one with --base REV" >&2
    exit 2
  fi
  merge_base=$(git merge-base HEAD "$base")
  diff=$(mktemp)
  trap 'rm -f "$diff"' EXIT
  # The change as it stands in the working tree, against where it left the base.
  git diff "$merge_base" -- 'mcp-core/src' 'mcp-macros/src' 'mcp-runtime/src' >"$diff"
  if [ ! -s "$diff" ]; then
    echo "mutants: this change touches no source of mcp-core, mcp-macros or mcp-runtime since $(git rev-parse --short "$merge_base")"
    exit 0
  fi
  echo "== the mutants of the change since $(git rev-parse --short "$merge_base")"
  scope+=(--in-diff "$diff")
fi

# Listing only: nothing to run.
for arg in "${args[@]}"; do
  case "$arg" in
    --list|--list-files) exec cargo mutants "${scope[@]}" "${args[@]}" ;;
  esac
done

out=target/mutants
rm -rf "$out/round1" "$out/round2" mutants.out
mkdir -p "$out" mutants.out

# cargo mutants exits 0 when every mutant was caught, 2 when some were missed, 3 when some
# timed out; anything else is a failure of the run itself (4: the tests fail unmutated).
run() {
  local status=0
  cargo mutants "$@" || status=$?
  case "$status" in
    0|2|3) ;;
    *) exit "$status" ;;
  esac
}

echo "== round 1: each mutant against the tests of its own crate"
# `--tests`: the crate's unit and integration tests, without its doc tests, each of which
# would be compiled again for every mutant.
run "${scope[@]}" --test-workspace=false --cargo-test-arg=--tests -o "$out/round1" "${args[@]}"
one="$out/round1/mutants.out"

# Round 2 tries exactly the mutants round 1 missed or that timed out: their files, and their
# names. (cargo-mutants 27 lets field-deletion mutants past --re, so round 2's outcome is
# read for these names only.)
cat "$one/missed.txt" "$one/timeout.txt" 2>/dev/null | sort -u >"$out/again.txt"
again=()
while IFS= read -r name; do
  again+=(--re "^$(printf '%s' "$name" | sed 's/[][\.*^$(){}?+|/]/\\&/g')\$")
done <"$out/again.txt"
while IFS= read -r file; do
  again+=(-f "$file")
done < <(sed 's/:.*//' "$out/again.txt" | sort -u)
: >"$out/round2.caught" ; : >"$out/round2.missed" ; : >"$out/round2.timeout"
if [ -s "$out/again.txt" ]; then
  echo "== round 2: the $(wc -l <"$out/again.txt") mutants round 1 did not catch, against every Rust test of the workspace"
  # Without --shard: round 1 already chose the slice.
  rest=()
  skip=false
  for arg in "${args[@]}"; do
    if [ "$skip" = true ]; then skip=false; continue; fi
    case "$arg" in
      --shard) skip=true ;;
      --shard=*) ;;
      *) rest+=("$arg") ;;
    esac
  done
  # Every package's tests, named one by one. cargo-mutants 27 runs the baseline with the
  # mutated crates' tests only, and would derive from it a time limit far too short for the
  # workspace's: set one.
  workspace=()
  for package in $(cargo metadata --no-deps --format-version 1 \
    | python3 -c 'import json, sys; print(*(p["name"] for p in json.load(sys.stdin)["packages"]))'); do
    workspace+=(--test-package "$package")
  done
  run "${scope[@]}" "${workspace[@]}" --timeout 600 -o "$out/round2" "${again[@]}" "${rest[@]}"
  for outcome in caught missed timeout; do
    grep -Fxf "$out/again.txt" "$out/round2/mutants.out/$outcome.txt" >"$out/round2.$outcome" || true
  done
fi

# The outcome of both rounds, in mutants.out/.
cat "$one/caught.txt" "$out/round2.caught" 2>/dev/null | sort -V >mutants.out/caught.txt
sort -V "$out/round2.missed" >mutants.out/missed.txt
sort -V "$out/round2.timeout" >mutants.out/timeout.txt
sort -V "$one/unviable.txt" >mutants.out/unviable.txt 2>/dev/null || : >mutants.out/unviable.txt

echo
echo "| file | caught | missed | timeout | unviable |"
echo "|---|---:|---:|---:|---:|"
for outcome in caught missed timeout unviable; do
  sed "s/:.*//; s/\$/ $outcome/" "mutants.out/$outcome.txt"
done | awk '{ n[$1, $2]++; files[$1] = 1; total[$2]++ }
  END {
    for (f in files) printf "| %s | %d | %d | %d | %d |\n", f, n[f, "caught"], n[f, "missed"], n[f, "timeout"], n[f, "unviable"]
    printf "| **all** | %d | %d | %d | %d |\n", total["caught"], total["missed"], total["timeout"], total["unviable"]
  }' | sort
for outcome in missed timeout; do
  if [ -s "mutants.out/$outcome.txt" ]; then
    echo
    echo "mutants: $(wc -l <"mutants.out/$outcome.txt") $outcome:"
    sed 's/^/  /' "mutants.out/$outcome.txt"
  fi
done
[ ! -s mutants.out/missed.txt ]
