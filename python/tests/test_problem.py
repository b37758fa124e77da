"""Problems: built from fields, loaded from every file format the CLI reads, and bad input
named by its field or line."""

from __future__ import annotations

import json

import pytest

import queens
from conftest import DATA, INSTANCES


def test_fields_make_the_json_instance():
    p = queens.Problem(8, queens=[(4, 1), "d5"], blocked=[(0, 0)])
    assert p.n == 8
    assert p.queens == [(3, 3), (4, 1)]
    assert p.blocked == [(0, 0)]
    assert p.diagonals == "full"
    d = p.to_dict()
    assert d["n"] == 8 and sorted(map(tuple, d["queens"])) == [(3, 3), (4, 1)]
    # The JSON reads back as the same problem.
    again = queens.Problem.parse(p.to_json())
    assert again.queens == p.queens and again.blocked == p.blocked


def test_regions_default_to_the_touch_rule():
    p = queens.Problem(regions=["AABB", "AABB", "CCDD", "CCDD"])
    assert p.n == 4 and p.diagonals == "touch"
    r = queens.solve(p)
    assert r.status == "sat" and queens.check(p, r.queens).status == "solved"
    # Under the n-queens rule too: the 4-queens solution (0,1), (1,3), (2,0), (3,2) takes
    # one cell of each region, and so does its mirror image.
    full = queens.Problem(regions=["AABB", "AABB", "CCDD", "CCDD"], diagonals="full")
    assert full.diagonals == "full"
    assert queens.count(full).count == 2


def test_numpy_ints_are_cells():
    np = pytest.importorskip("numpy")
    p = queens.Problem(np.int64(8), queens=[(np.int64(4), np.int32(1))])
    assert p.queens == [(4, 1)]


@pytest.mark.parametrize(
    "path",
    [
        INSTANCES / "nauck-1850.txt",
        INSTANCES / "nauck-1850.json",
        DATA / "nauck-1850.param",
    ],
)
def test_every_format_loads_nauck(path):
    p = queens.Problem.load(path)
    assert p.n == 8 and p.queens == [(3, 3), (4, 1)]
    assert queens.count(p).count == 2


def test_a_corpus_record_is_picked_with_select():
    p = queens.Problem.load(DATA / "corpus.jsonl", select={"id": "region"})
    assert p.n == 4 and p.id == "region"
    with pytest.raises(queens.InputError, match="instances match"):
        queens.Problem.load(DATA / "corpus.jsonl")
    all_ = queens.Problem.load_all(DATA / "corpus.jsonl")
    assert [q.id for q in all_] == ["nauck", "diag-a", "region"]


def test_a_region_grid_loads():
    p = queens.Problem.load(INSTANCES / "region-7.txt")
    assert p.n == 7 and p.diagonals == "touch"
    r = queens.solve(p)
    assert r.status == "sat" and queens.check(p, r.queens).status == "solved"


def test_bad_fields_are_named():
    with pytest.raises(queens.ModelError) as e:
        queens.Problem(8, queens=[(0, 0), (9, 1)])
    assert e.value.field == "queens[1]"
    assert "off the 8×8 board" in str(e.value)
    with pytest.raises(queens.ModelError) as e:
        queens.Problem(0)
    assert e.value.field == "n"
    with pytest.raises(queens.ModelError) as e:
        queens.Problem(8, diagonals="sideways")
    assert e.value.field == "diagonals"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.Problem(8, blocked=[(1, 2, 3)])
    assert e.value.field == "blocked[0]"
    with pytest.raises(queens.ModelError) as e:
        queens.Problem(regions=["AB", "A"])
    assert e.value.field is not None and e.value.field.startswith("regions")


def test_bad_files_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("....\n..Q.\n...\n....\n")
    with pytest.raises(queens.InputError) as e:
        queens.Problem.load(bad)
    assert e.value.origin == str(bad)
    assert e.value.line == 3
    assert str(e.value).startswith(f"{bad}: ")
    with pytest.raises(queens.QueensIOError) as io:
        queens.Problem.load(tmp_path / "missing.txt")
    assert isinstance(io.value, OSError)
    bad_json = tmp_path / "bad.json"
    bad_json.write_text(json.dumps({"n": 8, "queens": [[0, 0], [0, 9]]}))
    with pytest.raises(queens.InputError) as e:
        queens.Problem.load(bad_json)
    assert e.value.field == "queens[1]"


def test_errors_are_the_clis(tmp_path):
    import subprocess

    from conftest import queens_binary

    exe = queens_binary()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"n": 8, "queens": [[0, 0], [0, 9]]}))
    with pytest.raises(queens.InputError) as e:
        queens.Problem.load(bad)
    cli = subprocess.run([exe, "solve", bad], capture_output=True, text=True)
    assert cli.returncode == 2
    assert cli.stderr.strip() == f"queens: error: {e.value}"
    with pytest.raises(queens.UnsupportedError) as u:
        queens.solve(queens.Problem(8), limit=0)
    cli = subprocess.run([exe, "solve", "--n", "8", "--limit", "0"], capture_output=True, text=True)
    assert cli.returncode == 2
    assert cli.stderr.strip() == f"queens: error: {u.value}"


def test_an_unknown_engine_is_refused_in_the_clis_words():
    import subprocess

    from conftest import queens_binary

    with pytest.raises(queens.UnsupportedError) as e:
        queens.solve(queens.Problem(8), engine="sta")
    assert e.value.field == "engine"
    cli = subprocess.run(
        [queens_binary(), "solve", "--n", "8", "--engine", "sta"], capture_output=True, text=True
    )
    assert cli.returncode == 2
    # clap puts its own words before the reason: the reason is the same.
    reason = cli.stderr.splitlines()[0].split("'--engine <ENGINE>': ", 1)[1]
    assert reason.startswith("`sta`: use auto, backtrack")
    assert str(e.value) == f"field `engine`: {reason}"
