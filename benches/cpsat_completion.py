#!/usr/bin/env python3
"""An n-queens completion instance solved by OR-Tools CP-SAT, as a CP user would model it.

Run by benches/completion-transition.sh, which installs OR-Tools in a throw-away virtual
environment; the product never depends on it.

    cpsat_completion.py INSTANCE.json [--limit SECS] [--workers K]
    cpsat_completion.py INSTANCE.json --board SOL     check another solver's board instead

Reads the JSON instance `queens generate completion` writes ({"n": N, "queens": [[r, c], ...]},
rule `full`) and prints one JSON line:

    {"status": "sat"|"unsat"|"unknown", "n": N, "fixed": M, "free": D,
     "read_ms": ..., "build_ms": ..., "solve_ms": ..., "time_ms": ..., "verified": bool}

`time_ms` is model building plus solving (the file read is `read_ms`, apart), the figure the
benchmark compares with `queens solve`'s own `time_ms`. `--limit` counts from the start, file
read included, as `queens solve --timeout` counts it; what is left becomes CP-SAT's time limit.
Only the D free rows and D free columns matter: one variable per free row, whose domain is the
free columns whose two diagonals no fixed queen holds, and AllDifferent on x_r, r + x_r and
r - x_r. A `sat` answer is checked here against the fixed queens (rows, columns, both
diagonals) before it is reported; a failed check exits 3. Exit 2 is a bad instance or bad
arguments.

`--board SOL` reads a column-per-row board (`queens solve -o SOL`: line r + 1 holds row r's
column), checks it with the same code and prints {"board": "ok"} (exit 0) or
{"board": "bad", "violation": ...} (exit 1).
"""

import argparse
import json
import sys
import time

import numpy as np
from ortools.sat.python import cp_model

# Fields of the JSON instance format this model understands; anything else (regions, blocked
# cells, excluded diagonals, the `touch` rule) is a different problem and is refused.
KNOWN = {"n", "queens", "diagonals", "id", "name", "comment", "source"}


def fail(msg, code=2):
    print(f"cpsat_completion: {msg}", file=sys.stderr)
    sys.exit(code)


def load(path):
    """The board size and the fixed queens as an (M, 2) array of rows and columns."""
    try:
        with open(path, encoding="utf-8") as f:
            inst = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(inst, dict) or "n" not in inst:
        fail(f"{path}: not a JSON instance with an `n`")
    extra = set(inst) - KNOWN
    if extra:
        fail(f"{path}: fields {sorted(extra)} are not a plain completion instance")
    if inst.get("diagonals", "full") != "full":
        fail(f"{path}: only the `full` diagonal rule is modelled")
    n = inst["n"]
    queens = inst.get("queens", [])
    if any(not isinstance(q, list) for q in queens):
        fail(f"{path}: queens must be [row, col] pairs")
    fixed = np.array(queens, dtype=np.int64).reshape(-1, 2)
    if fixed.size and (fixed.min() < 0 or fixed.max() >= n):
        fail(f"{path}: a queen is off the {n}x{n} board")
    return n, fixed


def lines_clash(n, fixed):
    """Whether two fixed queens share a row, a column or a diagonal (counted, in O(n))."""
    rows, cols = fixed[:, 0], fixed[:, 1]
    lines = (rows, cols, rows + cols, rows - cols + n - 1)
    return fixed.size > 0 and any(np.bincount(line).max() > 1 for line in lines)


def free_domains(n, fixed):
    """The free rows and, for each, the free columns no fixed queen attacks diagonally."""
    row_used = np.zeros(n, dtype=bool)
    col_used = np.zeros(n, dtype=bool)
    row_used[fixed[:, 0]] = True
    col_used[fixed[:, 1]] = True
    rows = np.flatnonzero(~row_used)
    cols = np.flatnonzero(~col_used)
    sum_used = np.zeros(2 * n - 1, dtype=bool)
    diff_used = np.zeros(2 * n - 1, dtype=bool)
    sum_used[fixed[:, 0] + fixed[:, 1]] = True
    diff_used[fixed[:, 0] - fixed[:, 1] + n - 1] = True
    # A D x D mask: D = 2300 at n = 10^6 is 5 million cells, well within memory.
    sums = rows[:, None] + cols[None, :]
    diffs = rows[:, None] - cols[None, :] + n - 1
    allowed = ~sum_used[sums] & ~diff_used[diffs]
    return rows, [cols[allowed[i]].tolist() for i in range(len(rows))]


