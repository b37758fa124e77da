"""Operations reach Python from their declarations: each one offered to library callers is a
function of the package, those without a hand-written function (``hint``, ``grade``) answer
result objects made from the answer's schema, and the hand-written ones keep the declared
defaults."""

from __future__ import annotations

import inspect
import json
import pickle
import subprocess

import pytest

import queens
from queens import _native
from conftest import INSTANCES, queens_binary

DECLARED = json.loads(_native.operations())


def _declared(name: str) -> dict:
    return next(op for op in DECLARED if op["name"] == name)


def test_every_operation_with_an_endpoint_is_a_function():
    """The service's operations are all in the package: the games' and the threshold, which
    have no function written here, answer from their declarations as the CLI and the
    service do."""
    names = {op["name"] for op in DECLARED}
    games = {f"collection_{q}" for q in ("deal", "play", "simulate", "solve", "study")}
    games |= {f"mod2_{q}" for q in ("check", "replay", "solve", "optimum")}
    assert games | {"threshold", "hint", "grade"} <= names
    assert "solve_cnf" not in names  # run only in a child process, never by a caller
    solved = queens.mod2_solve(n=3)
    assert (solved.status, solved.winner) == ("ok", "first")
    assert (0, 0) in solved.winning_moves
    most = queens.mod2_optimum(n=3, question="max")
    assert most.raw["optimal"] is True and most.raw["queens"] == 9
    deal = queens.collection_deal(seed=1)
    played = queens.collection_play(deal=deal.raw, policy="greedy")
    assert played.turns > 0 and played.moves
    cli = subprocess.run(
        [queens_binary(), "collection", "play", "-", "--policy", "greedy", "--json"],
        input=json.dumps(deal.raw),
        capture_output=True,
        text=True,
    )
    assert json.loads(cli.stdout)["score"] == played.score, cli.stderr
    assert queens.threshold(n=8).threshold == 1


def test_every_library_operation_is_a_function():
    names = [op["name"] for op in DECLARED]
    assert {"solve", "count", "check", "hint", "grade"} <= set(names)
    for name in names:
        assert callable(getattr(queens, name)), name
        assert name in queens.__all__, name


def test_hand_written_functions_keep_the_declared_defaults():
    # A keyword a hand-written function shares with its request has the request's default
    # (None standing for an empty list or no value).
    checked = 0
    for op in DECLARED:
        params = inspect.signature(getattr(queens, op["name"])).parameters
        for field in op["fields"]:
            if field["name"] not in params or "default" not in field:
                continue
            if field["name"] == "proof":
                continue  # a path in Python: the format is `proof_format`
            have = params[field["name"]].default
            want = field["default"]
            assert have == want or (have is None and want in ([], {})), (
                f"{op['name']}({field['name']}={have!r}) but the request's default is {want!r}"
            )
            checked += 1
    assert checked >= 15


def _cli_json(*args: str) -> dict:
    out = subprocess.run(
        [str(queens_binary()), *args, "--json"], capture_output=True, text=True
    )
    assert out.returncode in (0, 1), out.stderr
    answer: dict = json.loads(out.stdout)
    return answer


def test_hint_answers_as_the_cli_does():
    path = INSTANCES / "region-7.txt"
    p = queens.Problem.load(path)
    r = queens.hint(p)
    assert isinstance(r, queens.HintResult) and isinstance(r, queens.Result)
    assert r.status == "sat" and r.technique == "last-cell"
    assert r.place == [(0, 1)] and all(isinstance(c, tuple) for c in r.place)
    assert r.time == pytest.approx(r.raw["time_ms"] / 1e3)
    cli = _cli_json("hint", str(path))
    assert {k: v for k, v in cli.items() if k != "time_ms"} == {
        k: (v if k not in ("place", "eliminate") else [list(c) for c in v])
        for k, v in r.raw.items()
        if k != "time_ms"
    }
    assert "technique=" in repr(r) and "technique" in dir(r)
    assert pickle.loads(pickle.dumps(r)) == r
    with pytest.raises(AttributeError):
        r.grade  # noqa: B018


