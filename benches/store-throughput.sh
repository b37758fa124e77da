#!/usr/bin/env bash
# Job throughput of `queens serve` with its two job stores, in one run on this machine:
# SQLite (the default) against a local Postgres (Debian's server binaries, a throw-away
# cluster in a temporary folder, default durability: fsync and synchronous_commit on, as
# SQLite runs with synchronous=FULL), one replica each, and three replicas on the Postgres.
#
# Each configuration gets SECS seconds of small jobs (solve n = 8 as POST /v1/jobs, closed loop,
# 16 connections), then the time until every accepted job is done; jobs/s = jobs done / that
# whole time. Prints a Markdown table (BENCHMARKS.md, "Job stores: SQLite and Postgres").
#
#   bash benches/store-throughput.sh [SECS]       # default 10
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
pgbin=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
[ -x "$pgbin/initdb" ] || { echo "needs Debian's postgresql (/usr/lib/postgresql/*/bin)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 2; }

cargo build --release --quiet --bin queens --example load
bin=target/release/queens
load=target/release/examples/load
tmp=$(mktemp -d)
chmod 755 "$tmp"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    as_pg "$pgbin/pg_ctl" -D "$tmp/pg/data" stop -m fast >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/pg"
[ "$(id -u)" = 0 ] && chown postgres: "$tmp/pg"
as_pg "$pgbin/initdb" -D "$tmp/pg/data" -U queens -A trust -E UTF8 >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$pgbin/pg_ctl" -D "$tmp/pg/data" -l "$tmp/pg/log" -w \
    -o "-p $port -k $tmp/pg -c listen_addresses=127.0.0.1" start >/dev/null
echo '{"op": "solve", "instance": {"n": 8}}' > "$tmp/job.jsonl"

start() { # variable for the base URL, log file, then serve arguments
    local var=$1 log=$2; shift 2
    "$bin" serve --addr 127.0.0.1:0 --workers 4 --max-jobs 1000000 "$@" 2> "$log" &
    pids+=($!)
    for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
    printf -v "$var" '%s' "$(sed -n 's/^queens: listening on \(http:[^ ]*\).*/\1/p' "$log")"
}
jobs_in() { # base URL, status
    curl -s "$1/metrics" | sed -n "s/^queens_jobs{status=\"$2\"} //p"
}
measure() { # name, then base URLs: load on each, then wait for the queue to drain
    local name=$1; shift
    local t0 t1 n=$#
    t0=$(date +%s.%N)
    local i=0 loads=()
    for base in "$@"; do
        "$load" --json --warmup 0 --duration "$secs" -c $((16 / n)) --method POST \
            --body-file "$tmp/job.jsonl" "$base/v1/jobs" > "$tmp/$name.$i.json" &
        loads+=($!)
        i=$((i + 1))
    done
    wait "${loads[@]}"
    until [ "$(jobs_in "$1" queued)" = 0 ] && [ "$(jobs_in "$1" running)" = 0 ]; do sleep 0.05; done
    t1=$(date +%s.%N)
    python3 - "$tmp" "$name" "$n" "$t0" "$t1" "$(jobs_in "$1" "done")" "$(jobs_in "$1" failed)" <<'PY'
import json, sys
tmp, name, n, t0, t1, done, failed = sys.argv[1:]
submits = [json.load(open(f"{tmp}/{name}.{i}.json")) for i in range(int(n))]
accepted = sum(s["status"].get("202", 0) for s in submits)
other = sum(v for s in submits for k, v in s["status"].items() if k != "202")
wall = float(t1) - float(t0)
print(f"{name}\t{accepted}\t{other}\t{done}\t{failed}\t{wall:.1f}\t{int(done) / wall:.0f}")
PY
}

start sqlite "$tmp/sqlite.log" --data "$tmp/sqlite"
as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U queens one
start pg1 "$tmp/pg1.log" --store "postgres://queens@127.0.0.1:$port/one"
as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U queens three
url3="postgres://queens@127.0.0.1:$port/three"
pg3=()
for r in 1 2 3; do
    start url "$tmp/pg3-$r.log" --store "$url3"
    pg3+=("$url")
done

{
    # shellcheck disable=SC2154 # set by start
    measure "SQLite, 1 replica" "$sqlite"
    measure "Postgres, 1 replica" "$pg1"
    measure "Postgres, 3 replicas" "${pg3[@]}"
} > "$tmp/rows.tsv"
python3 - "$tmp/rows.tsv" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
base = float(rows[0][6])
print("| store | jobs accepted | other answers | done | failed | seconds to drain | jobs/s | vs SQLite |")
print("|---|---|---|---|---|---|---|---|")
for name, acc, other, done, failed, wall, rate in rows:
    print(f"| {name} | {int(acc):,} | {other} | {int(done):,} | {failed} | {wall} | {int(rate):,} | {float(rate) / base:.2f} |")
PY
