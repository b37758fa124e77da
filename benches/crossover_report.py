"""The crossover study's report: tables, growth fits and plots from the `queens compare` JSON
that benches/crossover.py saved in OUT/runs/. Writes OUT/report.md, OUT/engines-growth.svg,
OUT/encodings-growth.svg and OUT/attempts.csv.

The median counts a timeout (or a local search that gave up) as longer than any answer, as
`queens compare --growth` does, so it is "> limit" when half or more did not answer. The growth
rate b fits time ≈ a·bⁿ by least squares on the logarithms of the medians under the limit;
its spread is b at ±2 standard errors of the slope.
"""

import json
import math
import os

SOLVED = ("sat", "unsat")


def load(path):
    with open(path) as f:
        return json.load(f)


def median(xs):
    xs = sorted(xs)
    k = len(xs)
    if k == 0:
        return None
    m = xs[k // 2] if k % 2 else (xs[k // 2 - 1] + xs[k // 2]) / 2
    return m if math.isfinite(m) else None


def fmt_ms(ms):
    if ms is None:
        return "> limit"
    s = ms / 1e3
    if s >= 100:
        return f"{s:.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms".replace(" ms", " ms")
    return f"{s * 1e6:.0f} µs"


def fit(points):
    """points: [(n, median_ms)] → dict(b, lo, hi, a_ms, k) (None fields when too few)."""
    xy = [(n, math.log(m)) for n, m in points if m and m > 0]
    k = len(xy)
    f = {"k": k, "b": None, "lo": None, "hi": None, "a_ms": None, "slope": None, "se": None}
    if k < 2:
        return f
    mx = sum(x for x, _ in xy) / k
    my = sum(y for _, y in xy) / k
    sxx = sum((x - mx) ** 2 for x, _ in xy)
    sxy = sum((x - mx) * (y - my) for x, y in xy)
    slope = sxy / sxx
    icpt = my - slope * mx
    f.update(b=math.exp(slope), a_ms=math.exp(icpt), slope=slope)
    if k >= 3:
        ssr = sum((y - icpt - slope * x) ** 2 for x, y in xy)
        se = math.sqrt(ssr / (k - 2) / sxx)
        f.update(lo=math.exp(slope - 2 * se), hi=math.exp(slope + 2 * se), se=se)
    return f


def fmt_fit(f):
    if f["b"] is None:
        return "—", "—"
    b = f"{f['b']:.2f}"
    spread = f"{f['lo']:.2f}–{f['hi']:.2f}" if f["lo"] is not None else "two sizes: none"
    return b, spread


def crossing(f, fr):
    """Where f's fitted line meets the reference fr's: n* with a·bⁿ = a₁·b₁ⁿ."""
    if not (f["b"] and fr["b"]) or abs(math.log(f["b"]) - math.log(fr["b"])) < 1e-12:
        return "—"
    nstar = math.log(f["a_ms"] / fr["a_ms"]) / math.log(fr["b"] / f["b"])
    above = f["a_ms"] * f["b"] ** 16 > fr["a_ms"] * fr["b"] ** 16
    if f["b"] >= fr["b"]:
        return "never: steeper" + (" and above" if above else "")
    return f"n* ≈ {nstar:.0f} (slower, less steep)" if above else f"n* ≈ {nstar:.0f}"


def times(row, k):
    a = row["attempts"][k]
    return a["time_ms"] if a["status"] in SOLVED else math.inf


def svg(path, title, series, limit_s, fits=None, span=None):
    """A log-scale line plot of median seconds against n, one line per engine; with fits,
    each engine's fitted a·bⁿ dashed across span (the sizes of the study)."""
    pts = [p for _, ps in series for p in ps]
    if not pts:
        return
    W, H, L, R, T, B = 820, 560, 80, 200, 50, 60
    x0 = min([n for n, _ in pts] + list(span or [])) - 0.5
    x1 = max([n for n, _ in pts] + list(span or [])) + 0.5
    ys = [s for _, s in pts] + [limit_s]
    y0 = 10 ** math.floor(math.log10(min(ys)))
    y1 = 10 ** math.ceil(math.log10(max(ys)))

    def X(n):
        return L + (n - x0) / (x1 - x0) * (W - L - R)

    def Y(s):
        return T + (math.log10(y1) - math.log10(s)) / (math.log10(y1) - math.log10(y0)) * (H - T - B)

    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf"]
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{(W - R + L) / 2}" y="28" font-size="17" text-anchor="middle">{title}</text>']
    e = math.log10(y0)
    while e <= math.log10(y1) + 1e-9:
        y = Y(10 ** e)
        o.append(f'<line x1="{L}" x2="{W - R}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        lab = f"{10 ** e:g}"
        o.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{lab}</text>')
        e += 1
    for n in range(math.ceil(x0), math.floor(x1) + 1):
        x = X(n)
        o.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{H - B}" y2="{H - B + 4}" stroke="black"/>')
        if n % 2 == 0 or x1 - x0 < 14:
            o.append(f'<text x="{x:.1f}" y="{H - B + 18}" text-anchor="middle">{n}</text>')
    o.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="black"/>')
    o.append(f'<text x="{(W - R + L) / 2}" y="{H - 16}" text-anchor="middle">n</text>')
    o.append(f'<text x="20" y="{(H - B + T) / 2}" text-anchor="middle" '
             f'transform="rotate(-90 20 {(H - B + T) / 2})">median seconds (log scale)</text>')
    yl = Y(limit_s)
    o.append(f'<line x1="{L}" x2="{W - R}" y1="{yl:.1f}" y2="{yl:.1f}" stroke="#999" '
             f'stroke-dasharray="6 4"/>')
    o.append(f'<text x="{W - R - 4}" y="{yl - 5:.1f}" text-anchor="end" fill="#666">limit {limit_s:g} s</text>')
    for i, (name, ps) in enumerate(series):
        c = colors[i % len(colors)]
        ps = sorted(ps)
        if len(ps) > 1:
            d = " ".join(f"{X(n):.1f},{Y(s):.1f}" for n, s in ps)
            o.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"/>')
        for n, s in ps:
            o.append(f'<circle cx="{X(n):.1f}" cy="{Y(s):.1f}" r="3.5" fill="{c}"/>')
        f = (fits or {}).get(name)
        if f and f["b"] and span:
            seg = []
            for n in range(min(span), max(span) + 1):
                v = f["a_ms"] * f["b"] ** n / 1e3
                if y0 <= v <= y1:
                    seg.append(f"{X(n):.1f},{Y(v):.1f}")
            if len(seg) > 1:
                line = " ".join(seg)
                o.append(f'<polyline points="{line}" fill="none" stroke="{c}" '
                         f'stroke-width="1" stroke-dasharray="3 3"/>')
        ly = T + 14 + 20 * i
        o.append(f'<line x1="{W - R + 12}" x2="{W - R + 36}" y1="{ly - 4}" y2="{ly - 4}" stroke="{c}" stroke-width="2"/>')
        o.append(f'<text x="{W - R + 42}" y="{ly}">{name}</text>')
    if fits:
        o.append(f'<text x="{L + 6}" y="{H - B - 8}" fill="#666">dashed: the fitted a·bⁿ</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main(out):
    plan = {int(k): v for k, v in load(f"{out}/plan.json").items()}
    sizes = sorted(plan)
    censored = load(f"{out}/censored.json") if os.path.exists(f"{out}/censored.json") else {}
    runs = {n: load(f"{out}/runs/engines-{n}.json") for n in sizes
            if os.path.exists(f"{out}/runs/engines-{n}.json")}
    local = {n: load(f"{out}/runs/local-{n}.json") for n in sizes
             if os.path.exists(f"{out}/runs/local-{n}.json")}
    engines = next(iter(runs.values()))["engines"] if runs else []
    limit_ms = next(iter(runs.values()))["timeout_ms"] if runs else 0
    md = []
    csv = ["run,n,d,id,engine,status,time_ms,vars,clauses"]

    # Status of each instance: what any engine (or the selection) found.
    status = {}
    for n, data in list(runs.items()) + list(local.items()):
        for r in data["instances"]:
            if r["status"] in SOLVED:
                status[r["id"]] = r["status"]
    for n in sizes:
        for i, s in plan[n]["labels"].items():
            status.setdefault(i, s)

    md.append("### Instances\n")
    md.append("| n | source | d | labelled by the backtracker | selected | sat / unsat / unknown |")
    md.append("|---|---|---|---|---|---|")
    for n in sizes:
        p = plan[n]
        ids = p["ids"]
        ks = [status.get(i) for i in ids]
        mix = f"{ks.count('sat')} / {ks.count('unsat')} / {ks.count(None)}"
        if p["balanced"]:
            tried = ", ".join(f"d = {d}" for d in p["tried"])
            lab = f"{tried}: first {_pool(out, n, p)}"
            sel = "first half sat, half unsat"
        else:
            lab = "—"
            sel = f"seeds 1–{len(ids)}"
        src = "CSPLib prob079" if p["source"] == "csplib" else "`queens generate diagonals`"
        md.append(f"| {n} | {src} | {p['d']} | {lab} | {sel} | {mix} |")

    # Per engine and n.
    cols = engines + (["local"] if local else [])
    med = {e: {} for e in cols}
    cell = {e: {} for e in cols}
    for e in cols:
        for n in sizes:
            if e == "local":
                data = local.get(n)
                k = 0
            else:
                data = runs.get(n)
                if data is None or e not in data["engines"]:
                    k = None
                else:
                    k = data["engines"].index(e)
            if data is None or k is None:
                cut = censored.get(e)
                cell[e][n] = f"not run: censored at n = {cut}" if cut is not None else "not run"
                continue
            rows = data["instances"]
            if e == "local":
                rows = [r for r in rows if status.get(r["id"]) == "sat"]
                if not rows:
                    gave = sum(r["attempts"][0]["status"] == "error" for r in data["instances"])
                    cell[e][n] = (f"no board on {len(data['instances'])} (gave up on {gave}); "
                                  "none known satisfiable")
                    continue
            ts = [times(r, k) for r in rows]
            m = median(ts)
            solved = sum(math.isfinite(t) for t in ts)
            med[e][n] = m
            cell[e][n] = f"{fmt_ms(m)} {solved}/{len(ts)}"
            if e == "local":
                gave = sum(r["attempts"][0]["status"] == "error" for r in rows)
                if gave:
                    cell[e][n] += f" (gave up on {gave})"
            for r in data["instances"]:
                a = r["attempts"][k]
                csv.append(f"{'local' if e == 'local' else 'engines'},{n},{plan[n]['d']},{r['id']},"
                           f"{e},{a['status']},{a['time_ms']:.3f},{a['vars'] or ''},{a['clauses'] or ''}")
    md.append("\n### Median time and share solved, per engine and n\n")
    md.append("| n | " + " | ".join(f"`{e}`" for e in cols) + " |")
    md.append("|---|" + "---|" * len(cols))
    for n in sizes:
        md.append(f"| {n} | " + " | ".join(cell[e][n] for e in cols) + " |")

    # Solved, split by the instances' status (known from any engine or the labelling).
    md.append("\n### Solved within the limit, satisfiable and unsatisfiable apart\n")
    md.append("Each cell: satisfiable solved/known satisfiable, unsatisfiable solved/known "
              "unsatisfiable.\n")
    def split_solved(n, e, data, k):
        c = {"sat": [0, 0], "unsat": [0, 0]}
        for r in data["instances"]:
            st = status.get(r["id"])
            if st:
                c[st][1] += 1
                c[st][0] += r["attempts"][k]["status"] == st
        return f"{c['sat'][0]}/{c['sat'][1]}, {c['unsat'][0]}/{c['unsat'][1]}"

    engine_table(md, sizes, engines, runs, split_solved)

    fits = {e: fit([(n, m) for n, m in med[e].items() if m]) for e in cols}
    md.append("\n### Growth: time ≈ a·bⁿ fitted to the medians under the limit\n")
    r0 = engines[0] if engines else None
    md.append(f"| engine | b | ±2 s.e. | sizes fitted | n range | a (ms) | `{r0}` over the same sizes: b (±2 s.e.) |")
    md.append("|---|---|---|---|---|---|---|")
    for e in cols:
        f = fits[e]
        b, spread = fmt_fit(f)
        ns = [n for n, m in med[e].items() if m]
        rng = f"{min(ns)}–{max(ns)}" if ns else "—"
        a = f"{f['a_ms']:.3g}" if f["a_ms"] else "—"
        same = fit([(n, med[r0][n]) for n in ns if med[r0].get(n)]) if r0 and e != r0 else None
        sb = "—"
        if same and same["b"]:
            sb = "{} ({})".format(*fmt_fit(same))
        md.append(f"| `{e}` | {b} | {spread} | {f['k']} | {rng} | {a} | {sb} |")

    # The same on the satisfiable instances alone, and on the unsatisfiable ones alone: the
    # SAT solvers fail mostly on the latter.
    for kind in ("sat", "unsat"):
        kmed = {e: {} for e in engines}
        md.append(f"\n### Median time on the {kind}isfiable instances alone\n")
        def kind_median(n, e, data, k, kind=kind, kmed=kmed):
            ts = [times(r, k) for r in data["instances"] if status.get(r["id"]) == kind]
            if not ts:
                return "—"
            m = median(ts)
            kmed[e][n] = m
            return f"{fmt_ms(m)} {sum(map(math.isfinite, ts))}/{len(ts)}"

        engine_table(md, sizes, engines, runs, kind_median)
        md.append("\n| engine | b | ±2 s.e. | sizes fitted | crossing with `"
                  + engines[0] + "`'s fit |")
        md.append("|---|---|---|---|---|")
        kfits = {e: fit([(n, m) for n, m in kmed[e].items() if m]) for e in engines}
        for e in engines:
            b, spread = fmt_fit(kfits[e])
            md.append(f"| `{e}` | {b} | {spread} | {kfits[e]['k']} | "
                      f"{crossing(kfits[e], kfits[engines[0]]) if e != engines[0] else '—'} |")

    ref = engines[0] if engines else None
    if ref:
        md.append(f"\n### Against `{ref}`\n")
        md.append("Ratio of medians per n (where both are under the limit), and where the fitted "
                  "lines would cross: n* solves a₁b₁ⁿ = a₂b₂ⁿ.\n")
        md.append(f"| engine | median ratio to `{ref}`, by n | fitted crossing n* |")
        md.append("|---|---|---|")
        fr = fits[ref]
        for e in cols:
            if e == ref:
                continue
            rs = [f"{n}: {med[e][n] / med[ref][n]:.3g}×" for n in sizes
                  if med[e].get(n) and med[ref].get(n)]
            cross = crossing(fits[e], fr)
            md.append(f"| `{e}` | {', '.join(rs) or '—'} | {cross} |")

    # Totals on the instances both solved, as `queens compare` summarises.
    md.append("\n### Totals over every size it ran at\n")
    md.append(f"| engine | ran | solved | sat | unsat | no answer in {limit_ms / 1e3:g} s | "
              f"time on instances both solved, against `{ref}` |")
    md.append("|---|---|---|---|---|---|---|")
    for e in cols:
        ran = solved = ns = nu = 0
        mine = other = 0.0
        both = 0
        for n in sizes:
            data = local.get(n) if e == "local" else runs.get(n)
            if data is None or (e != "local" and e not in data["engines"]):
                continue
            k = 0 if e == "local" else data["engines"].index(e)
            rrun = runs.get(n)
            for r in data["instances"]:
                if e == "local" and status.get(r["id"]) != "sat":
                    continue
                a = r["attempts"][k]
                ran += 1
                if a["status"] in SOLVED:
                    solved += 1
                    ns += a["status"] == "sat"
                    nu += a["status"] == "unsat"
                if rrun and ref in rrun["engines"]:
                    rr = next(x for x in rrun["instances"] if x["id"] == r["id"])
                    b = rr["attempts"][rrun["engines"].index(ref)]
                    if a["status"] in SOLVED and b["status"] in SOLVED:
                        mine += a["time_ms"]
                        other += b["time_ms"]
                        both += 1
        ratio = "reference" if e == ref else (f"{mine / other:.3g}× on {both}" if other else "—")
        md.append(f"| `{e}` | {ran} | {solved} | {ns} | {nu} | {ran - solved} | {ratio} |")

    series = [(e, [(n, m / 1e3) for n, m in sorted(med[e].items()) if m]) for e in cols]
    svg(f"{out}/engines-growth.svg", "median time per board size (prob079, d ≈ 0.9 n)",
        series, limit_ms / 1e3, fits, (min(sizes), max(sizes)))

    # Encodings.
    enc = {n: load(f"{out}/runs/encodings-{n}.json") for n in sizes
           if os.path.exists(f"{out}/runs/encodings-{n}.json")}
    if enc:
        names = next(iter(enc.values()))["engines"]
        ens = sorted(enc)
        md.append("\n### The encodings under CaDiCaL\n")
        md.append("| n | " + " | ".join(f"`{e}`" for e in names) + " |")
        md.append("|---|" + "---|" * len(names))
        emed = {e: {} for e in names}
        for n in ens:
            data = enc[n]
            cells = []
            for k, e in enumerate(names):
                ts = [times(r, k) for r in data["instances"]]
                m = median(ts)
                emed[e][n] = m
                cls = [r["attempts"][k]["clauses"] for r in data["instances"]
                       if r["attempts"][k]["clauses"]]
                cl = f", {median(cls):,.0f} clauses" if cls else ""
                cells.append(f"{fmt_ms(m)} {sum(map(math.isfinite, ts))}/{len(ts)}{cl}")
                for r in data["instances"]:
                    a = r["attempts"][k]
                    csv.append(f"encodings,{n},{plan[n]['d']},{r['id']},{e},{a['status']},"
                               f"{a['time_ms']:.3f},{a['vars'] or ''},{a['clauses'] or ''}")
            md.append(f"| {n} | " + " | ".join(cells) + " |")
        md.append(f"\n| encoding | solved: sat, unsat | b | ±2 s.e. | sizes fitted | total time on "
                  f"instances all encodings solved, against `{names[0]}` |")
        md.append("|---|---|---|---|---|---|")
        for k, e in enumerate(names):
            b, spread = fmt_fit(fit([(n, m) for n, m in emed[e].items() if m]))
            mine = base = 0.0
            cnt = 0
            for n in ens:
                for r in enc[n]["instances"]:
                    if all(a["status"] in SOLVED for a in r["attempts"]):
                        mine += r["attempts"][k]["time_ms"]
                        base += r["attempts"][0]["time_ms"]
                        cnt += 1
            ratio = "reference" if k == 0 else (f"{mine / base:.3g}× on {cnt}" if base else "—")
            sv = {"sat": [0, 0], "unsat": [0, 0]}
            for n in ens:
                for r in enc[n]["instances"]:
                    st = status.get(r["id"])
                    if st:
                        sv[st][1] += 1
                        sv[st][0] += r["attempts"][k]["status"] == st
            sol = f"{sv['sat'][0]}/{sv['sat'][1]}, {sv['unsat'][0]}/{sv['unsat'][1]}"
            md.append(f"| `{e}` | {sol} | {b} | {spread} | {len([m for m in emed[e].values() if m])} | {ratio} |")
        svg(f"{out}/encodings-growth.svg", "CaDiCaL: median time per encoding",
            [(e, [(n, m / 1e3) for n, m in sorted(emed[e].items()) if m]) for e in names],
            limit_ms / 1e3)

    # The unsatisfiable instances again with a longer limit (crossover.py unsat).
    if os.path.exists(f"{out}/runs/unsat-long.json"):
        data = load(f"{out}/runs/unsat-long.json")
        names = data["engines"]
        md.append(f"\n### The unsatisfiable instances with a {data['timeout_ms'] / 1e3:g} s limit\n")
        md.append("| n | " + " | ".join(f"`{e}`" for e in names) + " |")
        md.append("|---|" + "---|" * len(names))
        for n in sorted({r["n"] for r in data["instances"]}):
            rows = [r for r in data["instances"] if r["n"] == n]
            cells = []
            for k, e in enumerate(names):
                ts = [times(r, k) for r in rows]
                done = [t for t in ts if math.isfinite(t)]
                most = f", slowest answer {fmt_ms(max(done))}" if done else ""
                cells.append(f"{fmt_ms(median(ts))} {len(done)}/{len(ts)}{most}")
                for r in rows:
                    a = r["attempts"][k]
                    csv.append(f"unsat-long,{n},{plan[n]['d']},{r['id']},{e},{a['status']},"
                               f"{a['time_ms']:.3f},{a['vars'] or ''},{a['clauses'] or ''}")
            md.append(f"| {n} | " + " | ".join(cells) + " |")

    with open(f"{out}/report.md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(f"{out}/attempts.csv", "w") as f:
        f.write("\n".join(csv) + "\n")
    print("\n".join(md))


def engine_table(md, sizes, engines, runs, cell):
    """A table with a row per n and a column per engine: `cell(n, engine, run, k)` gives the
    text of an engine that ran at n (`k` its index in the run), "—" where it did not."""
    md.append("| n | " + " | ".join(f"`{e}`" for e in engines) + " |")
    md.append("|---|" + "---|" * len(engines))
    for n in sizes:
        data = runs.get(n)
        row = []
        for e in engines:
            if data is None or e not in data["engines"]:
                row.append("—")
            else:
                row.append(cell(n, e, data, data["engines"].index(e)))
        md.append(f"| {n} | " + " | ".join(row) + " |")


def _pool(out, n, p):
    d = p["d"]
    path = f"{out}/runs/label-{n}-{d}.json"
    if not os.path.exists(path):
        return "?"
    rows = load(path)["instances"]
    s = sum(r["status"] == "sat" for r in rows)
    u = sum(r["status"] == "unsat" for r in rows)
    return f"{len(rows)}: {s} sat, {u} unsat"
