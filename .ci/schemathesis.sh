#!/usr/bin/env bash
# The OpenAPI contract from outside: schemathesis (PyPI, pinned) generates requests from a
# live `queens serve`'s /openapi.json, valid and invalid, and runs every check on the
# answers (status and content type documented, body matching its schema, valid data
# accepted, invalid data refused, no 5xx). Any finding fails. Bounded to about two minutes;
# skipped, saying so, when PyPI cannot be reached. Needs target/release/queens.
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
work=$(mktemp -d)
pid=
cleanup() {
    if [ -n "$pid" ]; then
        # A graceful stop, then a hard one: a server stuck in a request must not hang CI.
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

python3 -m venv "$work/venv"
if ! "$work/venv/bin/pip" install -q --disable-pip-version-check --timeout 30 \
    "schemathesis==$version" >"$work/pip.log" 2>&1; then
    tail -n 3 "$work/pip.log" >&2
    echo "schemathesis: cannot install schemathesis==$version from PyPI; the contract run is skipped" >&2
    exit 0
fi

# Small limits keep generated requests quick: a board up to 64 rows, two seconds a call or
# job. The job queue is large enough for every generated job (a full queue's 503 counts as
# a server error); the jobs left waiting end with the server.
target/release/queens serve --addr 127.0.0.1:0 --data "$work/data" --workers 2 \
    --max-n 64 --timeout-ms 2000 --job-timeout-ms 2000 --max-jobs 100000 --max-memory 512 \
    2>"$work/serve.log" &
pid=$!
base=
for _ in $(seq 100); do
    base=$(sed -n 's/^queens: listening on \(http[^ ]*\).*/\1/p' "$work/serve.log")
    [ -n "$base" ] && break
    sleep 0.1
done
[ -n "$base" ] || { cat "$work/serve.log" >&2; echo "queens serve did not start" >&2; exit 1; }

# Run from the temporary folder: schemathesis keeps its example database in the working one.
config=$PWD/.ci/schemathesis.toml
cd "$work"
timeout -k 10 180 "$work/venv/bin/st" --config-file "$config" run "$base/openapi.json" \
    --checks all --exclude-checks use_after_free --max-examples 20 --seed 1 --request-timeout 20
