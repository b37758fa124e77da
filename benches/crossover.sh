#!/usr/bin/env bash
# The crossover study: CSPLib prob079 (Excluded Diagonals) at the hard ratio d ≈ 0.9 n, on the
# backtracker, varisat, CaDiCaL, MiniSat and the race; then the encodings (and the ring
# constraints) under CaDiCaL. Every answer is verified and engines that disagree fail the run
# (exit 3). BENCHMARKS.md, "SAT solvers against backtracking: the crossover", and
# docs/sat-solvers.md explain the output.
#
#   benches/crossover.sh [OUT]          # the full study: about a day on two cores
#   PER_N=2 LIMIT=5 SIZES="16 18 20 22 24" benches/crossover.sh out   # a reduced run
#
# Inputs: n <= 21 from ../shared/data/csplib-prob079-excluded-diagonals.jsonl (prob079's
# own instances, the first PER_N of each size); larger n from `queens generate diagonals`
# (the same generator, seed 1 onwards). `compare --first-ratio` takes the first round(R·n)
# diagonals of each instance.
set -euo pipefail
cd "$(dirname "$0")/.."
Q=${QUEENS:-target/release/queens}
OUT=${1:-crossover}
PER_N=${PER_N:-20}
LIMIT=${LIMIT:-60}
RATIO=${RATIO:-0.9}
SIZES=${SIZES:-$(seq 16 40)}
PROB079=${PROB079:-../shared/data/csplib-prob079-excluded-diagonals.jsonl}
ENGINES=${ENGINES:-backtrack:1,backtrack:2,sat:seq,ext:cadical,ext:minisat,race:seq}
ENCODINGS=${ENCODINGS:-backtrack:1,ext:cadical:pairwise,ext:cadical:seq,ext:cadical:product,ext:cadical:bimander,ext:cadical,ext:cadical+rings}

mkdir -p "$OUT/inputs"
rm -f "$OUT"/inputs/*.jsonl
for n in $SIZES; do
    if [ "$n" -le 21 ] && [ -f "$PROB079" ]; then
        grep -m "$PER_N" "\"n\":$n," "$PROB079" > "$OUT/inputs/prob079-$n.jsonl"
    else
        if [ "$n" -le 21 ]; then
            echo "crossover: $PROB079 not found: generating the n = $n instances instead" >&2
        fi
        "$Q" generate diagonals --n "$n" --seed 1 --count "$PER_N" -o "$OUT/inputs/generated-$n.jsonl"
    fi
done

run() { # name engines
    nice -n 10 "$Q" compare "$OUT"/inputs/*.jsonl --first-ratio "$RATIO" --per-n "$PER_N" \
        --engines "$2" --timeout "$LIMIT" --growth --csv "$OUT/$1.csv" \
        --plot "$OUT/$1-scatter.svg" --growth-plot "$OUT/$1-growth.svg" | tee "$OUT/$1.txt"
}
run engines "$ENGINES"
run encodings "$ENCODINGS"
