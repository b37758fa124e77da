#!/usr/bin/env bash
# Excluded Diagonals (CSPLib prob079) at its hard ratio d = round(0.9 n), from n = 21 to 10⁶:
# local search against the backtracker, the SAT engine (varisat) and `auto`, in one compare
# run. The instances come from `queens generate diagonals --first D` (prob079's generator;
# past 4096 rows its prefix of up to n − 4 diagonals is made in linear memory). Engines that
# cannot run at a size (the complete ones past 4096) are `unsupported` there. BENCHMARKS.md,
# "Big boards", and docs/big-boards.md explain the output.
#
#   benches/big-crossover.sh [OUT]
#   PER_N=3 LIMIT=10 SIZES="21 32 64" benches/big-crossover.sh out
set -euo pipefail
cd "$(dirname "$0")/.."
Q=${QUEENS:-target/release/queens}
OUT=${1:-big-crossover}
PER_N=${PER_N:-3}
LIMIT=${LIMIT:-10}
RATIO=${RATIO:-0.9}
SIZES=${SIZES:-21 32 64 128 256 512 1024 4096 10000 100000 1000000}
ENGINES=${ENGINES:-backtrack:1,sat:auto,local,auto}

mkdir -p "$OUT/inputs"
rm -f "$OUT"/inputs/*.jsonl
for n in $SIZES; do
    d=$(awk -v n="$n" -v r="$RATIO" 'BEGIN { printf "%d", n * r + 0.5 }')
    "$Q" generate diagonals --n "$n" --first "$d" --seed 1 --count "$PER_N" \
        -o "$OUT/inputs/diag-$n.jsonl"
done
nice -n 10 "$Q" compare "$OUT"/inputs/*.jsonl --per-n "$PER_N" --engines "$ENGINES" \
    --timeout "$LIMIT" --growth --csv "$OUT/crossover.csv" | tee "$OUT/crossover.txt"
