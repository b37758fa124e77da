#!/usr/bin/env bash
# The OpenAPI contract over many seeds: `benches/contract-soak.sh SEEDS MINUTES [FIRST]`
# runs schemathesis (the version .ci/schemathesis.sh pins, every check, two workers, the
# stateful phase included) against a fresh `queens serve` once per seed, FIRST (default 1)
# to FIRST+SEEDS-1, each for MINUTES minutes, and prints every finding with the curl line
# that reproduces it. Exits 1 when any seed has a finding.
#
# The server runs with CI's small limits (.ci/schemathesis.sh) unless QUEENS_SERVE_ARGS
# gives others; QUEENS (default target/release/queens) picks the binary. Logs stay in
# target/contract-soak/seed-N.log. The venv is kept in target/st-venv between runs. A run
# where schemathesis itself fails (not a check on an answer) is reported apart, not as a
# finding.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
    echo "usage: benches/contract-soak.sh SEEDS MINUTES [FIRST_SEED]" >&2
    exit 2
fi
seeds=$1
minutes=$2
first=${3:-1}
case "$seeds$minutes$first" in
    *[!0-9]*) echo "contract-soak: SEEDS, MINUTES and FIRST_SEED are whole numbers" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version=\(.*\)$/\1/p' .ci/schemathesis.sh)
queens=${QUEENS:-target/release/queens}
[ -x "$queens" ] || { echo "contract-soak: no $queens: run cargo build --release first" >&2; exit 2; }
serve_args=${QUEENS_SERVE_ARGS:---workers 2 --max-n 64 --timeout-ms 2000 --job-timeout-ms 2000 --max-jobs 100000 --max-memory 512}

venv=target/st-venv
if ! "$venv/bin/st" --version 2>/dev/null | grep -q "$version"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --timeout 30 "schemathesis==$version"
fi
st=$PWD/$venv/bin/st
logs=target/contract-soak
mkdir -p "$logs"
config=$PWD/.ci/schemathesis.toml

work=
pid=
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        pid=
    fi
    [ -n "$work" ] && rm -rf "$work"
    work=
}
trap cleanup EXIT

failed=0
tool_errors=0
for seed in $(seq "$first" $((first + seeds - 1))); do
    work=$(mktemp -d)
    # shellcheck disable=SC2086 # the flags are words
    "$queens" serve --addr 127.0.0.1:0 --data "$work/data" $serve_args 2>"$work/serve.log" &
    pid=$!
    base=
    for _ in $(seq 100); do
        base=$(sed -n 's/^queens: listening on \(http[^ ]*\).*/\1/p' "$work/serve.log")
        [ -n "$base" ] && break
        sleep 0.1
    done
    [ -n "$base" ] || { cat "$work/serve.log" >&2; echo "queens serve did not start" >&2; exit 1; }
    log=$PWD/$logs/seed-$seed.log
    status=0
    (cd "$work" && timeout -k 10 $((minutes * 60 + 120)) "$st" \
        --no-color --config-file "$config" run "$base/openapi.json" --checks all \
        --exclude-checks use_after_free --workers 2 --seed "$seed" \
        --max-time $((minutes * 60)) --request-timeout 20 >"$log" 2>&1) || status=$?
    cases=$(grep -Eo '[0-9]+ generated[^|]*' "$log" | tail -n 1 || true)
    if [ "$status" -eq 0 ]; then
        echo "seed $seed: no findings ($cases)"
    elif grep -q '^Failures:' "$log"; then
        failed=1
        echo "seed $seed: FINDINGS ($cases; $log)"
        # Each finding's block: the operation, the checks that failed with their messages,
        # and the curl line that reproduces it (tracebacks of the tool's own errors left out).
        awk '/^_+ .* _+$/ {show=1} /^=+ (SUMMARY|WARNINGS)/ {show=0} show' "$log" |
            grep -Ev '^ *[|+]' | sed 's/^/    /'
    else
        # Not a finding about the server: the tool itself failed (a Python error while it
        # generated data, say). Said, and counted apart.
        tool_errors=$((tool_errors + 1))
        echo "seed $seed: no findings, but schemathesis itself failed (exit $status; $cases; $log):"
        grep -E '^(🚫|  🚫|[A-Za-z]+Error:)|Runtime Error' "$log" | sort -u | sed 's/^/    /'
    fi
    cleanup
done
[ "$tool_errors" -eq 0 ] || echo "$tool_errors seed(s) where schemathesis itself failed (see above)"
exit "$failed"
