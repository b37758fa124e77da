"""queens: solve, count, check and prove n-queens, completion and region Queens puzzles.

The Python face of the same operations the ``queens`` command line and ``queens serve`` run,
with the same option names and meanings::

    import queens

    p = queens.Problem(8, queens=[(0, 0)])
    r = queens.solve(p, engine="sat")
    print(r.status, r.queens)
    assert queens.check(p, r.queens).status == "solved"

Every board an answer carries has passed the product's verifier. "No solution" and
"timeout" are results (``status``), not exceptions; bad input raises a :class:`QueensError`
naming the field. The GIL is released while an operation runs, Ctrl-C stops it, and the
library writes nothing on stdout.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass, field, fields
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
)

from . import _native, _operations
from ._operations import DECLARED, Result

__all__ = [
    "Cell",
    "CheckResult",
    "Comparison",
    "CountResult",
    "DecodeResult",
    "Encoding",
    "ExplainResult",
    "InputError",
    "InternalError",
    "ModelError",
    "Problem",
    "Proof",
    "QueensError",
    "QueensIOError",
    "Result",
    "SolveResult",
    "TooLargeError",
    "UnsupportedError",
    "check",
    "compare",
    "count",
    "decode",
    "encode",
    "explain",
    "generate",
    "plan",
    "solve",
    "worker",
]

#: A cell: ``(row, col)``, 0-based, or a chess name such as ``"b4"``.
Cell = Union[Tuple[int, int], Sequence[int], str]

#: Progress: ``True`` for a tqdm bar, or a callable taking ``(done, total)``.
ProgressArg = Union[None, bool, Callable[[int, int], Any]]

PathArg = Union[str, "os.PathLike[str]"]

_R = TypeVar("_R")


class QueensError(Exception):
    """An error of the operations layer: the same ``field`` and message as the CLI's exit-2
    errors and the service's problem+json.

    ``kind`` is ``input``, ``model``, ``unsupported``, ``too_large``, ``io`` or
    ``internal``; ``field`` the option or instance field the error is about (``limit``,
    ``queens[1]``), ``origin`` and ``line`` the file and line of an input error.
    """

    kind: str = "error"

    def __init__(
        self,
        text: str,
        *,
        field: Optional[str] = None,
        origin: Optional[str] = None,
        line: Optional[int] = None,
        message: Optional[str] = None,
    ) -> None:
        super().__init__(text)
        self.field = field
        self.origin = origin
        self.line = line
        self.message = text if message is None else message


class InputError(QueensError, ValueError):
    """Malformed input: a file or text that does not parse (``origin``, ``line``)."""

    kind = "input"


class ModelError(QueensError, ValueError):
    """An inconsistent problem: a cell off the board, a wrong region map, a bad size."""

    kind = "model"


class UnsupportedError(QueensError, ValueError):
    """An option the engines cannot serve, or a bad value for one (``field``)."""

    kind = "unsupported"


class TooLargeError(QueensError, ValueError):
    """Work over a limit (board size, memory estimate, listing)."""

    kind = "too_large"


class QueensIOError(QueensError, OSError):
    """A file that could not be read or written (``origin`` is its path)."""

    kind = "io"


class InternalError(QueensError, RuntimeError):
    """An internal check failed (two engines disagreed, a proof did not check): a bug."""

    kind = "internal"


_KINDS = {
    c.kind: c
    for c in (InputError, ModelError, UnsupportedError, TooLargeError, QueensIOError, InternalError)
}


def _raise(e: BaseException) -> QueensError:
    kind, fld, origin, line, message, text = e.args
    return _KINDS.get(kind, InternalError)(
        text, field=fld, origin=origin, line=line, message=message
    )


def _unsupported(fld: str, message: str) -> UnsupportedError:
    return UnsupportedError(f"field `{fld}`: {message}", field=fld)


def worker() -> Optional[str]:
    """The ``queens-worker`` executable this package installs: work an engine cannot stop by
    itself (the SAT engine, proofs) runs in it, killed at a timeout or on Ctrl-C, and
    :func:`compare` runs every attempt in it. ``QUEENS_WORKER`` overrides; ``None`` when it
    cannot be found (then that work runs in this process, and a timeout is looked at only
    between solver calls)."""
    env = os.environ.get("QUEENS_WORKER")
    if env:
        return env
    global _installed_worker
    if _installed_worker is None:
        _installed_worker = (_find_worker(),)
    return _installed_worker[0]


# Where the installed worker is, looked for once (the file system is slower than a solve).
_installed_worker: Optional[Tuple[Optional[str]]] = None


def _find_worker() -> Optional[str]:
    name = "queens-worker" + (".exe" if os.name == "nt" else "")
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def _cell(c: Cell, fld: str) -> Union[List[int], str]:
    if isinstance(c, str):
        return c
    try:
        r, col = c
        return [int(r), int(col)]
    except (TypeError, ValueError):
        raise _unsupported(fld, f"expected (row, col) or a name like \"b4\", got {c!r}") from None


def _cells(cells: Optional[Iterable[Cell]], fld: str) -> List[Union[List[int], str]]:
    if cells is None:
        return []
    return [_cell(c, f"{fld}[{i}]") for i, c in enumerate(cells)]


class Problem:
    """An instance: an n×n board with fixed queens, blocked cells, excluded diagonals, a
    diagonal rule and optionally a region map (a Queens puzzle).

    ``Problem(8, queens=[(0, 0), "d5"])`` is the JSON instance format's
    ``{"n": 8, "queens": [[0, 0], "d5"]}``: ``diagonals`` is the rule (``"full"``, the
    n-queens rule, or ``"touch"``, the puzzles' rule, the default with ``regions``),
    ``regions`` one string (or list of names) a row, ``diags`` the excluded diagonals as
    CSPLib prob079 writes them (``[k, 1]``: r + c = k; ``[k, 0]``: r − c = k − (n − 1)),
    ``marks`` a player's "no queen here" cells of a puzzle position (what :func:`hint` reads).
    Errors name the field (``queens[1]``).
    """

    __slots__ = ("_p",)

    def __init__(
        self,
        n: Optional[int] = None,
        queens: Optional[Iterable[Cell]] = None,
        blocked: Optional[Iterable[Cell]] = None,
        diagonals: Optional[str] = None,
        regions: Optional[Sequence[Union[str, Sequence[Union[str, int]]]]] = None,
        diags: Optional[Iterable[Sequence[int]]] = None,
        marks: Optional[Iterable[Cell]] = None,
    ) -> None:
        obj: Dict[str, Any] = {}
        if n is not None:
            obj["n"] = n if isinstance(n, (int, str, float)) else int(n)
        if regions is not None:
            obj["regions"] = [r if isinstance(r, str) else list(r) for r in regions]
        if queens is not None:
            obj["queens"] = _cells(queens, "queens")
        if blocked is not None:
            obj["blocked"] = _cells(blocked, "blocked")
        if diagonals is not None:
            obj["diagonals"] = diagonals
        if diags is not None:
            obj["diags"] = [[int(x) for x in d] for d in diags]
        if marks is not None:
            obj["marks"] = _cells(marks, "marks")
        try:
            self._p = _native.Problem.from_json(json.dumps(obj))
        except _native.NativeError as e:
            raise _raise(e) from None

    @classmethod
    def _wrap(cls, p: "_native.Problem") -> "Problem":
        self = cls.__new__(cls)
        self._p = p
        return self

    @classmethod
    def load(
        cls,
        path: PathArg,
        select: Optional[Dict[str, Any]] = None,
        first: Optional[int] = None,
    ) -> "Problem":
        """The instance in the file at ``path``, in any format the CLI reads (text grid,
        JSON, CSPLib parameter file, a JSON-lines corpus narrowed to one record with
        ``select={"id": ...}``); ``first`` keeps the first D excluded diagonals and fixed
        queens, as ``--first``."""
        try:
            return cls._wrap(_native.Problem.load(os.fspath(path), _select(select), first))
        except _native.NativeError as e:
            raise _raise(e) from None

    @classmethod
    def load_all(
        cls,
        paths: Union[PathArg, Sequence[PathArg]],
        select: Optional[Dict[str, Any]] = None,
        first: Optional[int] = None,
        take: Optional[int] = None,
    ) -> List["Problem"]:
        """Every instance of the files, corpora and folders, as ``queens compare`` reads
        them (each with its ``id``)."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        try:
            found = _native.Problem.load_all(
                [os.fspath(p) for p in paths], _select(select), first, take
            )
        except _native.NativeError as e:
            raise _raise(e) from None
        return [cls._wrap(p) for p in found]

    @classmethod
    def parse(cls, text: str, origin: str = "text") -> "Problem":
        """The instance in ``text``, in any of the file formats; errors name ``origin`` and
        the line."""
        try:
            return cls._wrap(_native.Problem.parse(origin, text))
        except _native.NativeError as e:
            raise _raise(e) from None

    @property
    def n(self) -> int:
        """Board size."""
        return self._p.n

    @property
    def id(self) -> Optional[str]:
        """The name the instance was loaded or generated under."""
        return self._p.id

    @property
    def queens(self) -> List[Tuple[int, int]]:
        """The fixed queens, ``(row, col)`` sorted by row."""
        return self._p.queens

    @property
    def blocked(self) -> List[Tuple[int, int]]:
        """The blocked cells."""
        return self._p.blocked

    @property
    def diagonals(self) -> str:
        """The diagonal rule: ``full`` or ``touch``."""
        return self._p.diagonals

    def to_json(self) -> str:
        """The instance in the JSON format the CLI and the service read."""
        return self._p.to_json()

    def to_dict(self) -> Dict[str, Any]:
        """The instance as the JSON format's object."""
        value: Dict[str, Any] = json.loads(self._p.to_json())
        return value

    def summary(self) -> str:
        """One line for people."""
        return self._p.summary()

    def __repr__(self) -> str:
        return f"<queens.Problem {self._p.summary()}>"


def _select(select: Optional[Dict[str, Any]]) -> List[Tuple[str, str]]:
    if not select:
        return []
    return [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in select.items()]


@dataclass
class Proof:
    """The certificate of an UNSAT answer, accepted by the built-in checker (``checked``)
    before the answer was given."""

    format: str
    path: Optional[str]
    cnf: Optional[str]
    checked: bool
    checker: str
    check_time: float
    lemmas: int
    bytes: int

    @classmethod
    def _of(cls, d: Dict[str, Any]) -> "Proof":
        return cls(
            format=d["format"],
            path=d.get("path"),
            cnf=d.get("cnf"),
            checked=bool(d["checked"]),
            checker=d.get("checker") or "built-in",
            check_time=d["check_ms"] / 1e3,
            lemmas=d["lemmas"],
            bytes=d["bytes"],
        )


def _pairs(q: Optional[List[List[int]]]) -> Optional[List[Tuple[int, int]]]:
    return None if q is None else [(r, c) for r, c in q]


@dataclass
class SolveResult:
    """:func:`solve`'s answer. ``status``: ``sat``, ``unsat``, ``timeout``, ``cancelled``
    (or ``unknown`` from an external solver). ``queens``: the solution as ``(row, col)``
    pairs, or for a board past 100,000 rows a NumPy array (``array.array`` without NumPy)
    of one column per row; ``None`` without a solution. ``time`` in seconds; ``why``: what
    ran and why (the engine's plan, and on a completion the portfolio's estimates and which
    side answered); ``raw`` is the operation's whole JSON answer, as ``queens solve --json``
    prints it."""

    status: str
    n: int
    queens: Any
    engine: str
    answered_by: Optional[str]
    time: float
    nodes: Optional[int]
    solutions: Optional[List[List[Tuple[int, int]]]] = None
    reason: Optional[str] = None
    proof: Optional[Proof] = None
    why: Optional[str] = None
    plan: Optional[Dict[str, Any]] = field(default=None, repr=False)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def columns(self) -> Any:
        """The solution as one column per row (NumPy array or ``array.array``), or ``None``."""
        if self.queens is None or not isinstance(self.queens, list):
            return self.queens
        cols = _column_array(len(self.queens))
        for r, c in self.queens:
            cols[r] = c
        return cols


def _column_array(n: int) -> Any:
    try:
        import numpy as np
    except ImportError:
        import array

        return array.array("I", bytes(4 * n))
    return np.zeros(n, dtype=np.uint32)


def _columns_of(data: bytes) -> Any:
    """Little-endian u32 columns as an array that shares the bytes (NumPy) or one copy of
    them (``array.array``): never a Python int per row."""
    try:
        import numpy as np
    except ImportError:
        import array

        a = array.array("I")
        a.frombytes(data)
        if sys.byteorder == "big":
            a.byteswap()
        return a
    return np.frombuffer(data, dtype="<u4")


@dataclass
class CountResult:
    """:func:`count`'s answer: ``count`` solutions (``unique`` up to symmetry when asked),
    ``limited`` when ``limit`` stopped it; ``status`` ``sat``/``unsat`` when complete,
    ``timeout``/``cancelled`` when cut short (then ``count`` is a lower bound)."""

    status: str
    count: int
    unique: Optional[int]
    limited: bool
    n: int
    engine: str
    time: float
    nodes: Optional[int]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class CheckResult:
    """:func:`check`'s answer: ``status`` ``solved`` (a whole solution), ``consistent`` (no
    rule broken yet) or ``invalid``; ``violations`` name the rule and the cells."""

    status: str
    placed: int
    completable: Optional[bool]
    violations: List[Dict[str, Any]]
    time: float
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """True when no rule is broken."""
        return self.status != "invalid"


@dataclass
class ExplainResult:
    """:func:`explain`'s answer: on ``unsat`` a small set of presets with no solution
    (``core``: fixed queens, ``blocked_core``, ``excluded_core``) and its ``proof`` when
    asked; on ``sat`` a solution."""

    status: str
    queens: Optional[List[Tuple[int, int]]]
    core: Optional[List[Tuple[int, int]]]
    blocked_core: Optional[List[Tuple[int, int]]]
    excluded_core: Optional[List[Tuple[int, int]]]
    reason: Optional[str]
    proof: Optional[Proof]
    time: float
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Encoding:
    """:func:`encode`'s answer: the CNF as ``clauses`` (lists of non-zero ints, as PySAT's
    ``CNF(from_clauses=...)`` takes them) over ``vars`` variables; ``cells`` maps each cell
    variable to its ``(row, col)``; ``fixed`` lists the queens simplified away; ``dimacs``
    is the DIMACS text ``queens encode`` writes."""

    vars: int
    clauses: List[List[int]]
    cells: Dict[int, Tuple[int, int]]
    fixed: List[Tuple[int, int]]
    dimacs: str = field(repr=False)

    def decode(self, model: Iterable[int]) -> List[Tuple[int, int]]:
        """The queens a model (a list of literals) puts on the board: the cells whose
        variable is true, and the fixed queens. Check them with :func:`check`, or use
        :func:`decode`, which verifies."""
        on = {lit for lit in model if lit > 0}
        board = [self.cells[v] for v in on if v in self.cells] + list(self.fixed)
        return sorted(board)


@dataclass
class DecodeResult:
    """:func:`decode`'s answer: ``status`` ``sat`` with the verified board in ``queens``,
    ``unsat`` or ``unknown`` as the solver said."""

    status: str
    queens: Optional[List[Tuple[int, int]]]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


def _progress(progress: ProgressArg, what: str) -> Tuple[Optional[Callable[[int, int], Any]], Any]:
    """The callback to hand the native layer, and a tqdm bar to close afterwards."""
    if progress is None or progress is False:
        return None, None
    if progress is True:
        try:
            from tqdm.auto import tqdm  # type: ignore[import-untyped,unused-ignore]
        except ImportError:
            raise _unsupported("progress", "progress=True needs tqdm (pip install tqdm)") from None
        bar = tqdm(desc=what, unit="")

        def update(done: int, total: int) -> None:
            if bar.total != total:
                bar.total = total
            bar.n = done
            bar.refresh()

        return update, bar
    if callable(progress):
        return progress, None
    raise _unsupported("progress", f"expected True or a callable(done, total), got {progress!r}")


def _run(
    op: str,
    problem: Optional[Problem],
    options: Dict[str, Any],
    timeout: Optional[float] = None,
    proof_file: Optional[str] = None,
    progress: ProgressArg = None,
) -> Tuple[Dict[str, Any], Dict[str, bytes], Optional[bytes]]:
    if problem is not None and not isinstance(problem, Problem):
        raise _unsupported("problem", f"expected a queens.Problem, got {type(problem).__name__}")
    if timeout is not None and not isinstance(timeout, (int, float)):
        raise _unsupported("timeout", f"expected a number of seconds, got {timeout!r}")
    callback, bar = (None, None) if progress is None else _progress(progress, op)
    try:
        resp, files, columns = _native.run(
            op,
            None if problem is None else problem._p,
            options,
            None if timeout is None else float(timeout),
            worker(),
            proof_file,
            callback,
        )
    except _native.NativeError as e:
        raise _raise(e) from None
    finally:
        if bar is not None:
            bar.close()
    return resp, dict(files), columns


def _options(op: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
    """The options of a call of written function ``op`` (its ``locals()``) that differ from
    the operation's declared defaults (``_operations.changed``). ``proof`` is left out: in
    Python it is the proof's path, the request's ``proof`` its format (``proof_format``)."""
    return _operations.changed(
        _DEFAULTS[op], {k: v for k, v in arguments.items() if k != "proof"}
    )


def _result(cls: Type[_R], op: str, resp: Dict[str, Any], **given: Any) -> _R:
    """A written result class (a dataclass) filled from operation ``op``'s answer: each
    field is the answer's field of that name (cells as ``(row, col)``, ``None`` when the
    answer leaves it out), ``time`` is ``time_ms`` in seconds, ``raw`` the whole answer, and
    ``given`` the fields made otherwise (NumPy boards, proofs)."""
    values = dict(given)
    for name in _FIELDS[cls]:
        if name in values:
            continue
        if name == "time":
            values[name] = resp["time_ms"] / 1e3
        elif name == "raw":
            values[name] = resp
        else:
            value = resp.get(name)
            if value is not None and name in _CELLS[op]:
                value = [(r, c) for r, c in value]
            values[name] = value
    return cls(**values)


def _proof(resp: Dict[str, Any]) -> Optional[Proof]:
    p = resp.get("proof")
    return None if p is None else Proof._of(p)


def _write_proof(
    resp: Dict[str, Any], files: Dict[str, bytes], path: Optional[str], cnf: Optional[str]
) -> None:
    """Writes the proof and the CNF it refutes where asked (as ``--proof``/``--cnf``)."""
    info = resp.get("proof")
    if path is None or info is None:
        return
    cnf = cnf if cnf is not None else path + ".cnf"
    for name, to in (("proof", path), ("cnf", cnf)):
        if name == "proof" and name not in files and info.get("path"):
            continue  # streamed there as the search ran
        if name not in files:
            raise InternalError(f"the UNSAT answer came without its {name}")
        try:
            with open(to, "wb") as f:
                f.write(files[name])
        except OSError as e:
            raise QueensIOError(f"{to}: {e}", origin=to, message=str(e)) from None
    info["path"] = path
    info["cnf"] = cnf


def solve(
    problem: Problem,
    engine: str = DECLARED,
    timeout: Optional[float] = None,
    seed: Optional[int] = DECLARED,
    proof: Optional[PathArg] = None,
    *,
    proof_format: str = "lrat",
    cnf: Optional[PathArg] = None,
    all: bool = DECLARED,
    limit: Optional[int] = DECLARED,
    encoding: str = DECLARED,
    cross_check: bool = DECLARED,
    threads: Optional[int] = DECLARED,
    solver: Optional[str] = DECLARED,
    rings: bool = DECLARED,
    learned: bool = DECLARED,
    plan_only: bool = DECLARED,
    progress: ProgressArg = None,
) -> SolveResult:
    """Finds a solution (``queens solve``): engine ``auto``, ``backtrack``, ``sat``,
    ``local``, ``race`` or ``ext:SOLVER``; ``timeout`` in seconds (then ``status`` is
    ``timeout``); ``seed`` of the local search; ``proof``: on UNSAT, write a proof in
    ``proof_format`` (``lrat``, ``binary-lrat``, ``drat``, ``binary-drat``) to this path and
    the CNF it refutes beside it (``cnf``, default the proof's path + ``.cnf``), checked
    before the answer is given. ``all``/``limit`` list solutions into ``solutions``. The
    answer's ``plan`` is the tree of steps that ran, with their times and endings;
    ``plan_only`` answers the plan without running it (see :func:`plan`)."""
    options = _options("solve", locals())
    path = None if proof is None else os.fspath(proof)
    if path is not None:
        options["proof"] = proof_format
    resp, files, columns = _run("solve", problem, options, timeout, path, progress)
    _write_proof(resp, files, path, None if cnf is None else os.fspath(cnf))
    queens: Any = _pairs(resp.get("queens"))
    if columns is not None:
        queens = _columns_of(columns)
    sols = resp.get("solutions")
    return _result(
        SolveResult,
        "solve",
        resp,
        queens=queens,
        solutions=None if sols is None else [[(r, c) for r, c in s] for s in sols],
        proof=_proof(resp),
    )


def plan(
    problem: Problem,
    engine: str = "auto",
    *,
    all: bool = False,
    limit: Optional[int] = None,
    cross_check: bool = False,
    proof_format: Optional[str] = None,
    threads: Optional[int] = None,
    solver: Optional[str] = None,
    rings: bool = False,
    seed: Optional[int] = None,
) -> Dict[str, Any]:
    """The plan :func:`solve` would run, without running it (``queens solve --plan``): a
    tree of steps as a dict, each with ``step`` (``run``, ``side_by_side``, ``portfolio``,
    ``refute``, ``presolve``, …), ``engine``, ``what``, the ``estimate`` it was chosen on
    and its ``steps``. ``proof_format`` plans a solve that proves a "no"."""
    options: Dict[str, Any] = {"engine": engine, "plan_only": True}
    given = {
        "all": all,
        "limit": limit,
        "cross_check": cross_check,
        "proof": proof_format,
        "threads": threads,
        "solver": solver,
        "rings": rings,
        "seed": seed,
    }
    options.update({k: v for k, v in given.items() if v not in (None, False)})
    resp, _, _ = _run("solve", problem, options, None, None, None)
    steps: Dict[str, Any] = resp["plan"]
    return steps


def count(
    problem: Problem,
    engine: str = DECLARED,
    timeout: Optional[float] = None,
    *,
    limit: Optional[int] = DECLARED,
    unique: bool = DECLARED,
    encoding: str = DECLARED,
    cross_check: bool = DECLARED,
    solver: Optional[str] = DECLARED,
    rings: bool = DECLARED,
    shard: Optional[Dict[str, int]] = DECLARED,
    progress: ProgressArg = None,
) -> CountResult:
    """Counts solutions (``queens count``), up to ``limit``; ``unique`` also counts them up
    to the board's symmetries; ``shard={"index": i, "of": n}`` counts only shard ``i`` of
    ``n`` of the search (``queens count --shard i/n``), for the shards' counts to be
    summed."""
    options = _options("count", locals())
    resp, _, _ = _run("count", problem, options, timeout, None, progress)
    return _result(CountResult, "count", resp)


def _is_columns(queens: Any) -> bool:
    """A 1-D array of columns (NumPy or ``array.array``) rather than a list of cells."""
    if type(queens).__module__ == "array":
        return True
    shape = getattr(queens, "shape", None)
    return shape is not None and len(shape) == 1


def check(
    problem: Problem,
    queens: Any = None,
    timeout: Optional[float] = None,
    *,
    hints: bool = DECLARED,
    completions: Optional[int] = DECLARED,
) -> CheckResult:
    """Checks a board (``queens check``): the problem's fixed queens plus ``queens``, given
    as cells (the fixed queens among them are not counted twice, so a solution from
    :func:`solve` checks as it is) or as one whole board of one column per row (a NumPy
    array or ``array.array``, as :attr:`SolveResult.columns`; ``queens check --board``). ``hints`` lists the attacked cells; ``completions`` counts
    up to that many completions."""
    options = _options("check", {"hints": hints, "completions": completions})
    if queens is not None and _is_columns(queens):
        try:
            import numpy as np

            data = np.ascontiguousarray(queens, dtype="<u4").tobytes()
        except ImportError:
            import array

            a = array.array("I", queens)
            if sys.byteorder == "big":
                a.byteswap()
            data = a.tobytes()
        try:
            resp: Dict[str, Any] = json.loads(_native.check_columns(problem._p, data))
        except _native.NativeError as e:
            raise _raise(e) from None
    else:
        # A solution carries the fixed queens too: they are the problem's, not placed twice.
        fixed = {tuple(q) for q in problem.queens}
        cells = [c for c in _cells(queens, "queens") if isinstance(c, str) or tuple(c) not in fixed]
        if cells:
            options["queens"] = cells
        resp, _, _ = _run("check", problem, options, timeout)
    return _result(CheckResult, "check", resp, violations=resp.get("violations", []))


def explain(
    problem: Problem,
    engine: str = DECLARED,
    timeout: Optional[float] = None,
    proof: Optional[PathArg] = None,
    *,
    proof_format: str = "lrat",
    cnf: Optional[PathArg] = None,
    encoding: str = DECLARED,
    solver: Optional[str] = DECLARED,
) -> ExplainResult:
    """Why there is no solution (``queens explain``): a small core of presets that already
    has none, with a checked proof of it written to ``proof`` when given. ``engine`` is
    ``backtrack`` or ``sat``; an external solver (``ext:NAME``, or ``solver``) is refused."""
    options = _options("explain", locals())
    path = None if proof is None else os.fspath(proof)
    if path is not None:
        options["proof"] = proof_format
    resp, files, _ = _run("explain", problem, options, timeout, path)
    _write_proof(resp, files, path, None if cnf is None else os.fspath(cnf))
    excluded = resp.get("excluded_core")
    return _result(
        ExplainResult,
        "explain",
        resp,
        excluded_core=None if excluded is None else [(k, t) for k, t in excluded],
        proof=_proof(resp),
    )


def encode(problem: Problem, encoding: str = DECLARED, *, rings: bool = DECLARED) -> Encoding:
    """The SAT encoding (``queens encode``): clauses for PySAT's ``CNF(from_clauses=...)``,
    the variable of each cell, and the DIMACS text."""
    resp, _, _ = _run("encode", problem, _options("encode", locals()))
    text: str = resp["dimacs"]
    clauses: List[List[int]] = []
    cells: Dict[int, Tuple[int, int]] = {}
    fixed: List[Tuple[int, int]] = []
    current: List[int] = []
    for line in text.splitlines():
        if line.startswith("c"):
            words = line.split()
            if len(words) == 5 and words[1] == "cell":
                cells[int(words[2])] = (int(words[3]), int(words[4]))
            elif len(words) == 4 and words[1] == "fixed":
                fixed.append((int(words[2]), int(words[3])))
            continue
        if line.startswith("p") or not line.strip():
            continue
        for lit in map(int, line.split()):
            if lit == 0:
                clauses.append(current)
                current = []
            else:
                current.append(lit)
    return Encoding(vars=resp["vars"], clauses=clauses, cells=cells, fixed=fixed, dimacs=text)


def decode(
    problem: Problem,
    model: Union[str, Iterable[int]],
    encoding: Optional[str] = DECLARED,
    *,
    rings: bool = DECLARED,
    vars: Optional[int] = DECLARED,
    model_origin: Optional[str] = DECLARED,
    instance_sha256: Optional[str] = DECLARED,
) -> DecodeResult:
    """A SAT solver's model read back onto the board and verified (``queens decode``):
    ``model`` is the solver's output text or its list of literals (PySAT's
    ``solver.get_model()``), for the CNF :func:`encode` made with ``encoding`` (found from
    the model's variable count when not given: a model of another encoding's CNF is
    refused, naming it), or with ``vars`` variables (its ``p cnf`` line) in place of
    ``encoding`` and ``rings``; ``instance_sha256`` (the CNF header's ``sha256=``) refuses a
    model of another instance's CNF; ``model_origin`` names the model in errors."""
    text = model if isinstance(model, str) else "v " + " ".join(str(int(x)) for x in model) + " 0\n"
    options = _options(
        "decode",
        {
            "encoding": encoding,
            "rings": rings,
            "vars": vars,
            "model_origin": model_origin,
            "instance_sha256": instance_sha256,
        },
    )
    options["model"] = text
    resp, _, _ = _run("decode", problem, options)
    return _result(DecodeResult, "decode", resp)


def generate(
    kind: str,
    n: int,
    count: int = DECLARED,
    seed: int = DECLARED,
    *,
    queens: Optional[int] = DECLARED,
    min_free: Optional[int] = DECLARED,
    first: Optional[int] = DECLARED,
    difficulty: Optional[str] = DECLARED,
    presets: Optional[str] = DECLARED,
    timeout: Optional[float] = None,
) -> List[Problem]:
    """Random instances (``queens generate``): ``kind`` ``completion`` (``queens`` fixed
    queens, ``presets`` ``random`` or ``solution``), ``diagonals`` (CSPLib prob079, ``first``
    diagonals kept, ``min_free``) or ``regions`` (a puzzle of ``difficulty``); seeds
    ``seed``, ``seed + 1``, … make the same instances every time."""
    options = _options("generate", locals())
    options.update(kind=kind, n=n)
    resp, _, _ = _run("generate", None, options, timeout)
    made = []
    for inst in resp["instances"]:
        try:
            made.append(Problem._wrap(_native.Problem.from_json(json.dumps(inst))))
        except _native.NativeError as e:
            raise _raise(e) from None
    return made


# The columns of `queens compare --csv`, in its order.
_ATTEMPT_COLUMNS = (
    "engine",
    "status",
    "time_ms",
    "nodes",
    "learned",
    "vars",
    "clauses",
    "answered_by",
    "error",
    "gave_up",
)


class Comparison(List[Dict[str, Any]]):
    """:func:`compare`'s rows, one dict per attempt (``id``, ``n``, ``engine``, ``status``,
    ``time_ms``, ``nodes``, …, the columns of ``queens compare --csv``), with the
    per-engine ``summary`` and the whole JSON answer in ``raw``."""

    summary: List[Dict[str, Any]]
    raw: Dict[str, Any]

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame."""
        import pandas  # type: ignore[import-untyped,unused-ignore]

        return pandas.DataFrame(list(self))


def compare(
    problems: Union[Problem, Sequence[Union[Problem, PathArg]], PathArg],
    engines: Sequence[str] = ("backtrack", "sat"),
    timeout: float = 10.0,
    *,
    jobs: int = 1,
    proof: Optional[str] = None,
    proof_dir: Optional[PathArg] = None,
    frame: Optional[bool] = None,
) -> Any:
    """Every instance on every engine (``queens compare``), each attempt in a worker process
    killed after ``timeout`` seconds; every answer verified, and ``proof`` (a format) proves
    each UNSAT answer of the engines that can. Instances are Problems, or paths of files,
    corpora and folders. Returns the rows as a pandas DataFrame when pandas is installed
    (``frame=None``) or asked for (``frame=True``), else a :class:`Comparison` (a list of
    dicts)."""
    exe = worker()
    if exe is None:
        raise _unsupported(
            "worker", "compare runs each attempt in queens-worker, which is not installed"
        )
    if isinstance(problems, (Problem, str, os.PathLike)):
        problems = [problems]
    loaded: List[Problem] = []
    for p in problems:
        loaded.extend([p] if isinstance(p, Problem) else Problem.load_all(p))
    try:
        text = _native.compare(
            [p._p for p in loaded],
            list(engines),
            float(timeout),
            exe,
            jobs,
            proof,
            None if proof_dir is None else os.fspath(proof_dir),
        )
    except _native.NativeError as e:
        raise _raise(e) from None
    raw: Dict[str, Any] = json.loads(text)
    rows = Comparison()
    for inst in raw["instances"]:
        for a in inst["attempts"]:
            row: Dict[str, Any] = {"id": inst["id"], "n": inst["n"]}
            row.update({k: a.get(k) for k in _ATTEMPT_COLUMNS})
            if proof is not None:
                info = a.get("proof") or {}
                row["proof_time_ms"] = a.get("proof_time_ms")
                row["proof_check_ms"] = info.get("check_ms")
                row["proof_bytes"] = info.get("bytes")
                row["proof_lemmas"] = info.get("lemmas")
                row["proof_path"] = info.get("path")
            rows.append(row)
    rows.summary = raw["summary"]
    rows.raw = raw
    if frame is False:
        return rows
    try:
        import pandas  # type: ignore[import-untyped,unused-ignore]  # noqa: F401
    except ImportError:
        if frame:
            raise _unsupported("frame", "frame=True needs pandas (pip install pandas)") from None
        return rows
    return rows.to_pandas()


def _answer(
    op: str,
    problem: Optional[Problem],
    options: Dict[str, Any],
    timeout: Optional[float],
    progress: ProgressArg,
) -> Dict[str, Any]:
    resp, _, _ = _run(op, problem, options, timeout, None, progress)
    return resp


# The declared defaults of the written functions' options, by operation (`_options`), and the
# fields of their answers that hold cells (`_result`).
_DEFAULTS: Dict[str, Dict[str, Any]] = {}
_CELLS: Dict[str, FrozenSet[str]] = {}
# The fields of the written result classes, in their order (`_result`).
_FIELDS: Dict[type, Tuple[str, ...]] = {
    c: tuple(f.name for f in fields(c))
    for c in (SolveResult, CountResult, CheckResult, ExplainResult, DecodeResult)
}

# Every operation offered to library callers that has no function above gets one, and a
# result class, made from its declaration (`hint`, `grade`, and any added later); a function
# above takes the defaults of its options (those written `DECLARED`) from it. Describing them
# all costs well under a millisecond at import.
for _op in json.loads(_native.operations()):
    if _op["name"] in globals():
        _DEFAULTS[_op["name"]] = _operations.take_defaults(globals()[_op["name"]], _op)
        _CELLS[_op["name"]] = _operations.cell_fields(_op)
    else:
        _cls = _operations.result_class(_op)
        globals()[_cls.__name__] = _cls
        globals()[_op["name"]] = _operations.function(_op, _cls, _answer)
        __all__ += [_op["name"], _cls.__name__]

if TYPE_CHECKING:
    from typing import Protocol

    class _Operation(Protocol):
        def __call__(self, *args: Any, **kwargs: Any) -> Result: ...

    # The functions made from the declarations are known only when the module runs: to a
    # type checker each is an operation answering a Result.
    def __getattr__(name: str) -> _Operation:
        raise AttributeError(name)