def test_hint_reads_the_players_marks():
    regions = queens.Problem.load(INSTANCES / "region-7.txt").to_dict()["regions"]
    before = queens.hint(queens.Problem(regions=regions))
    assert before.place == [(0, 1)]
    # The player has placed that queen and ruled out every cell it attacks: the next step
    # is another one.
    attacked = queens.check(queens.Problem(regions=regions, queens=[(0, 1)]), hints=True)
    marks = attacked.raw["attacked"]
    after = queens.hint(queens.Problem(regions=regions, queens=[(0, 1)], marks=marks))
    assert after.status == "sat" and (after.place, after.eliminate) != (before.place, [])
    assert not set(after.eliminate) & {tuple(c) for c in marks}
    with pytest.raises(queens.ModelError) as e:
        queens.Problem(regions=regions, marks=[(0, 0), "nowhere?"])
    assert e.value.field == "marks[1]"


def test_grade_lists_its_steps_when_asked():
    path = INSTANCES / "region-7.txt"
    p = queens.Problem.load(path)
    r = queens.grade(p)
    assert isinstance(r, queens.GradeResult)
    assert r.grade == _cli_json("grade", str(path))["grade"]
    assert r.steps is None and r.step_count > 0
    steps = queens.grade(p, steps=True).steps
    assert steps is not None and len(steps) == r.step_count
    assert sum(r.techniques.values()) == r.step_count


def test_made_functions_are_documented_and_refuse_what_they_do_not_take():
    sig = inspect.signature(queens.grade)
    assert list(sig.parameters) == ["problem", "timeout", "steps", "progress"]
    assert sig.parameters["steps"].default is False
    assert "steps" in (queens.grade.__doc__ or "")
    assert "technique" in (queens.HintResult.__doc__ or "")
    with pytest.raises(TypeError):
        queens.hint(queens.Problem(8), steps=True)
    with pytest.raises(queens.UnsupportedError) as e:
        queens.grade("8")
    assert e.value.field == "problem"
    with pytest.raises(queens.UnsupportedError) as e:
        queens.grade(queens.Problem.load(INSTANCES / "region-7.txt"), timeout=-1)
    assert e.value.field == "timeout"


def test_an_operation_added_later_gets_a_function_from_its_description():
    # What the compiled module would say of an operation added to the table: the function
    # and the class come from it alone.
    from queens import _operations

    described = {
        "name": "count_pairs",
        "summary": "Counts pairs of `things`.",
        "description": None,
        "instance": True,
        "fields": [
            {"name": "kind", "description": "Which pairs.", "required": True, "schema": {}},
            {"name": "limit", "description": "At most.", "required": False, "default": None,
             "schema": {}},
            {"name": "strict", "description": "Strictly.", "required": False,
             "default": False, "schema": {"type": "boolean"}},
            {"name": "timeout_ms", "description": "", "required": False, "default": None,
             "schema": {}},
        ],
        "response": {
            "name": "CountPairsResponse",
            "description": "The pairs.",
            "fields": [
                {"name": "pairs", "description": "The cells.", "schema": {
                    "type": ["array", "null"],
                    "items": {"type": "array", "items": {"type": "integer"}}}},
                {"name": "time_ms", "description": "", "schema": {"type": "number"}},
            ],
        },
    }
    sent = []

    def run(op, problem, options, timeout, progress):
        sent.append((op, problem, options, timeout))
        return {"pairs": [[0, 1]], "time_ms": 2.0}

    cls = _operations.result_class(described)
    fn = _operations.function(described, cls, run)
    assert cls.__name__ == "CountPairsResult" and fn.__name__ == "count_pairs"
    params = inspect.signature(fn).parameters
    assert list(params) == ["problem", "timeout", "kind", "limit", "strict", "progress"]
    assert params["kind"].default is inspect.Parameter.empty
    r = fn("P", 2, kind="a")
    # Only what was given is sent: the operation applies its own defaults.
    assert sent == [("count_pairs", "P", {"kind": "a"}, 2)]
    assert r.pairs == [(0, 1)] and r.time == 0.002 and r.raw["time_ms"] == 2.0
    with pytest.raises(TypeError):
        fn("P")  # `kind` is required
    with pytest.raises(TypeError):
        fn("P", kind="a", timeout_ms=5)  # the time limit is `timeout`, in seconds


