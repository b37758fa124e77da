"""What the Python layer costs over the Rust library and the CLI.

1. A 9×9 region puzzle (instances/region-9.json): the median `queens.solve` call against
   the median of the same request through the operations layer in Rust
   (`python/examples/overhead.rs`), each over CALLS calls.
2. The empty 10⁶-row board: `queens.solve` (the answer as a NumPy array) against the whole
   `queens solve --n 1000000` process, with and without `-o` (the solution written to a
   file), each the median of RUNS runs.

    python python/bench/overhead.py [CALLS] [RUNS]

Run from the repository after `cargo build --release` and
`cargo build --release --example overhead` in python/.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import queens

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "target" / "release" / "queens"
RUST = REPO / "target" / "release" / "examples" / "overhead"
PUZZLE = REPO / "instances" / "region-9.json"


def median_call(f, calls: int) -> float:
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    p = queens.Problem.load(PUZZLE)
    assert queens.solve(p).status == "sat"
    py = median_call(lambda: queens.solve(p), calls)
    rust = json.loads(subprocess.run([RUST, PUZZLE, str(calls)], capture_output=True, text=True, check=True).stdout)
    print(
        f"9x9 region puzzle: python {py * 1e6:.1f} us, rust {rust['median_us']:.1f} us "
        f"(median of {calls}): {py * 1e6 / rust['median_us']:.2f}x"
    )

    n = 10**6
    big = queens.Problem(n)
    r = queens.solve(big)
    assert r.status == "sat" and len(r.queens) == n
    # Interleaved, so that a change in the machine's load falls on all three alike.
    py_runs, cli_runs, cli_o_runs = [], [], []
    with tempfile.TemporaryDirectory() as d:
        out = str(Path(d) / "cols.txt")
        for _ in range(runs):
            py_runs.append(median_call(lambda: queens.solve(big), 1))
            cli_runs.append(
                median_call(lambda: subprocess.run([CLI, "solve", "--n", str(n), "--json"], capture_output=True, check=True), 1)
            )
            cli_o_runs.append(
                median_call(
                    lambda: subprocess.run([CLI, "solve", "--n", str(n), "--json", "-o", out], capture_output=True, check=True),
                    1,
                )
            )
    py_big, cli, cli_o = (statistics.median(x) for x in (py_runs, cli_runs, cli_o_runs))
    print(
        f"10^6 rows: python {py_big * 1e3:.1f} ms, cli {cli * 1e3:.1f} ms ({py_big / cli:.2f}x), "
        f"cli -o {cli_o * 1e3:.1f} ms ({py_big / cli_o:.2f}x), median of {runs}"
    )


if __name__ == "__main__":
    main()
