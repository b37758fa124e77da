"""solve: every engine, "no solution" and "timeout" as results, big boards as arrays, and
proofs written and checked."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import queens
from conftest import INSTANCES, need_tool


@pytest.mark.parametrize("engine", ["auto", "backtrack", "sat", "race", "local"])
def test_every_engine_answers_a_verified_board(engine):
    p = queens.Problem(12) if engine == "local" else queens.Problem(12, queens=[(0, 0)])
    r = queens.solve(p, engine=engine)
    assert r.status == "sat"
    assert len(r.queens) == 12
    assert queens.check(p, r.queens).status == "solved"
    assert r.time >= 0 and r.raw["time_ms"] == pytest.approx(r.time * 1e3)


def test_auto_says_who_answered():
    r = queens.solve(queens.Problem(30))
    assert r.engine == "auto" and r.answered_by in {"backtrack", "local", "sat"}


def test_a_completion_says_why_its_engine_answered():
    # 100 rows with 90 queens fixed: auto's portfolio on a classic completion.
    (p,) = queens.generate("completion", 100, count=1, seed=1, queens=90)
    r = queens.solve(p)
    assert r.status in {"sat", "unsat"} and r.why == r.raw["why"]
    assert r.why.startswith("portfolio: the core (10 free rows) was estimated at "), r.why
    ended = r.why.split("; ")[-1]
    assert ("local search answered" in ended) == (r.answered_by == "local"), r.why


def test_backtrack_reports_nodes():
    r = queens.solve(queens.Problem(10), engine="backtrack")
    assert r.nodes is not None and r.nodes > 0


def test_no_solution_is_a_result():
    r = queens.solve(queens.Problem.load(INSTANCES / "unsolvable-completion.txt"))
    assert r.status == "unsat" and r.queens is None and r.reason


def test_timeout_is_a_result():
    # The SAT engine lists 10,000 of the 14,200 solutions of 12×12 one solver call (and
    # one blocking clause) at a time: far more than 0.3 s.
    r = queens.solve(queens.Problem(12), engine="sat", limit=10_000, timeout=0.3)
    assert r.status == "timeout"
    assert r.raw["count"] < 10_000


def test_seed_makes_the_same_solution():
    p = queens.Problem(2000)
    a = queens.solve(p, engine="local", seed=7)
    b = queens.solve(p, engine="local", seed=7)
    assert a.queens == b.queens


def test_listing_solutions():
    r = queens.solve(queens.Problem(6), all=True)
    assert r.raw["count"] == 4 and len(r.solutions) == 4
    r = queens.solve(queens.Problem(8), limit=5)
    assert len(r.solutions) == 5


def test_bad_options_name_the_field():
    p = queens.Problem(8)
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(p, engine="quantum")
    assert e.value.field == "engine"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(p, limit=0)
    assert e.value.field == "limit" and str(e.value) == "field `limit`: must be at least 1"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(p, engine="local", all=True)
    assert e.value.field == "all"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(p, encoding="morse")
    assert e.value.field == "encoding"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(p, timeout=-1)
    assert e.value.field == "timeout"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(p, threads=0)
    assert e.value.field == "threads"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve("8")  # type: ignore[arg-type]
    assert e.value.field == "problem"


def test_ten_million_rows_come_back_as_an_array():
    np = pytest.importorskip("numpy")
    n = 10**7
    p = queens.Problem(n)
    r = queens.solve(p)
    assert r.status == "sat"
    assert isinstance(r.queens, np.ndarray)
    assert r.queens.dtype == np.dtype("<u4") and r.queens.shape == (n,)
    # A permutation: one queen a row and a column (the verifier checks the diagonals).
    assert np.bincount(r.queens, minlength=n).max() == 1
    assert queens.check(p, r.queens).status == "solved"
    # A queen moved onto another's column is caught.
    bad = r.queens.copy()
    bad[1] = bad[0]
    assert queens.check(p, bad).status == "invalid"


def _proof_cases():
    return [("backtrack", "lrat"), ("sat", "drat"), ("backtrack", "binary-lrat")]


@pytest.mark.parametrize("engine,fmt", _proof_cases())
def test_a_proof_is_written_and_checked(tmp_path, engine, fmt):
    p = queens.Problem.load(INSTANCES / "unsolvable-completion.txt")
    path = tmp_path / f"no.{fmt}"
    r = queens.solve(p, engine=engine, proof=path, proof_format=fmt)
    assert r.status == "unsat"
    assert r.proof is not None and r.proof.checked
    assert r.proof.format == fmt and r.proof.path == str(path)
    assert path.stat().st_size == r.proof.bytes > 0
    cnf = tmp_path / f"no.{fmt}.cnf"
    assert r.proof.cnf == str(cnf) and cnf.read_text().startswith("c ")


def test_no_proof_for_a_solution(tmp_path):
    r = queens.solve(queens.Problem(8), engine="backtrack", proof=tmp_path / "p.lrat")
    assert r.status == "sat" and r.proof is None
    assert not (tmp_path / "p.lrat").exists()


def test_outside_checkers_accept_the_proofs(tmp_path):
    p = queens.Problem.load(INSTANCES / "unsolvable-completion.txt")
    drat = queens.solve(p, engine="sat", proof=tmp_path / "s.drat", proof_format="drat")
    lrat = queens.solve(p, engine="backtrack", proof=tmp_path / "b.lrat")
    assert drat.proof is not None and lrat.proof is not None
    drat_trim = need_tool("drat-trim")
    out = subprocess.run(
        [drat_trim, drat.proof.cnf, drat.proof.path], capture_output=True, text=True
    )
    assert "s VERIFIED" in out.stdout, out.stdout
    lrat_check = need_tool("lrat-check")
    out = subprocess.run(
        [lrat_check, lrat.proof.cnf, lrat.proof.path], capture_output=True, text=True
    )
    assert "c VERIFIED" in out.stdout or "s VERIFIED" in out.stdout, out.stdout


def test_plan_is_the_tree_solve_runs_without_running_it():
    tree = queens.plan(queens.Problem(8))
    assert tree["step"] == "run" and tree["engine"] == "backtrack"
    assert "start_ms" not in tree
    assert queens.plan(queens.Problem(100))["step"] == "side_by_side"
    ran = queens.solve(queens.Problem(8))
    assert ran.plan["ending"] == "answered"


def test_an_external_solver_is_named_as_on_the_command_line():
    # ``ext:NAME`` (with an encoding and ``+rings`` in it) reads as the service and the
    # command line read it: engine ``ext`` and its solver; a solver beside it that names
    # another is refused by its field. The solver gives up, so it needs no SAT solver.
    script = Path(__file__).resolve().parents[2] / "tests" / "data" / "solvers" / "unknown.sh"
    queens._native.configure_solvers([f"giveup=sh {script} {{cnf}}"])
    p = queens.Problem(6)
    for options in (
        {"engine": "ext:giveup"},
        {"engine": "ext", "solver": "giveup"},
        {"engine": "ext:giveup", "solver": "giveup"},
        {"engine": "ext:giveup:seq", "encoding": "seq"},
    ):
        r = queens.solve(p, **options)
        assert r.status == "unknown", options
        assert queens.count(p, limit=1, **options).status == "unknown", options
    for options, name in (
        ({"engine": "ext:giveup", "solver": "other"}, "solver"),
        ({"engine": "ext:giveup:seq", "encoding": "pairwise"}, "encoding"),
    ):
        with pytest.raises(queens.UnsupportedError) as e:
            queens.solve(p, **options)
        assert e.value.field == name
