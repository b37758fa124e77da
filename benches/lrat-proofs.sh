#!/usr/bin/env bash
# Cost of a checked proof of "no": the unsatisfiable prob079 n = 21 instances among the
# first 100 of the corpus (their first 19 diagonals), plain search against proofs written
# and checked, and the outside checkers on the same proofs, all in one run.
#
#   bash benches/lrat-proofs.sh OLD_QUEENS NEW_QUEENS [WORK_DIR]
#
# Prints one line per instance and the totals (wall and user + system seconds). OLD runs
# its default proof (text LRAT); NEW runs text LRAT and binary LRAT; lrat-check reads the
# text, cake_lpr the binary (with a 256 MB heap: its default 4 GB heap costs page faults).
set -euo pipefail
OLD=$1 NEW=$2 W=${3:-$(mktemp -d)}
D=${D:-$(dirname "$0")/../../shared/data/csplib-prob079-excluded-diagonals.jsonl}
mkdir -p "$W"
ids=$(grep '"n":21' "$D" | sed 's/.*"id":"\([^"]*\)".*/\1/' | awk 'NR <= 100')
t() { /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" >"$W/out" 2>&1 || true; awk '{print $1, $2 + $3}' "$W/t" | tail -1; }
# `add` runs at the end of a pipe (a subshell): the times go through a file.
: >"$W/times"
add() { read -r w c; echo "$1 $w $c" >>"$W/times"; echo -n " $1 $w/$c"; }
lemmas=0 bytes=0 bbytes=0 n=0
for id in $ids; do
    if "$NEW" solve "$D" --select id="$id" --first 19 --json >/dev/null 2>&1; then continue; fi
    n=$((n + 1)); echo -n "$id:"
    t "$NEW" solve "$D" --select id="$id" --first 19 --json | add plain
    t "$OLD" solve "$D" --select id="$id" --first 19 --proof "$W/old.lrat" --json | add old_lrat
    t "$NEW" solve "$D" --select id="$id" --first 19 --proof "$W/new.lrat" --json | add new_lrat
    l=$(grep -o '"lemmas":[0-9]*' "$W/out" | cut -d: -f2); lemmas=$((lemmas + l))
    bytes=$((bytes + $(stat -c %s "$W/new.lrat")))
    t "$NEW" solve "$D" --select id="$id" --first 19 --proof "$W/new.blrat" --proof-format binary-lrat --json | add new_blrat
    bbytes=$((bbytes + $(stat -c %s "$W/new.blrat")))
    t lrat-check "$W/new.lrat.cnf" "$W/new.lrat" | add lrat_check
    grep -q "^c VERIFIED" "$W/out" || echo " lrat-check REJECTED $id"
    t env CML_HEAP_SIZE=256 cake_lpr "$W/new.blrat.cnf" "$W/new.blrat" | add cake_lpr
    grep -q "s VERIFIED UNSAT" "$W/out" || echo " cake_lpr REJECTED $id"
    echo
    rm -f "$W"/old.lrat* "$W"/new.*
done
echo "instances $n lemmas $lemmas text_bytes $bytes binary_bytes $bbytes"
echo "text bytes/lemma $(echo "scale=1; $bytes / $lemmas" | bc) binary bytes/lemma $(echo "scale=1; $bbytes / $lemmas" | bc)"
awk '{ w[$1] += $2; c[$1] += $3; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
     END { for (i = 0; i < n; i++) { k = order[i];
           printf "%-10s wall %8.2f s  cpu %8.2f s  %6.2fx wall  %6.2fx cpu\n", k, w[k], c[k],
                  w[k] / w["plain"], c[k] / c["plain"] } }' "$W/times"
