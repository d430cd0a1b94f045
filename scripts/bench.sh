#!/usr/bin/env bash
# The benchmark of Registry::call against a hand-written serde baseline, in the same run.
#
# The machines are shared and noisy, so the pair (baseline, Registry::call) is measured
# ROUNDS times (default 5), and the table gives the median of each one's medians and the
# median of the per-round ratios. Extra arguments go to criterion: a filter such as
# 'baseline_serde$|registry_call_inline$' measures only those, and the table leaves out the
# pairs not measured. CARGO_TARGET_DIR is followed when set.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
target=${CARGO_TARGET_DIR:-target}
out=$target/bench-rounds
rm -rf "$out" "$target/criterion/two_integer_tool" && mkdir -p "$out"

for round in $(seq 1 "$rounds"); do
  cargo bench -q -p mcp-runtime --bench call -- --warm-up-time 1 --measurement-time 3 "$@" >/dev/null
  cp -r "$target/criterion/two_integer_tool" "$out/$round"
done

python3 - "$out" "$rounds" <<'PY'
import json, pathlib, statistics, sys
out, rounds = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def median_ns(round_, name):
    path = out / str(round_) / name / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"]
pairs = [
    ("returns an object", "baseline_serde", "registry_call_inline"),
    ("returns an integer, sent as {\"result\": n}", "baseline_serde_integer", "registry_call_inline_integer"),
    ("async fn, on a current-thread runtime", "baseline_serde", "registry_call_async"),
    ("sync fn on the blocking pool", "baseline_serde", "registry_call_blocking_pool"),
]
print(f"\n{rounds} rounds; medians in ns\n")
print("| two-integer tool | baseline | Registry::call | ratio (median of rounds) | ratios per round |")
print("|---|---|---|---|---|")
for label, base, ours in pairs:
    if not all((out / str(r) / name).is_dir() for r in range(1, rounds + 1) for name in (base, ours)):
        continue
    b = [median_ns(r, base) for r in range(1, rounds + 1)]
    o = [median_ns(r, ours) for r in range(1, rounds + 1)]
    ratios = [x / y for x, y in zip(o, b)]
    print(f"| {label} | {statistics.median(b):.0f} | {statistics.median(o):.0f} | "
          f"{statistics.median(ratios):.2f}x | {', '.join(f'{r:.2f}' for r in ratios)} |")
PY