def solve(rows, domains, deadline, workers):
    """CP-SAT on the free rows, stopped at `deadline` (a `time.perf_counter()` value):
    (status, {row: col} or None, build seconds, search seconds)."""
    start = time.perf_counter()
    model = cp_model.CpModel()
    xs = []
    for r, dom in zip(rows.tolist(), domains):
        xs.append((r, model.new_int_var_from_domain(cp_model.Domain.from_values(dom), f"x{r}")))
    model.add_all_different(x for _, x in xs)
    model.add_all_different(x + r for r, x in xs)
    model.add_all_different(x - r for r, x in xs)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.max_time_in_seconds = max(deadline - time.perf_counter(), 0.001)
    build = time.perf_counter() - start
    code = solver.solve(model)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return "sat", {r: solver.value(x) for r, x in xs}, build, solver.wall_time
    if code == cp_model.INFEASIBLE:
        return "unsat", None, build, solver.wall_time
    if code == cp_model.MODEL_INVALID:
        fail(f"CP-SAT calls the model invalid: {model.validate()}", 3)
    return "unknown", None, build, solver.wall_time


def violation(n, fixed, cols):
    """The first rule a whole board breaks, or None, checked from scratch: `cols[r]` is the
    column of row r's queen, and every fixed queen must stand where the instance put it."""
    if len(cols) != n:
        return f"the board has {len(cols)} rows, not {n}"
    off = np.flatnonzero((cols < 0) | (cols >= n))
    if off.size:
        return f"row {off[0]} has no queen on the board"
    moved = np.flatnonzero(cols[fixed[:, 0]] != fixed[:, 1])
    if moved.size:
        r, c = fixed[moved[0]]
        return f"fixed queen ({r},{c}) is missing: row {r} has its queen in column {cols[r]}"
    rows = np.arange(n)
    for name, key in (
        ("column", cols),
        ("diagonal r+c", rows + cols),
        ("diagonal r-c", rows - cols),
    ):
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        if same.size:
            i, j = order[same[0]], order[same[0] + 1]
            return f"queens ({i},{cols[i]}) and ({j},{cols[j]}) share a {name}"
    return None


def lifted(n, fixed, placed):
    """The whole board: the fixed queens plus CP-SAT's {row: col} on the free rows."""
    cols = np.full(n, -1, dtype=np.int64)
    cols[fixed[:, 0]] = fixed[:, 1]
    cols[list(placed)] = list(placed.values())
    return cols


def read_board(path):
    """A column-per-row file as `queens solve -o` writes it (`#` lines and blanks skipped)."""
    with open(path, encoding="utf-8") as f:
        return np.array([int(x) for x in f if x.strip() and not x.startswith("#")], dtype=np.int64)


def check_board(path, n, fixed):
    """`--board`: one JSON line saying whether another solver's board is a completion."""
    bad = violation(n, fixed, read_board(path))
    print(json.dumps({"board": "bad" if bad else "ok", **({"violation": bad} if bad else {})}))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instance")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds (default 120)")
    ap.add_argument("--workers", type=int, default=2, help="CP-SAT workers (default 2)")
    ap.add_argument("--board", help="only check this column-per-row board (exit 1 if bad)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    n, fixed = load(args.instance)
    if args.board:
        return check_board(args.board, n, fixed)
    read = time.perf_counter() - t0
    out = {"n": n, "fixed": len(fixed), "free": n - len(fixed), "read_ms": round(read * 1e3, 3)}
    t1 = time.perf_counter()
    clash = lines_clash(n, fixed)
    rows, domains = ([], []) if clash else free_domains(n, fixed)
    prep = time.perf_counter() - t1
    if clash or any(not d for d in domains):
        # Two fixed queens attack each other, or a free row has no cell left: no model to
        # build (CP-SAT refuses an empty domain), and a CP user would stop here too.
        status, placed, build, search = "unsat", None, 0.0, 0.0
    else:
        # The limit counts from the start, as `queens solve --timeout` counts it.
        status, placed, build, search = solve(rows, domains, t0 + args.limit, args.workers)
    build += prep
    out.update(
        status=status,
        build_ms=round(build * 1e3, 3),
        solve_ms=round(search * 1e3, 3),
        time_ms=round((build + search) * 1e3, 3),
    )
    if placed is not None:
        bad = violation(n, fixed, lifted(n, fixed, placed))
        out["verified"] = bad is None
        if bad:
            out["violation"] = bad
    print(json.dumps(out), flush=True)
    return 3 if out.get("verified") is False else 0


if __name__ == "__main__":
    sys.exit(main())
