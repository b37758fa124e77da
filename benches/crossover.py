#!/usr/bin/env python3
"""The crossover study: SAT solvers against the backtracker on CSPLib prob079.

Run through benches/crossover.sh, which documents the settings; BENCHMARKS.md section 6 and
docs/sat-solvers.md explain the protocol and the output. Python 3 standard library only.

    crossover.py run OUT        select the instances, run every engine and the encodings
    crossover.py engines OUT    only select the instances and run the engines
    crossover.py encodings OUT  only the encodings (after `engines`, on its instances)
    crossover.py unsat OUT      the unsatisfiable instances of UNSAT_SIZES ("20 21") again on
                                UNSAT_ENGINES (backtrack:1,ext:cadical) with UNSAT_LIMIT (60 s)
    crossover.py report OUT   write OUT/report.md (and the plots) again from OUT/*.json

Every attempt is a `queens compare` child: each answer is verified by compare, and compare
exits 3 when two engines disagree. This driver adds three more checks, each of which stops the
study: an engine's answer that contradicts the label an instance was selected with, a local
search that finds a board on an instance labelled unsatisfiable, and any compare error other
than the local search giving up.
"""

import json
import math
import os
import subprocess
import sys
import time

ENV = os.environ
Q = ENV.get("QUEENS", "target/release/queens")
PROB079 = ENV.get("PROB079", "../shared/data/csplib-prob079-excluded-diagonals.jsonl")
PER_N = int(ENV.get("PER_N", "20"))
LIMIT = float(ENV.get("LIMIT", "10"))
RATIO = float(ENV.get("RATIO", "0.9"))
SIZES = [int(x) for x in ENV.get("SIZES", "16 17 18 19 20 21 22 23 24 26 28 32 36 40").split()]
# Sizes at which instances are selected half satisfiable, half not (labelled first by the
# backtracker); above, the first PER_N seeds are taken as they come.
BALANCE_UP_TO = int(ENV.get("BALANCE_UP_TO", "24"))
POOL = int(ENV.get("POOL", "80"))
LABEL_LIMIT = float(ENV.get("LABEL_LIMIT", "10"))
ENGINES = ENV.get(
    "ENGINES", "backtrack:1,backtrack:2,sat:seq,ext:cadical,ext:minisat,race:seq"
).split(",")
LOCAL = ENV.get("LOCAL", "local")
ENC_SIZES = [int(x) for x in ENV.get("ENC_SIZES", "18 20 22").split()]
ENC_PER_N = int(ENV.get("ENC_PER_N", "10"))
ENCODINGS = ENV.get(
    "ENCODINGS",
    "ext:cadical,ext:cadical:pairwise,ext:cadical:seq,ext:cadical:product,"
    "ext:cadical:bimander,ext:cadical+rings",
).split(",")
NICE = ENV.get("NICE", "5")
GAVE_UP = "gave up without an answer"


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] crossover: {msg}", file=sys.stderr, flush=True)


def fail(msg):
    log("FAILED: " + msg)
    sys.exit(3)


