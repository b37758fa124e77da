"""The examples of docs/python.md and the package README run as they are written."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

from conftest import REPO, need

BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _blocks(path) -> list:
    return BLOCK.findall(path.read_text())


def _run(code: str, tmp_path) -> dict:
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        namespace: dict = {"__name__": "__example__"}
        exec(compile(code, "example", "exec"), namespace)
        return namespace
    finally:
        os.chdir(here)


def test_docs_examples_run(tmp_path):
    blocks = _blocks(REPO / "docs" / "python.md")
    assert len(blocks) == 5
    api, puzzle, pysat, worked, frame = blocks
    _run(api, tmp_path)
    ns = _run(puzzle, tmp_path)
    assert ns["g"].grade in {"easy", "medium", "hard", "expert"}
    need("python-sat", importlib.util.find_spec("pysat") is not None)
    _run(pysat, tmp_path)
    ns = _run(worked, tmp_path)
    assert set(ns["times"]) == {"backtrack", "sat"}
    assert all(len(t) == len(ns["sizes"]) for t in ns["times"].values())
    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / "completion-times.png").stat().st_size > 0
    if importlib.util.find_spec("pandas") is not None:
        ns = _run(frame, tmp_path)
        assert set(ns["frame"]["engine"]) == {"backtrack", "sat:auto"}
    else:
        pytest.skip("pandas is not installed: the DataFrame example did not run")


def test_readme_examples_run(tmp_path):
    for path in (REPO / "README.md", REPO / "python" / "README.md"):
        blocks = _blocks(path)
        assert blocks, f"{path} has no python example"
        for code in blocks:
            _run(code, tmp_path)
