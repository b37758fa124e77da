#!/usr/bin/env bash
# `auto` against each engine alone on random n-queens completions, from the crossing (half of
# the instances completable) to 60 % of the rows free. The instances are Gent, Jefferson &
# Nightingale's ("Complexity of n-Queens Completion", JAIR 59, 2017), made by
# `queens generate completion --n N --queens M --seed S` with M = N − δ, so δ rows are free.
# Each instance is solved three times in the same run: `--engine auto`, `--engine local` and
# `--engine backtrack` (the complete engine: past 4096 rows it searches the core of the
# completion, and refuses a core of more than 40 % or 8,192 of the rows; up to 4096 it
# searches the whole board on all cores). Wall time and peak memory (maximum resident set)
# come from /usr/bin/time around each run. On a machine shared with other work a run's wall
# time swings by a few hundred milliseconds, so each engine runs up to REPEAT times on an
# instance, and the fastest run (and its peak) is kept; a run over 2 s is not repeated.
#
#   benches/auto-portfolio.sh                       the full grid, 5 seeds, 60 s
#   SEEDS=2 LIMIT=20 benches/auto-portfolio.sh 20000:4000 20000:8000    chosen points N:δ
#
# It prints one line per run and a table per instance: the faster engine that decided it,
# `auto`'s time and peak against it, and whether `auto` is within 1.5× + 50 ms of its time and
# 2× + 20 MB of its peak, and decided every instance an engine decided. Writes OUT (CSV) and
# OUT with .txt in place of .csv. Exit 0 when the run completed, 3 when a board failed its
# check or two engines disagree, 2 on a setup error.
#
# Settings (environment variables):
#   SIZES="N:δ …"  the points (arguments N:δ do the same)
#   SEEDS=5        seeds 1..SEEDS at each point
#   LIMIT=60       seconds per run (`--timeout`); a run is killed 30 s later
#   REPEAT=3       runs per engine and instance, the fastest kept
#   QUEENS=target/release/queens   copied at the start
#   OUT=target/bench/auto-portfolio-DATE.csv
set -euo pipefail
cd "$(dirname "$0")/.."

# The crossings measured in docs/big-boards.md, then 2×, 5 %, 20 %, 40 % and 60 % of n.
GRID="1000:60 1000:120 1000:200 1000:400 1000:600
4000:100 4000:200 4000:800 4000:1600 4000:2400
20000:180 20000:400 20000:2000 20000:4000 20000:8000 20000:12000
100000:280 100000:600 100000:5000 100000:20000 100000:60000
1000000:400 1000000:1000 1000000:50000 1000000:600000"
SIZES=${SIZES:-$GRID}
SEEDS=${SEEDS:-5}
LIMIT=${LIMIT:-60}
REPEAT=${REPEAT:-3}
QUEENS=${QUEENS:-target/release/queens}
ENGINES="auto local backtrack"
if [ "$#" -gt 0 ]; then SIZES="$*"; fi
for p in $SIZES; do
    if ! [[ $p =~ ^[1-9][0-9]*:[0-9]+$ ]] || [ "${p##*:}" -gt "${p%%:*}" ]; then
        echo "auto-portfolio: a point is N:δ with 0 ≤ δ ≤ N, not $p" >&2
        exit 2
    fi
done
[ -x /usr/bin/time ] || { echo "auto-portfolio: needs /usr/bin/time (GNU time)" >&2; exit 2; }
OUT=${OUT:-target/bench/auto-portfolio-$(date +%Y%m%d-%H%M%S).csv}
mkdir -p "$(dirname "$OUT")"
LOG=${OUT%.csv}.txt
WORK=$(mktemp -d "${TMPDIR:-/tmp}/auto-portfolio.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$QUEENS" "$WORK/queens" && "$WORK/queens" --version > /dev/null ||
    { echo "auto-portfolio: no working queens binary at $QUEENS" >&2; exit 2; }
Q=$WORK/queens

exec > >(tee "$LOG") 2>&1
echo "# auto-portfolio $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(uname -sr)"
echo "# binary $QUEENS sha256 $(sha256sum "$Q" | cut -c1-12); seeds 1..$SEEDS; limit ${LIMIT} s; best of $REPEAT"
echo "n,delta,seed,engine,status,answered_by,wall_s,peak_mb" > "$OUT"
for p in $SIZES; do
    n=${p%%:*}; delta=${p##*:}
    for seed in $(seq 1 "$SEEDS"); do
        inst=$WORK/inst.json
        "$Q" generate completion --n "$n" --queens "$((n - delta))" --seed "$seed" -o "$inst"
        for engine in $ENGINES; do
            best=
            for try in $(seq 1 "$REPEAT"); do
                rc=0
                /usr/bin/time -f '%e %M' -o "$WORK/time" timeout -k 5 "$((LIMIT + 30))" \
                    "$Q" solve "$inst" --engine "$engine" --timeout "$LIMIT" --json \
                    -o "$WORK/sol.txt" > "$WORK/out.json" 2> "$WORK/err" || rc=$?
                read -r t_wall t_peak < <(tail -1 "$WORK/time")
                if [ -z "$best" ] || awk -v a="$t_wall" -v b="$wall" 'BEGIN { exit !(a < b) }'; then
                    best=1; wall=$t_wall; peak_kb=$t_peak
                    status=$(python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1]))["status"])