@pytest.mark.parametrize(
    "cls,op",
    [
        (queens.SolveResult, "solve"),
        (queens.CountResult, "count"),
        (queens.CheckResult, "check"),
        (queens.ExplainResult, "explain"),
        (queens.DecodeResult, "decode"),
    ],
)
def test_written_result_classes_read_declared_fields(cls, op):
    # A field renamed in the answer would otherwise read as None through `resp.get`.
    import dataclasses

    answer = {f["name"] for f in _declared(op)["response"]["fields"]}
    python_only = {"time", "raw"}  # `time_ms` in seconds, and the whole answer
    fields = {f.name for f in dataclasses.fields(cls)}
    assert fields - python_only <= answer, fields - python_only - answer


def test_written_functions_take_their_defaults_from_the_declarations():
    from queens import _operations
    from queens._operations import DECLARED

    described = {
        "name": "count_pairs",
        "fields": [
            {"name": "kind", "required": True},
            {"name": "limit", "required": False, "default": None},
            {"name": "strict", "required": False, "default": False},
            {"name": "engine", "required": False, "default": "fast"},
        ],
    }

    def count_pairs(problem, engine=DECLARED, timeout=None, *, limit=DECLARED, strict=DECLARED):
        return _operations.changed(defaults, locals())

    defaults = _operations.take_defaults(count_pairs, described)
    params = inspect.signature(count_pairs).parameters
    assert [params[k].default for k in ("engine", "timeout", "limit", "strict")] == [
        "fast",
        None,
        None,
        False,
    ]
    # Only what differs from the declared defaults is sent; a value of another type than the
    # default is sent, for the operation to refuse as it would from JSON.
    assert count_pairs("P") == {}
    assert count_pairs("P", "fast", 3, strict=False) == {}
    assert count_pairs("P", "slow", limit=4, strict=True) == {
        "engine": "slow",
        "limit": 4,
        "strict": True,
    }
    assert count_pairs("P", strict=0) == {"strict": 0}

    def no_default(problem, *, kind=DECLARED):
        return None

    with pytest.raises(TypeError, match="declares no default for 'kind'"):
        _operations.take_defaults(no_default, described)


def test_no_written_function_keeps_a_declared_placeholder():
    from queens._operations import DECLARED as PLACEHOLDER

    for op in DECLARED:
        for p in inspect.signature(getattr(queens, op["name"])).parameters.values():
            assert p.default is not PLACEHOLDER, f"{op['name']}({p.name})"


def test_every_declared_option_is_a_parameter_of_its_function():
    # An option added to a request reaches Python: a made function takes it by itself, a
    # written one must name it (its default then comes from the declaration).
    for op in DECLARED:
        params = inspect.signature(getattr(queens, op["name"])).parameters
        missing = {f["name"] for f in op["fields"]} - set(params) - {"timeout_ms"}
        assert missing == set(), f"{op['name']} takes no {sorted(missing)}"


def test_written_functions_send_the_options_they_added():
    p = queens.Problem(8)
    halves = [queens.count(p, shard={"index": i, "of": 2}).count for i in range(2)]
    assert sum(halves) == 92 and all(0 < h < 92 for h in halves)
    e = queens.encode(p)
    with pytest.raises(queens.QueensError) as err:
        queens.decode(p, "v 1 2 x 0\n", model_origin="solver.out")
    assert "solver.out" in str(err.value)
    board = set(queens.solve(p).queens)
    model = [v if e.cells.get(v) in board else -v for v in range(1, e.vars + 1)]
    by_vars = queens.decode(p, model, vars=e.vars)
    assert by_vars.status == "sat" and set(by_vars.queens) == board
    with pytest.raises(queens.QueensError, match="the CNF has 3 variables"):
        queens.decode(p, model, vars=3)
