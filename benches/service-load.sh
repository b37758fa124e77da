#!/usr/bin/env bash
# Load benchmark of `queens serve` on this machine, against 127.0.0.1 only, bounded in time.
#
# Records, in one run: requests/s and latency for GET /healthz (the HTTP floor) and for
# POST /v1/solve and /v1/check on the real 9×9 LinkedIn levels in ../shared/data; p99 of
# /v1/solve at a fixed 80 % of its peak rate; and the server's peak RSS and answers under a
# flood of 10× its peak rate. Prints a Markdown table (BENCHMARKS.md, "The service under load").
#
#   bash benches/service-load.sh [SECONDS_PER_RUN]       # default 10; about 8 runs
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
levels=../shared/data/linkedin-official-1-616.jsonl
[ -f "$levels" ] || { echo "needs $levels (the shared corpora)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "needs python3 to build the request bodies" >&2; exit 2; }

cargo build --release --quiet --bin queens --example load
bin=target/release/queens
load=target/release/examples/load
tmp=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$tmp"' EXIT

# Bodies: every 9×9 level as a solve request, and as a check of a player's board with the
# first four queens of its solution placed ("can this still be completed?").
grep '"n":9,' "$levels" > "$tmp/levels9.jsonl"
python3 - "$tmp" "$bin" <<'EOF'
import json, subprocess, sys
tmp, binary = sys.argv[1], sys.argv[2]
levels = [json.loads(l) for l in open(f"{tmp}/levels9.jsonl")]
with open(f"{tmp}/solve.jsonl", "w") as solve, open(f"{tmp}/check.jsonl", "w") as check:
    for lv in levels:
        inst = {"n": lv["n"], "regions": lv["regions"]}
        solve.write(json.dumps({"instance": inst}) + "\n")
        out = subprocess.run([binary, "solve", "-", "--json"], input=json.dumps(inst),
                             capture_output=True, text=True, check=True)
        queens = json.loads(out.stdout)["queens"]
        check.write(json.dumps({"instance": inst, "queens": queens[:4]}) + "\n")
print(f"{len(levels)} levels of 9×9", file=sys.stderr)
EOF

"$bin" serve --addr 127.0.0.1:0 --data "$tmp/data" 2> "$tmp/server.log" &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$tmp/server.log" && break; sleep 0.1; done
base=$(sed -n 's/^queens: listening on \(http:[^ ]*\).*/\1/p' "$tmp/server.log")
echo "server $base (pid $server), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" >&2

run() { # name, then load arguments; prints the JSON summary to $tmp/NAME.json
  local name=$1; shift
  "$load" --json --duration "$secs" "$@" > "$tmp/$name.json"
}
run healthz -c 32 "$base/healthz"
run solve -c 32 --method POST --body-file "$tmp/solve.jsonl" "$base/v1/solve"
run check -c 32 --method POST --body-file "$tmp/check.jsonl" "$base/v1/check"
peak=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["rps"]))' "$tmp/solve.json")
run solve80 -c 64 --rate $((peak * 8 / 10)) --method POST --body-file "$tmp/solve.jsonl" "$base/v1/solve"
# The flood: 10× the peak rate, open loop, on many connections.
run flood -c 512 --rate $((peak * 10)) --method POST --body-file "$tmp/solve.jsonl" "$base/v1/solve"
rss_mb=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$server/status")
python3 - "$tmp" "$rss_mb" "$peak" <<'EOF'
import json, sys
tmp, rss, peak = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [("GET /healthz", "healthz", "closed loop, 32 connections"),
        ("POST /v1/solve", "solve", "closed loop, 32 connections"),
        ("POST /v1/check", "check", "closed loop, 32 connections"),
        ("POST /v1/solve", "solve80", f"open loop at 80 % of peak ({peak * 8 // 10}/s), 64 connections"),
        ("POST /v1/solve", "flood", f"open loop at 10× peak ({peak * 10}/s), 512 connections")]
print("| request | load | req/s | p50 ms | p99 ms | max ms | answers |")
print("|---|---|---|---|---|---|---|")
for name, key, how in rows:
    r = json.load(open(f"{tmp}/{key}.json"))
    lat = r["latency_ms"]
    answers = ", ".join(f"{n}× {code}" for code, n in sorted(r["status"].items()))
    err = r["errors"]["total"]
    if err:
        answers += f", {err} errors"
    if r.get("unsent"):
        answers += f", {r['unsent']} unsent"
    print(f"| {name} | {how} | {r['rps']:,.0f} | {lat['p50']:.2f} | {lat['p99']:.2f} | {lat['max']:.1f} | {answers} |")
print(f"\nServer peak RSS over the whole run (VmHWM): {rss} MB.")
EOF
