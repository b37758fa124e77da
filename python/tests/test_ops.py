"""count, check, explain, encode/decode (round trip through PySAT), generate and compare."""

from __future__ import annotations

import pytest

import queens
from conftest import INSTANCES, need


@pytest.mark.parametrize("n,total", [(1, 1), (4, 2), (6, 4), (8, 92), (10, 724)])
def test_count_is_a000170(n, total):
    assert queens.count(queens.Problem(n)).count == total


def test_count_on_both_engines_and_up_to_symmetry():
    p = queens.Problem(8)
    assert queens.count(p, engine="sat").count == 92
    r = queens.count(p, unique=True)
    assert r.unique == 12
    r = queens.count(p, limit=10)
    assert r.count == 10 and r.limited
    assert queens.count(queens.Problem(3)).status == "unsat"


def test_check_names_the_violation():
    p = queens.Problem(8)
    r = queens.check(p, [(0, 0), (1, 1)])
    assert r.status == "invalid" and not r.ok
    assert "(0,0)" in r.violations[0]["message"] and "(1,1)" in r.violations[0]["message"]
    r = queens.check(p, [(0, 0), (1, 2)])
    assert r.status == "consistent" and r.ok
    # Of a1's four solutions, only 0 4 7 5 2 6 1 3 has its second queen on (1, 4).
    r = queens.check(p, [(0, 0), (1, 4)], completions=100)
    assert r.raw["completions"]["count"] == 1 and r.completable
    with pytest.raises(queens.UnsupportedError) as e:
        queens.check(p, [(0, 0), "nowhere"])
    assert e.value.field is not None and e.value.field.startswith("queens")


def test_check_takes_a_whole_board_of_columns():
    array = pytest.importorskip("numpy").array
    p = queens.Problem(4)
    assert queens.check(p, array([1, 3, 0, 2])).status == "solved"
    assert queens.check(p, array([0, 1, 2, 3])).status == "invalid"


def test_explain_finds_a_core_with_a_checked_proof(tmp_path):
    p = queens.Problem.load(INSTANCES / "unsolvable-completion.txt")
    r = queens.explain(p, proof=tmp_path / "core.lrat")
    assert r.status == "unsat"
    assert r.core and set(r.core) <= set(p.queens)
    assert r.proof is not None and r.proof.checked and (tmp_path / "core.lrat").exists()
    # The core alone has no solution either.
    assert queens.solve(queens.Problem(p.n, queens=r.core)).status == "unsat"
    assert queens.explain(queens.Problem(8)).status == "sat"


@pytest.mark.parametrize("encoding", ["pairwise", "seq", "commander", "product", "bimander"])
def test_encode_round_trips_through_pysat(encoding):
    try:
        from pysat.formula import CNF
        from pysat.solvers import Solver
    except ImportError:
        need("python-sat (pip install python-sat)", False)
        raise
    p = queens.Problem(10, queens=[(0, 3), (1, 5)], blocked=[(2, 2)])
    e = queens.encode(p, encoding=encoding)
    assert e.vars >= len(e.cells) > 0
    assert e.fixed == [(0, 3), (1, 5)]
    assert e.dimacs.count("\n0") or e.dimacs
    cnf = CNF(from_clauses=e.clauses)
    assert cnf.nv <= e.vars
    with Solver(name="g3", bootstrap_with=cnf.clauses) as s:
        assert s.solve()
        model = s.get_model()
    board = e.decode(model)
    assert queens.check(p, board).status == "solved"
    d = queens.decode(p, model, encoding=encoding)
    assert d.status == "sat" and d.queens == board
    # Every solution of the CNF is a solution of the problem, and the counts agree.
    with Solver(name="g3", bootstrap_with=cnf.clauses) as s:
        models = 0
        cell_vars = sorted(e.cells)
        while s.solve():
            m = s.get_model()
            assert queens.check(p, e.decode(m)).status == "solved"
            models += 1
            s.add_clause([-v for v in cell_vars if m[v - 1] > 0])
    assert models == queens.count(p).count


def test_pysat_unsat_agrees_with_the_verifier():
    from pysat.solvers import Solver

    p = queens.Problem.load(INSTANCES / "unsolvable-completion.txt")
    e = queens.encode(p)
    with Solver(name="g3", bootstrap_with=e.clauses) as s:
        assert not s.solve()
    assert queens.solve(p).status == "unsat"


