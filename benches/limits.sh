#!/usr/bin/env bash
# Measures each row of docs/cli.md's Limits table on this machine and prints the table:
# wall time and peak resident memory of each command (GNU time: apt-get install time), its
# exit code, and what it answered, one run each.
#
#   benches/limits.sh            # uses target/release/queens (cargo build --release first)
#   QUEENS=path/to/queens benches/limits.sh
#
# Each row runs under `timeout` (ROW_TIMEOUT seconds, default 300; the SAT explain row asks
# the command itself for --timeout 240), so the whole run is bounded: about 6 minutes on the
# reference machine (2 cores, 24 GiB). Run it niced on a shared machine: `nice -n 19
# benches/limits.sh`; the figures of a busy machine are upper bounds.
set -euo pipefail
cd "$(dirname "$0")/.."
queens=${QUEENS:-target/release/queens}
row_timeout=${ROW_TIMEOUT:-300}
[ -x "$queens" ] || { echo "no $queens: cargo build --release first, or set QUEENS" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }
queens=$(cd "$(dirname "$queens")" && pwd)/$(basename "$queens")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$queens" generate completion --n 4096 --queens 3 --seed 1 -o "$work/c4096.json" >/dev/null 2>&1
echo '{"n":1500,"queens":[[1496,1],[1495,3]]}' >"$work/n1500.json"

# One row: LABEL CASE COMMAND...; prints "| LABEL | CASE | TIME | MEMORY | ANSWER |".
row() {
    local label=$1 case=$2
    shift 2
    local stats=$work/time.txt out=$work/out.txt
    set +e
    (cd "$work" && timeout -s KILL "$row_timeout" /usr/bin/time -f '%e %M' -o "$stats" "$@" \
        >"$out" 2>&1)
    local code=$?
    set -e
    local secs kb
    if [ -s "$stats" ] && read -r secs kb < <(tail -n 1 "$stats") && [[ $secs =~ ^[0-9.]+$ ]]; then
        :
    else
        secs=$row_timeout kb=
    fi
    local answer
    if [ "$code" = 137 ]; then
        answer="killed at the row's limit of ${row_timeout} s"
    else
        # The command's last line but the board and the `engine:` note, shortened: what it
        # answered (or why it refused).
        local last
        last=$(grep -v -e '^[.Q ]*$' -e '^engine:' "$out" | tail -n 1 | sed 's/|/\\|/g')
        [ "${#last}" -le 90 ] || last="${last:0:89}…"
        answer="exit $code: $last"
    fi
    local mem=""
    if [ -n "$kb" ]; then
        mem=$(awk -v kb="$kb" 'BEGIN { if (kb >= 1048576) printf "%.2f GB", kb / 1048576; else printf "%d MB", kb / 1024 }')
    fi
    printf '| %s | %s | %s s | %s | %s |\n' "$label" "$case" "$secs" "$mem" "$answer"
}

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
mem_gib=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
echo "Measured by benches/limits.sh on $(nproc) cores ($cpu), $mem_gib GiB, $(date -u +%Y-%m-%d):"
echo
echo '| command | case | time | peak memory | answer |'
echo '|---|---|---|---|---|'
row '`solve --n 4096` (auto; 4096 is the complete engines'"'"' largest n)' 'empty 4096×4096' \
    "$queens" solve --n 4096
row '`solve --n 4096 --engine backtrack`' 'empty 4096×4096' \
    "$queens" solve --n 4096 --engine backtrack
row '`solve --n 100000000 --engine local -o F` ([big boards](big-boards.md))' 'empty 10⁸' \
    "$queens" solve --n 100000000 --engine local -o big.txt
row '`solve` on a 4096×4096 completion (`generate completion --n 4096 --queens 3 --seed 1`)' \
    '3 fixed queens' "$queens" solve c4096.json
row '`check` on the same board (finds a completion)' '' "$queens" check c4096.json
row '`solve` on `{"n":1500,"queens":[[1496,1],[1495,3]]}`' '2 fixed queens' \
    "$queens" solve n1500.json
row '`count --n 16` (8 symmetries, 2 threads)' '14,772,512 solutions' "$queens" count --n 16
row '`solve --n 1000 --engine sat`' 'empty 1000×1000' "$queens" solve --n 1000 --engine sat
row '`solve --n 3000 --engine sat`' 'empty 3000×3000, under the default memory limit' \
    "$queens" solve --n 3000 --engine sat
row '`explain --engine sat --timeout 240` on the 4096 completion' '3 fixed queens' \
    "$queens" explain c4096.json --engine sat --timeout 240
