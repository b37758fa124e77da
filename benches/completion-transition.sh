#!/usr/bin/env bash
# Random n-queens completion near its satisfiability crossing: `queens solve` against OR-Tools
# CP-SAT on the same instances. The instances are Gent, Jefferson & Nightingale's ("Complexity
# of n-Queens Completion", JAIR 59, 2017), made by `queens generate completion --n N --queens M
# --seed S` with M = N − δ fixed queens, so δ rows (and columns) are left free. CP-SAT gets the
# model a CP user would write (benches/cpsat_completion.py): one variable per free row over
# the free columns no fixed queen attacks, AllDifferent on x, r + x and r − x, 2 workers.
#
#   benches/completion-transition.sh                    the default points, 10 seeds, 120 s
#   benches/completion-transition.sh --quick            a smoke run: 3 small points, 2 seeds, 10 s
#   benches/completion-transition.sh --sweep            δ = 400, 450, …, 800 at n = 100000
#   SEEDS=2 LIMIT=30 benches/completion-transition.sh 7600:200    chosen points N:δ
#
# Default points (n:δ): near the crossing 7600:130 30000:260 100000:470 1000000:1500; on the
# satisfiable side 4000:200 7600:200 30000:400 100000:730 1000000:2300. The worst case is
# points × SEEDS × 2 × LIMIT (6 hours for the default, and for --sweep), far less when
# instances are decided.
#
# Each instance: generate it (timed), `queens solve FILE --json --timeout LIMIT -o SOL`
# (status, its own time_ms, answered_by, and `core` when the answer has one), check a `sat`
# board in Python against the instance, then CP-SAT with the same limit (its time_ms is model
# building plus search; reading the file is apart). Both limits count from the start of the
# command, file read included. A `timeout`, CP-SAT's `unknown` or a killed run is undecided.
# It prints the machine, one line per instance and a summary per point (decided counts, total
# and median seconds of both, queens/CP-SAT of the totals; an undecided instance counts with
# the time it used), and writes OUT (CSV) and OUT with .txt in place of .csv (what it printed).
# Exit 0 when the run completed, undecided instances or not; exit 3 when the two solvers
# disagree on an instance or a board fails its check; exit 2 on a setup error.
#
# Settings (environment variables; QUEENS and OUT are relative to the repository root):
#   SIZES="N:δ …"   the points (arguments N:δ do the same); SWEEP=1 is --sweep
#   SEEDS=10        seeds FIRST_SEED..FIRST_SEED+SEEDS−1 at each point
#   FIRST_SEED=1    (a second run with FIRST_SEED=6 SEEDS=5 extends one of seeds 1..5)
#   LIMIT=120       seconds per solver per instance
#   GRACE=60        seconds past LIMIT before a run is killed (loading a 10⁶ board takes time)
#   NICE=10         niceness of every run
#   QUEENS=target/release/queens   copied at the start: a rebuild during the run cannot mix builds
#   OUT=target/bench/completion-transition-DATE.csv
#   VENV=${TMPDIR:-/tmp}/queens-bench-cpsat   the throw-away virtual environment for CP-SAT,
#                   made on first use and reused
#   ORTOOLS=ortools==9.15.6755   what pip installs into it
set -euo pipefail
cd "$(dirname "$0")/.."

CROSSING="7600:130 30000:260 100000:470 1000000:1500"
SAT_SIDE="4000:200 7600:200 30000:400 100000:730 1000000:2300"
SIZES=${SIZES:-$CROSSING $SAT_SIDE}
SEEDS=${SEEDS:-10}
FIRST_SEED=${FIRST_SEED:-1}
LIMIT=${LIMIT:-120}
SWEEP=${SWEEP:-0}
QUEENS=${QUEENS:-target/release/queens}
NICE=${NICE:-10}
GRACE=${GRACE:-60}
VENV=${VENV:-${TMPDIR:-/tmp}/queens-bench-cpsat}
ORTOOLS=${ORTOOLS:-ortools==9.15.6755}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
points=()
for arg in "$@"; do
    case "$arg" in
        --quick) SIZES="2000:80 4000:150 7600:200"; SEEDS=2; LIMIT=10 ;;
        --sweep) SWEEP=1 ;;
        -h|--help) usage; exit 0 ;;
        *:*) points+=("$arg") ;;
        *) echo "completion-transition: unknown argument $arg (see --help)" >&2; exit 2 ;;
    esac