def test_decode_refuses_a_bad_model():
    p = queens.Problem(4)
    e = queens.encode(p)
    # Every cell true: a board that breaks every rule, refused with the rule named.
    with pytest.raises(queens.InputError) as err:
        queens.decode(p, list(range(1, e.vars + 1)))
    assert err.value.origin == "model" and "share row 0" in str(err.value)


def test_generate_is_seeded():
    a = queens.generate("completion", 12, count=3, seed=5, queens=4)
    b = queens.generate("completion", 12, count=3, seed=5, queens=4)
    assert [p.to_json() for p in a] == [p.to_json() for p in b]
    assert all(p.n == 12 and len(p.queens) == 4 for p in a)
    d = queens.generate("diagonals", 10, first=6)
    assert len(d) == 1 and d[0].n == 10
    (puzzle,) = queens.generate("regions", 8, difficulty="easy")
    assert puzzle.diagonals == "touch"
    r = queens.solve(puzzle)
    assert r.status == "sat" and queens.check(puzzle, r.queens).status == "solved"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.generate("completion", 8, count=0)
    assert e.value.field == "count"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.generate("mazes", 8)
    assert e.value.field == "kind"


def test_compare_rows_are_dicts():
    problems = [queens.Problem(8), queens.Problem(3), queens.Problem.load(INSTANCES / "nauck-1850.txt")]
    rows = queens.compare(problems, ["backtrack", "sat"], timeout=20, frame=False)
    assert isinstance(rows, queens.Comparison) and len(rows) == 6
    assert [r["status"] for r in rows] == ["sat", "sat", "unsat", "unsat", "sat", "sat"]
    assert [r["engine"] for r in rows[:2]] == ["backtrack", "sat:auto"]
    assert rows[0]["id"] == "#1" and rows[4]["id"] == "nauck-1850"
    assert rows[0]["nodes"] and rows[1]["vars"] == 64
    assert {s["engine"] for s in rows.summary} == {"backtrack", "sat:auto"}


def test_compare_with_proofs_and_a_dataframe(tmp_path):
    pandas = pytest.importorskip("pandas")
    frame = queens.compare(
        [INSTANCES / "unsolvable-completion.txt"],
        ["backtrack", "sat"],
        timeout=20,
        proof="lrat",
        proof_dir=tmp_path,
    )
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["status"]) == ["unsat", "unsat"]
    assert all((tmp_path / p).exists() or p.startswith(str(tmp_path)) for p in frame["proof_path"])
    assert (frame["proof_bytes"] > 0).all()


def test_compare_names_a_bad_engine():
    with pytest.raises(queens.UnsupportedError) as e:
        queens.compare([queens.Problem(4)], ["backtrack", "warp"], timeout=1)
    assert e.value.field == "engines[1]"


def test_compare_runs_a_race_inside_a_worker():
    # The race runs its SAT side in a worker of its own: here a worker started by a worker.
    p = queens.Problem.load(INSTANCES / "unsolvable-completion.txt")
    rows = queens.compare([queens.Problem(10), p], ["race"], timeout=20, frame=False)
    assert [r["status"] for r in rows] == ["sat", "unsat"]
    assert all(r["error"] is None for r in rows)


def test_decode_refuses_a_model_of_another_encoding():
    try:
        from pysat.solvers import Solver
    except ImportError:
        need("python-sat (pip install python-sat)", False)
        raise
    p = queens.Problem.load(INSTANCES / "nauck-1850.txt")
    e = queens.encode(p, encoding="seq")
    with Solver(name="g3", bootstrap_with=e.clauses) as s:
        assert s.solve()
        model = s.get_model()
    # Found from the model's variable count without an encoding, refused with another.
    assert queens.decode(p, model).status == "sat"
    with pytest.raises(queens.InputError) as err:
        queens.decode(p, model, encoding="pairwise")
    assert "the seq encoding" in str(err.value) and "another encoding" in str(err.value)
    # The CNF's header names the instance: a model of another instance's CNF is refused.
    sha = next(w for w in e.dimacs.split() if w.startswith("sha256=")).split("=", 1)[1]
    assert queens.decode(p, model, instance_sha256=sha).status == "sat"
    with pytest.raises(queens.QueensError, match="another instance"):
        queens.decode(queens.Problem(8), model, instance_sha256=sha)
