#!/usr/bin/env python3
"""Reading `queens solve --json` and summing up benches/completion-transition.sh's CSV.

Python 3 standard library only; run by benches/completion-transition.sh.

    completion_report.py solve-fields SOLVE.json   status, time_ms, answered_by and core
                                                   (compact JSON) of `queens solve --json`
    completion_report.py cpsat-fields CPSAT.json   fixed, free, status, time_ms, solve_ms and
                                                   verified of cpsat_completion.py's line
    completion_report.py summary RUN.csv           the per-point summary table

The fields are separated by the ASCII unit separator (0x1f), which the shell splits on
without merging empty fields as it merges tabs.
"""

import csv
import json
import statistics
import sys

SEP = "\x1f"


def read_answer(path):
    """A JSON answer, or {} when the run left none (killed, crashed)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def emit(*fields):
    print(SEP.join("" if x is None else str(x) for x in fields))


def solve_fields(path):
    """`queens solve --json`'s answer; an unreadable answer is status `error`."""
    ans = read_answer(path)
    core = ans.get("core")
    emit(
        ans.get("status", "error"),
        ans.get("time_ms"),
        ans.get("answered_by") or ans.get("engine"),
        None if core is None else json.dumps(core, separators=(",", ":")),
    )


def cpsat_fields(path):
    """cpsat_completion.py's line; an unreadable one is status `error`."""
    ans = read_answer(path)
    emit(
        *(ans.get(k) for k in ("fixed", "free")),
        ans.get("status", "error"),
        *(ans.get(k) for k in ("time_ms", "solve_ms", "verified")),
    )


def seconds(ms):
    return f"{ms / 1e3:.3f}"


def summary(path):
    """Per (n, delta): decided counts, total and median time of both solvers, and the ratio
    queens / CP-SAT of the total times. An undecided instance counts with the time it used
    (about the limit), so a solver that decides nothing still has a total."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    groups = {}
    for r in rows:
        groups.setdefault((int(r["n"]), int(r["delta"])), []).append(r)
    head = (
        "n",
        "delta",
        "runs",
        "queens sat/unsat/undec",
        "total s",
        "median s",
        "cpsat sat/unsat/undec",
        "total s",
        "median s",
        "queens/cpsat",
    )
    table = [head]
    for (n, delta), rs in sorted(groups.items()):
        cells = [str(n), str(delta), str(len(rs))]
        totals = []
        for side in ("queens", "cpsat"):
            status = [r[f"{side}_status"] for r in rs]
            sat, unsat = status.count("sat"), status.count("unsat")
            times = [float(r[f"{side}_time_ms"] or 0) for r in rs]
            totals.append(sum(times))
            cells += [
                f"{sat}/{unsat}/{len(rs) - sat - unsat}",
                seconds(sum(times)),
                seconds(statistics.median(times)),
            ]
        cells.append(f"{totals[0] / totals[1]:.3g}" if totals[1] > 0 else "-")
        table.append(cells)
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    for row in table:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
    disagree = sum(1 for r in rows if r["agree"] == "no")
    if disagree:
        print(f"{disagree} instance(s) where the two solvers disagree: see the agree column")


COMMANDS = {"solve-fields": solve_fields, "cpsat-fields": cpsat_fields, "summary": summary}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
