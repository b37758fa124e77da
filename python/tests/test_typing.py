"""The shipped stubs and annotations: mypy checks user code against them (and catches a
wrong call), and the package itself passes mypy --strict."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import need

USER_CODE = textwrap.dedent(
    """
    from typing import Optional

    import queens

    p = queens.Problem(8, queens=[(0, 0), "d5"])
    r: queens.SolveResult = queens.solve(p, engine="sat", timeout=1.5)
    n: int = p.n
    status: str = r.status
    c: queens.CountResult = queens.count(p, limit=3)
    total: int = c.count
    e = queens.encode(p)
    clauses: list[list[int]] = e.clauses
    cell: tuple[int, int] = e.cells[1]
    ok: bool = queens.check(p, [(0, 0)]).ok
    problems: list[queens.Problem] = queens.generate("completion", 10, count=2)
    # Functions made from the declarations: known to the checker as operations answering a
    # Result.
    h: queens.Result = queens.hint(p)
    grade: str = queens.grade(p, steps=True).grade
    try:
        queens.Problem(0)
    except queens.QueensError as err:
        field: Optional[str] = err.field
    """
)

WRONG_CODE = USER_CODE + "\nqueens.solve(p, timeout='soon')\nx: str = queens.count(p).count\n"


def _mypy(tmp_path, code: str) -> subprocess.CompletedProcess:
    try:
        import mypy  # noqa: F401
    except ImportError:
        need("mypy (pip install mypy)", False)
    path = tmp_path / "user.py"
    path.write_text(code)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_mypy_accepts_good_user_code(tmp_path):
    out = _mypy(tmp_path, USER_CODE)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_catches_wrong_calls(tmp_path):
    out = _mypy(tmp_path, WRONG_CODE)
    assert out.returncode == 1
    assert 'Argument "timeout" to "solve" has incompatible type "str"' in out.stdout
    assert 'Incompatible types in assignment (expression has type "int", variable has type "str")' in out.stdout


def test_the_package_passes_mypy_strict(tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        need("mypy (pip install mypy)", False)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "queens"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_native_stub_declares_everything_the_module_has():
    import ast
    import importlib.util

    from queens import _native

    spec = importlib.util.find_spec("queens")
    assert spec is not None and spec.submodule_search_locations
    stub = next(iter(spec.submodule_search_locations)) + "/_native.pyi"
    with open(stub) as f:
        tree = ast.parse(f.read())
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
    public = {name for name in dir(_native) if not name.startswith("_")}
    assert public - declared == set(), "in the module but not in _native.pyi"
    assert declared - public == set(), "in _native.pyi but not in the module"
