"""Types of the compiled module; the public API is :mod:`queens`."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

MAX_N: int
INLINE_MAX_N: int

class NativeError(Exception): ...

class Problem:
    @staticmethod
    def from_json(text: str) -> Problem: ...
    @staticmethod
    def parse(origin: str, text: str) -> Problem: ...
    @staticmethod
    def load(
        path: str, select: Sequence[Tuple[str, str]] = ..., first: Optional[int] = ...
    ) -> Problem: ...
    @staticmethod
    def load_all(
        paths: Sequence[str],
        select: Sequence[Tuple[str, str]] = ...,
        first: Optional[int] = ...,
        take: Optional[int] = ...,
    ) -> List[Problem]: ...
    @property
    def n(self) -> int: ...
    @property
    def id(self) -> Optional[str]: ...
    @property
    def queens(self) -> List[Tuple[int, int]]: ...
    @property
    def blocked(self) -> List[Tuple[int, int]]: ...
    @property
    def diagonals(self) -> str: ...
    def to_json(self) -> str: ...
    def summary(self) -> str: ...

def run(
    op: str,
    problem: Optional[Problem],
    options: Dict[str, Any],
    timeout: Optional[float] = ...,
    worker: Optional[str] = ...,
    proof_file: Optional[str] = ...,
    progress: Optional[Callable[[int, int], Any]] = ...,
) -> Tuple[Dict[str, Any], List[Tuple[str, bytes]], Optional[bytes]]: ...
def check_columns(problem: Problem, columns: bytes) -> str: ...
def compare(
    problems: Sequence[Problem],
    engines: Sequence[str],
    timeout: float,
    worker: str,
    jobs: int = ...,
    proof: Optional[str] = ...,
    proof_dir: Optional[str] = ...,
) -> str: ...
def operations(skip: Sequence[str] = ...) -> str: ...
def child_main(
    exe: str,
    artifacts: Optional[str] = ...,
    max_memory: Optional[int] = ...,
    timeout_ms: Optional[int] = ...,
    solvers: Sequence[str] = ...,
    solvers_only: bool = ...,
) -> int: ...
def configure_solvers(solvers: Sequence[str], only: bool = ...) -> None: ...
def solver_args() -> List[str]: ...
