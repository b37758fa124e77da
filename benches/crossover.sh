#!/usr/bin/env bash
# The crossover study: CSPLib prob079 (Excluded Diagonals) at d ≈ 0.9 n on the backtracker
# (one and two threads), varisat, CaDiCaL, MiniSat, the race and the local search; then the
# encodings (and the ring constraints) under CaDiCaL. Every answer is verified by `queens
# compare`; engines that disagree, or an answer that contradicts the label an instance was
# selected with, stop the run with exit 3. BENCHMARKS.md section 6 reports it and
# docs/sat-solvers.md ("The crossover study") explains the protocol.
#
#   benches/crossover.sh OUT                 # the study as reported: about an hour
#   LIMIT=60 benches/crossover.sh OUT        # the same with a 60 s limit per attempt
#   benches/crossover.sh report OUT          # the tables and plots again from OUT/runs
#   benches/crossover.sh unsat OUT           # afterwards: the unsatisfiable instances of
#                                            # n = 20, 21 again, 60 s (UNSAT_SIZES, UNSAT_LIMIT)
#
# OUT must be outside the repository: OUT/inputs holds copies of the CSPLib instances it ran.
# It gets OUT/report.md (the tables), OUT/engines-growth.svg, OUT/encodings-growth.svg,
# OUT/attempts.csv (one line per attempt) and OUT/runs/*.json (compare's own output).
#
# Settings (environment variables, defaults as reported):
#   LIMIT=10            seconds per attempt; a timeout counts as "not solved"
#   PER_N=20            instances per board size
#   SIZES="16 17 18 19 20 21 22 23 24 26 28 32 36 40"
#   RATIO=0.9           d = round(RATIO·n) excluded diagonals, the first d of each list
#   BALANCE_UP_TO=24    up to this n, the backtracker (2 threads, LABEL_LIMIT=10 s) labels the
#                       first POOL=80 instances and the first PER_N/2 satisfiable and PER_N/2
#                       unsatisfiable ones are taken; if either kind is short, d moves by one
#                       towards it (up to twice). Above, seeds 1..PER_N as they come.
#   ENGINES, LOCAL      the engines (censored: an engine that answers fewer than half the
#                       instances of a size is not run at larger sizes)
#   ENC_SIZES="18 20 22" ENC_PER_N=10 ENCODINGS=...   the encodings sub-study
#   PROB079=../shared/data/csplib-prob079-excluded-diagonals.jsonl  (n <= 21 come from here;
#                       the study stops if it is missing)
#   QUEENS=target/release/queens   NICE=5
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = report ] || [ "${1:-}" = unsat ]; then
    exec python3 benches/crossover.py "$1" "${2:?usage: benches/crossover.sh $1 OUT}"
fi
OUT=${1:?usage: benches/crossover.sh OUT (a folder outside the repository)}
case "$(realpath -m "$OUT")/" in
    "$(pwd -P)"/*) echo "crossover: $OUT is inside the repository; give a folder outside it" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
exec python3 benches/crossover.py run "$OUT"
