#!/usr/bin/env bash
# Where random n-queens completions cross from "no completion" to "completable": for each
# board size and number of free rows δ, the share of SEEDS instances of
# `queens generate completion --n N --queens N−δ --seed S` (Gent, Jefferson & Nightingale's
# generator) that `queens solve` (auto) completes. The crossing is the δ where half are.
# docs/big-boards.md quotes its figures.
#
#   benches/completion-crossing.sh                         the default sizes and δ
#   SEEDS=20 benches/completion-crossing.sh 4000:60,80,100   chosen points N:δ,δ,…
#
# Settings: SEEDS (10), LIMIT (seconds a solve, 60), QUEENS (target/release/queens),
# OUT (target/bench/completion-crossing-DATE.csv). Exit 3 when an instance is undecided.
set -euo pipefail
cd "$(dirname "$0")/.."
POINTS=${POINTS:-"1000:30,40,50,60,70 4000:60,80,100,120,140 20000:140,160,180,200,220 100000:220,260,300,340 1000000:340,380,420,460"}
if [ "$#" -gt 0 ]; then POINTS="$*"; fi
SEEDS=${SEEDS:-10}
LIMIT=${LIMIT:-60}
QUEENS=${QUEENS:-target/release/queens}
OUT=${OUT:-target/bench/completion-crossing-$(date +%Y%m%d-%H%M%S).csv}
mkdir -p "$(dirname "$OUT")"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/completion-crossing.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$QUEENS" "$WORK/queens"
Q=$WORK/queens
echo "# completion-crossing $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, seeds 1..$SEEDS"
echo "n,delta,seed,status" > "$OUT"
undecided=0
for point in $POINTS; do
    n=${point%%:*}
    for delta in $(echo "${point#*:}" | tr ',' ' '); do
        sat=0
        for seed in $(seq 1 "$SEEDS"); do
            "$Q" generate completion --n "$n" --queens "$((n - delta))" --seed "$seed" \
                -o "$WORK/i.json"
            status=$("$Q" solve "$WORK/i.json" --json --timeout "$LIMIT" -o "$WORK/s.txt" |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])' || true)
            echo "$n,$delta,$seed,$status" >> "$OUT"
            case "$status" in
                sat) sat=$((sat + 1)) ;;
                unsat) ;;
                *) undecided=$((undecided + 1)) ;;
            esac
        done
        printf 'n %8s  δ %6s  completable %2s of %s\n' "$n" "$delta" "$sat" "$SEEDS"
    done
done
[ "$undecided" = 0 ] || { echo "$undecided instances undecided"; exit 3; }