done
if [ "${#points[@]}" -gt 0 ]; then
    SIZES="${points[*]}"
elif [ "$SWEEP" = 1 ]; then
    SIZES=$(seq -f '100000:%g' 400 50 800 | tr '\n' ' ')
fi
for p in $SIZES; do
    if ! [[ $p =~ ^[1-9][0-9]*:[0-9]+$ ]] || [ "${p##*:}" -gt "${p%%:*}" ]; then
        echo "completion-transition: a point is N:δ with 0 ≤ δ ≤ N, not $p" >&2
        exit 2
    fi
done

OUT=${OUT:-target/bench/completion-transition-$(date +%Y%m%d-%H%M%S).csv}
mkdir -p "$(dirname "$OUT")"
LOG=${OUT%.csv}.txt

if ! "$VENV/bin/python" -c 'import ortools' 2>/dev/null; then
    echo "completion-transition: installing $ORTOOLS into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "$ORTOOLS"
fi
PY=$VENV/bin/python
WORK=$(mktemp -d "${TMPDIR:-/tmp}/completion-transition.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# One build for the whole run. A binary being relinked as it is copied does not start: try
# again a few times before giving up.
for try in 1 2 3 4 5; do
    if [ -x "$QUEENS" ] && cp "$QUEENS" "$WORK/queens" && "$WORK/queens" --version > /dev/null 2>&1; then
        break
    fi
    if [ "$try" = 5 ]; then
        echo "completion-transition: no working queens binary at $QUEENS (cargo build --release, or set QUEENS)" >&2
        exit 2
    fi
    sleep 3
done
BUILD="$QUEENS, sha256 $(sha256sum "$WORK/queens" | cut -c1-12), built $(date -u -r "$QUEENS" +%Y-%m-%dT%H:%M:%SZ)"
QUEENS=$WORK/queens

# Milliseconds since the epoch, for wall times measured from outside each process.
now_ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }'; }
# Runs a command niced and killed GRACE seconds after the limit; its exit code is in $rc.
# `timeout` puts the command in a process group of its own, which Ctrl-C does not reach, so
# it runs in the background and an interrupted run stops it (`stop`, trapped in `main`).
run() {
    rc=0
    nice -n "$NICE" timeout -k 5 "$((LIMIT + GRACE))" "$@" &
    child=$!
    wait "$child" || rc=$?
    child=
}
stop() {
    [ -z "${child:-}" ] || kill -TERM "$child" 2> /dev/null || true
    echo "completion-transition: interrupted; the CSV so far is $OUT" >&2
    exit 130
}
# Reads one line of completion_report.py's fields into the named variables.
fields() { local what=$1 file=$2; shift 2; IFS=$'\x1f' read -r "$@" < <("$PY" benches/completion_report.py "$what" "$file"); }

header() {
    local cpu mem
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
    mem=$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)
    echo "# completion-transition: queens solve against OR-Tools CP-SAT on random completions"
    echo "# date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# machine: $(nproc) cores, ${cpu:-unknown CPU}, $mem"
    # The binary's hash and date too: it may be built from a tree other than this one.
    echo "# queens:  $("$QUEENS" --version), $BUILD"
    echo "# repo:    commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' with local changes')"
    echo "# cp-sat:  ortools $("$PY" -c 'import ortools; print(ortools.__version__)'), $("$PY" --version), 2 workers"
    echo "# run:     points (n:δ) $SIZES; seeds $FIRST_SEED..$((FIRST_SEED + SEEDS - 1)); limit $LIMIT s per solver; nice $NICE"
    echo "# csv:     $OUT"
}