def compare(files, engines, limit, out_json, allow_gave_up=False):
    """One `queens compare` over files; returns its JSON (also saved to out_json)."""
    cmd = ["nice", "-n", NICE, Q, "compare", *files, "--engines", ",".join(engines),
           "--timeout", str(limit), "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    data = json.loads(p.stdout)
    with open(out_json, "w") as f:
        json.dump(data, f)
    for row in data["instances"]:
        if row["status"] == "DISAGREE":
            fail(f"engines disagree on {row['id']} ({out_json})")
        for a in row["attempts"]:
            if a["status"] == "error" and not (allow_gave_up and GAVE_UP in (a["error"] or "")):
                fail(f"{a['engine']} on {row['id']}: {a['error']} ({out_json})")
    if p.returncode == 3 and not allow_gave_up:
        fail(f"compare exited 3: {p.stderr.strip()[-400:]}")
    return data


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def pool(n, count):
    """Full-length instances of size n: CSPLib's own for n <= 21, else generated."""
    if n <= 21:
        if not os.path.exists(PROB079):
            fail(f"{PROB079} not found: the n <= 21 instances must come from CSPLib's file")
        with open(PROB079) as f:
            recs = [json.loads(line) for line in f if f'"n":{n},' in line]
        return recs[:count], "csplib"
    p = subprocess.run([Q, "generate", "diagonals", "--n", str(n), "--seed", "1",
                        "--count", str(count)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()], "generated"


def cut(recs, d):
    return [{**r, "diags": r["diags"][:d]} for r in recs]


def select(out):
    """Per n: d and the instances. Returns {n: {...}} and writes OUT/inputs/N.jsonl."""
    os.makedirs(f"{out}/inputs", exist_ok=True)
    os.makedirs(f"{out}/runs", exist_ok=True)
    plan = {}
    for n in SIZES:
        d0 = round(RATIO * n)
        if n > BALANCE_UP_TO:
            recs, source = pool(n, PER_N)
            chosen = cut(recs, d0)
            plan[n] = {"n": n, "d": d0, "source": source, "labels": {}, "balanced": False,
                       "tried": [d0]}
        else:
            recs, source = pool(n, POOL)
            d, tried, chosen, labels = d0, [], None, {}
            for _ in range(3):
                tried.append(d)
                path = f"{out}/inputs/label-{n}-{d}.jsonl"
                write_jsonl(path, cut(recs, d))
                data = compare([path], ["backtrack:2"], LABEL_LIMIT,
                               f"{out}/runs/label-{n}-{d}.json")
                st = {r["id"]: r["status"] for r in data["instances"]}
                sat = [r for r in recs if st[r["id"]] == "sat"]
                uns = [r for r in recs if st[r["id"]] == "unsat"]
                log(f"n = {n}, d = {d}: {len(sat)} sat, {len(uns)} unsat of {len(recs)}")
                half = PER_N // 2
                if len(sat) >= half and len(uns) >= PER_N - half:
                    keep = {r["id"] for r in sat[:half] + uns[:PER_N - half]}
                    chosen = cut([r for r in recs if r["id"] in keep], d)
                    labels = {i: st[i] for i in keep}
                    break
                d += 1 if len(uns) < PER_N - half else -1
            if chosen is None:
                fail(f"n = {n}: no d in {tried} gives {PER_N // 2} of each kind in {POOL}")
            plan[n] = {"n": n, "d": d, "source": source, "labels": labels, "balanced": True,
                       "tried": tried}
        write_jsonl(f"{out}/inputs/{n}.jsonl", chosen)
        plan[n]["ids"] = [r["id"] for r in chosen]
    with open(f"{out}/plan.json", "w") as f:
        json.dump(plan, f, indent=1)
    return plan


def check_labels(data, labels, where):
    for row in data["instances"]:
        want = labels.get(row["id"])
        for a in row["attempts"]:
            if want and a["status"] in ("sat", "unsat") and a["status"] != want:
                fail(f"{a['engine']} says {a['status']} on {row['id']}, "
                     f"selected as {want} ({where})")


def run_study(out):
    t0 = time.time()
    plan = select(out) if not os.path.exists(f"{out}/plan.json") else load_plan(out)
    log(f"selection done in {time.time() - t0:.0f} s")
    alive = list(ENGINES)
    censored = {}
    for n in SIZES:
        p = plan[n]
        path = f"{out}/inputs/{n}.jsonl"
        done = f"{out}/runs/engines-{n}.json"
        if alive and os.path.exists(done) and load(done)["engines"] == alive:
            data = load(done)  # resuming: this size already ran with these engines
        elif alive:
            data = compare([path], alive, LIMIT, done)
        if alive:
            check_labels(data, p["labels"], f"engines at n = {n}")
            for e in list(alive):
                k = data["engines"].index(e)
                solved = sum(r["attempts"][k]["status"] in ("sat", "unsat")
                             for r in data["instances"])
                if 2 * solved < len(data["instances"]):
                    alive.remove(e)
                    censored[e] = n
                    log(f"{e} solved {solved}/{len(data['instances'])} at n = {n}: censored")
        # The local search only finds boards: it runs on the instances labelled satisfiable
        # (every instance where no label exists).
        sat_ids = [i for i in p["ids"] if p["labels"].get(i, "sat") == "sat"]
        lpath = f"{out}/inputs/{n}-local.jsonl"
        write_jsonl(lpath, [r for r in read_jsonl(path) if r["id"] in sat_ids])
        ldone = f"{out}/runs/local-{n}.json"
        if os.path.exists(ldone):
            ldata = load(ldone)
        else:
            ldata = compare([lpath], [LOCAL], LIMIT, ldone, allow_gave_up=True)
        check_labels(ldata, p["labels"], f"local at n = {n}")
        log(f"n = {n} done, {time.time() - t0:.0f} s so far; running: {', '.join(alive)}")
    with open(f"{out}/censored.json", "w") as f:
        json.dump(censored, f)
    log(f"engines done in {time.time() - t0:.0f} s")


def run_encodings(out):
    t0 = time.time()
    plan = load_plan(out)
    for n in ENC_SIZES:
        recs = read_jsonl(f"{out}/inputs/{n}.jsonl")
        labels = plan[n]["labels"]
        half = ENC_PER_N // 2
        sat = [r for r in recs if labels.get(r["id"]) == "sat"][:half]
        uns = [r for r in recs if labels.get(r["id"]) == "unsat"][:ENC_PER_N - half]
        epath = f"{out}/inputs/{n}-enc.jsonl"
        write_jsonl(epath, sat + uns)
        data = compare([epath], ENCODINGS, LIMIT, f"{out}/runs/encodings-{n}.json")
        check_labels(data, labels, f"encodings at n = {n}")
        log(f"encodings n = {n} done, {time.time() - t0:.0f} s so far")
    log(f"encodings done in {time.time() - t0:.0f} s")


def run_unsat(out):
    """The unsatisfiable instances of a few sizes again, with a longer limit: where the
    study's limit only bounds the SAT solvers' times from below."""
    plan = load_plan(out)
    sizes = [int(x) for x in ENV.get("UNSAT_SIZES", "20 21").split()]
    limit = float(ENV.get("UNSAT_LIMIT", "60"))
    engines = ENV.get("UNSAT_ENGINES", "backtrack:1,ext:cadical").split(",")
    path = f"{out}/inputs/unsat-long.jsonl"
    recs = []
    for n in sizes:
        labels = plan[n]["labels"]
        recs += [r for r in read_jsonl(f"{out}/inputs/{n}.jsonl") if labels.get(r["id"]) == "unsat"]
    write_jsonl(path, recs)
    t0 = time.time()
    data = compare([path], engines, limit, f"{out}/runs/unsat-long.json")
    check_labels(data, {i: "unsat" for i in (r["id"] for r in recs)}, "unsat-long")
    log(f"unsat-long done in {time.time() - t0:.0f} s")


def load(path):
    with open(path) as f:
        return json.load(f)


def load_plan(out):
    with open(f"{out}/plan.json") as f:
        return {int(k): v for k, v in json.load(f).items()}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("run", "engines", "encodings", "unsat", "report"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    out = sys.argv[2]
    if sys.argv[1] in ("run", "engines"):
        run_study(out)
    if sys.argv[1] in ("run", "encodings"):
        run_encodings(out)
    if sys.argv[1] == "unsat":
        run_unsat(out)
    import crossover_report  # noqa: E402  (beside this file)
    crossover_report.main(out)
