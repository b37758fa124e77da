"""Shared paths and the rule for outside tools: skip with a reason, fail when CI is set."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTANCES = REPO / "instances"
DATA = REPO / "tests" / "data"


def need(what: str, found: bool) -> None:
    """Skips the test when ``what`` is missing, unless CI is set: then it fails."""
    if found:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing, and CI is set")
    pytest.skip(f"{what} is missing")


def need_tool(name: str) -> str:
    path = shutil.which(name)
    need(f"`{name}` on PATH", path is not None)
    assert path is not None
    return path


def queens_binary() -> Path:
    """The CLI built by `cargo build --release`, to compare with."""
    exe = REPO / "target" / "release" / "queens"
    need(f"the queens CLI at {exe} (cargo build --release)", exe.is_file())
    return exe