# One instance: generate, queens, check queens' board, CP-SAT; a CSV line and a table line.
instance() {
    local n=$1 delta=$2 seed=$3 inst sol t0 gen_ms
    local q_status q_ms q_by q_core q_wall q_board=
    local fixed free c_status c_ms c_solve c_ok c_wall agree=-
    inst=$WORK/c-$n-$delta-$seed.json sol=$WORK/c-$n-$delta-$seed.sol
    t0=$(now_ms)
    run "$QUEENS" generate completion --n "$n" --queens "$((n - delta))" --seed "$seed" -o "$inst"
    gen_ms=$(($(now_ms) - t0))
    if [ "$rc" != 0 ]; then
        echo "completion-transition: generating n=$n δ=$delta seed $seed failed (exit $rc)" >&2
        exit 2
    fi

    # queens exits 0 (sat), 1 (unsat) or 4 (timeout); anything else is an error row.
    rm -f "$sol"
    t0=$(now_ms)
    run "$QUEENS" solve "$inst" --json --timeout "$LIMIT" -o "$sol" > "$WORK/solve.json" 2> "$WORK/solve.err"
    q_wall=$(($(now_ms) - t0))
    fields solve-fields "$WORK/solve.json" q_status q_ms q_by q_core
    case "$rc" in
        0|1|4) ;;
        124|137) q_status=killed ;;
        *) q_status=error
           echo "completion-transition: queens solve exit $rc on n=$n δ=$delta seed $seed: $(head -c 300 "$WORK/solve.err")" >&2 ;;
    esac
    q_ms=${q_ms:-$q_wall}
    if [ "$q_status" = sat ]; then
        q_board=ok
        if ! "$PY" benches/cpsat_completion.py "$inst" --board "$sol" > "$WORK/board.json"; then
            q_board=bad failed=1
            echo "completion-transition: queens' board for n=$n δ=$delta seed $seed fails the check: $(cat "$WORK/board.json")" >&2
        fi
    fi

    t0=$(now_ms)
    run "$PY" benches/cpsat_completion.py "$inst" --limit "$LIMIT" --workers 2 > "$WORK/cpsat.json"
    c_wall=$(($(now_ms) - t0))
    fields cpsat-fields "$WORK/cpsat.json" fixed free c_status c_ms c_solve c_ok
    case "$rc" in
        0) ;;
        3) failed=1
           echo "completion-transition: CP-SAT's board for n=$n δ=$delta seed $seed fails the check: $(cat "$WORK/cpsat.json")" >&2 ;;
        124|137) c_status=killed ;;
        *) c_status=error
           echo "completion-transition: cpsat_completion.py exit $rc on n=$n δ=$delta seed $seed" >&2 ;;
    esac
    c_ms=${c_ms:-$c_wall}
    case "$c_ok" in True) c_ok=ok ;; False) c_ok=bad ;; *) c_ok= ;; esac

    case "$q_status/$c_status" in
        sat/sat|unsat/unsat) agree=yes ;;
        sat/unsat|unsat/sat) agree=no failed=1 ;;
    esac
    # `free` is what the generator left: more than δ when its attempts ran out early.
    echo "$n,$delta,$seed,$fixed,$free,$gen_ms,$q_status,$q_ms,$q_wall,$q_by,$q_board,\"${q_core//\"/\"\"}\",$c_status,$c_ms,$c_solve,$c_wall,$c_ok,$agree" >> "$OUT"
    printf '%8s %5s %4s %5s %7s | %-7s %8s %-9s %-5s | %-7s %8s | %s\n' "$n" "$delta" "$seed" \
        "$free" "$(secs "$gen_ms")" "$q_status" "$(secs "$q_ms")" "$q_by" "${q_board:--}" \
        "$c_status" "$(secs "$c_ms")" "$agree"
    [ -z "$q_core" ] || echo "    queens core: $q_core"
    rm -f "$inst" "$sol"
}

main() {
    local p seed
    trap stop INT TERM
    header
    echo "n,delta,seed,fixed,free,gen_ms,queens_status,queens_time_ms,queens_wall_ms,queens_answered_by,queens_board,queens_core,cpsat_status,cpsat_time_ms,cpsat_solve_ms,cpsat_wall_ms,cpsat_board,agree" > "$OUT"
    echo
    printf '%8s %5s %4s %5s %7s | %-7s %8s %-9s %-5s | %-7s %8s | %s\n' \
        n δ seed free gen_s queens time_s by board cp-sat time_s agree
    for p in $SIZES; do
        for seed in $(seq "$FIRST_SEED" $((FIRST_SEED + SEEDS - 1))); do
            instance "${p%%:*}" "${p##*:}" "$seed"
        done
    done
    echo
    echo "per point: decided (sat/unsat/undecided) and seconds; an undecided instance counts with the time it used"
    "$PY" benches/completion_report.py summary "$OUT"
    if [ "$failed" = 1 ]; then
        echo "completion-transition: the solvers disagree or a board failed its check (above)" >&2
        exit 3
    fi
}

failed=0
main 2>&1 | tee "$LOG"