except Exception: print("error")' "$WORK/out.json")
                    [ "$rc" -ge 124 ] && status=killed
                    by=$(python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1])).get("answered_by") or "")
except Exception: print("")' "$WORK/out.json")
                    if [ "$status" = error ]; then by=$(head -c 60 "$WORK/err" | tr ',\n' ';  '); fi
                fi
                rm -f "$WORK/sol.txt"
                awk -v w="$t_wall" 'BEGIN { exit !(w > 2) }' && break
            done
            peak=$(awk -v k="$peak_kb" 'BEGIN { printf "%.1f", k / 1024 }')
            echo "$n,$delta,$seed,$engine,$status,$by,$wall,$peak" >> "$OUT"
            printf '%8s %7s seed %s %-9s %-8s %-9s %7s s %8s MB\n' \
                "$n" "$delta" "$seed" "$engine" "$status" "$by" "$wall" "$peak"
        done
    done
done

python3 - "$OUT" <<'PY'
import csv, sys
from collections import defaultdict
runs = defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    runs[(int(r["n"]), int(r["delta"]), int(r["seed"]))][r["engine"]] = r
decided = lambda r: r["status"] in ("sat", "unsat")
bad = 0
points = defaultdict(list)
for (n, d, s), e in sorted(runs.items()):
    answers = {r["status"] for r in e.values() if decided(r)}
    if len(answers) > 1:
        print(f"DISAGREE n={n} δ={d} seed={s}: {answers}")
        bad = 1
    alone = [e[k] for k in ("local", "backtrack") if k in e and decided(e[k])]
    a = e.get("auto")
    if not alone:
        ok_t = ok_m = True
        best = None
    else:
        best = min(alone, key=lambda r: float(r["wall_s"]))
        bt, bm = float(best["wall_s"]), float(best["peak_mb"])
        ok_t = decided(a) and float(a["wall_s"]) <= 1.5 * bt + 0.05
        ok_m = decided(a) and float(a["peak_mb"]) <= 2 * bm + 20
    points[(n, d)].append((e, best, ok_t, ok_m))
print()
print("| n | free rows | seeds | decided (auto / local / backtrack) | auto median s (answered by) | faster engine median s | auto / best time (worst) | auto / best peak MB (worst) | targets met |")
print("|---|---|---|---|---|---|---|---|---|")
med = lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan")
for (n, d), rows in sorted(points.items()):
    dec = {k: sum(1 for e, *_ in rows if k in e and decided(e[k])) for k in ("auto", "local", "backtrack")}
    at = [float(e["auto"]["wall_s"]) for e, *_ in rows]
    bys = sorted({e["auto"]["answered_by"] for e, *_ in rows if e["auto"]["answered_by"]})
    bt = [float(b["wall_s"]) for _, b, *_ in rows if b]
    worst_t = max((float(e["auto"]["wall_s"]) / max(float(b["wall_s"]), 1e-3), float(e["auto"]["wall_s"]), float(b["wall_s"])) for e, b, *_ in rows if b) if bt else None
    worst_m = max((float(e["auto"]["peak_mb"]), float(b["peak_mb"])) for e, b, *_ in rows if b) if bt else None
    met = sum(1 for *_, ok_t, ok_m in rows if ok_t and ok_m)
    wt = f"{worst_t[0]:.2f}× ({worst_t[1]:.2f} vs {worst_t[2]:.2f} s)" if worst_t else "—"
    wm = f"{worst_m[0]:.0f} vs {worst_m[1]:.0f}" if worst_m else "—"
    print(f"| {n} | {d} ({100*d/n:.1f} %) | {len(rows)} | {dec['auto']} / {dec['local']} / {dec['backtrack']} | {med(at):.2f} ({', '.join(bys)}) | {med(bt):.2f} | {wt} | {wm} | {met} of {len(rows)} |")
    if dec["auto"] < max(dec["local"], dec["backtrack"]):
        print(f"  auto decided fewer instances than an engine at n={n} δ={d}")
sys.exit(3 if bad else 0)
PY
