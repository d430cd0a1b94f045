#!/usr/bin/env bash
# What checking an OAuth access token adds to a call (criterion, benches/oauth.rs): a call
# without auth, with an RS256 token and with an ES256 one, the keys kept, in the same run.
#
# The machines are shared and noisy, so the bench is run ROUNDS times (default 5), and the
# table gives the median of each figure's medians, and the median of the per-round added
# cost (with a token − without). Extra arguments go to criterion.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
out=target/bench-oauth-rounds
rm -rf "$out" && mkdir -p "$out"

for round in $(seq 1 "$rounds"); do
  cargo bench -q -p mcp-runtime --features oauth --bench oauth -- \
    --warm-up-time 1 --measurement-time 3 "$@" >/dev/null
  mkdir -p "$out/$round"
  cp -r target/criterion/oauth_call target/criterion/jwt "$out/$round/"
done

python3 - "$out" "$rounds" <<'PY'
import json, pathlib, statistics, sys
out, rounds = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def median_ns(round_, group, name):
    path = out / str(round_) / group / name / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"]
def series(group, name):
    return [median_ns(r, group, name) for r in range(1, rounds + 1)]
def us(ns):
    return f"{ns / 1000:.1f} µs"
none = series("oauth_call", "none")
print(f"\n{rounds} rounds; the medians of criterion's medians\n")
print("| call through the router | time per call | added by the token (median of rounds) | per round | bound |")
print("|---|---|---|---|---|")
print(f"| no auth | {us(statistics.median(none))} | | | |")
for label, name, bound in [("RS256 token, kept key", "rs256_cached_key", 15),
                           ("ES256 token, kept key", "es256_cached_key", 40)]:
    timed = series("oauth_call", name)
    added = [t - n for t, n in zip(timed, none)]
    met = "met" if statistics.median(added) <= bound * 1000 else "**missed**"
    print(f"| {label} | {us(statistics.median(timed))} | {us(statistics.median(added))} | "
          f"{', '.join(f'{a / 1000:.1f}' for a in added)} | ≤ {bound} µs {met} |")
print("\n| jsonwebtoken alone | median of rounds | per round |")
print("|---|---|---|")
for name in ["rs256_decode_validation_per_token", "rs256_decode_validation_prebuilt",
             "es256_decode_validation_per_token", "es256_decode_validation_prebuilt",
             "validation_build", "decode_header", "rs256_key_clone", "es256_key_clone",
             "verified_token_lookup"]:
    values = series("jwt", name)
    print(f"| {name} | {statistics.median(values):.0f} ns | "
          f"{', '.join(f'{v:.0f}' for v in values)} |")
for alg in ["rs256", "es256"]:
    per = series("jwt", f"{alg}_decode_validation_per_token")
    pre = series("jwt", f"{alg}_decode_validation_prebuilt")
    saved = [a - b for a, b in zip(per, pre)]
    print(f"\n{alg}: a prebuilt Validation saves {statistics.median(saved):.0f} ns per token "
          f"(median of rounds; per round {', '.join(f'{s:.0f}' for s in saved)})")
PY
