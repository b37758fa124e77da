"""What a notebook needs: Ctrl-C stops a running solve, timeouts hold, the GIL is free
while the engines run, progress reaches the caller, and nothing is printed on stdout."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import queens


@pytest.fixture
def ctrl_c_raises():
    """Python turns SIGINT into KeyboardInterrupt only if SIGINT was not ignored when the
    interpreter started, and a shell starts background jobs with SIGINT ignored (a CI
    runner's script, `cmd &`). A notebook kernel has the default handler: so do these tests."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _interrupt_after(seconds: float) -> list:
    """Sends SIGINT to this process from another thread after `seconds`; the list gets the
    moment it was sent."""
    sent: list = []

    def go() -> None:
        time.sleep(seconds)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=go, daemon=True).start()
    return sent


@pytest.mark.parametrize(
    "engine,n",
    [
        # Counting 19×19 (4,968,057,848 solutions) takes minutes on the backtracker...
        ("backtrack", 19),
        # ...and counting 13×13 by SAT (73,712 models, one blocking clause each) as long in
        # a worker process, which Ctrl-C kills.
        ("sat", 13),
    ],
)
def test_ctrl_c_stops_a_long_count_within_a_second(ctrl_c_raises, engine, n):
    if queens.worker() is None and engine == "sat":
        pytest.fail("queens-worker is not installed with the package")
    sent = _interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        queens.count(queens.Problem(n), engine=engine)
    assert sent, "the count ended before the signal"
    assert time.monotonic() - sent[0] < 1.0


def test_ctrl_c_stops_a_solve(ctrl_c_raises):
    # Listing by SAT runs in a worker; a KeyboardInterrupt kills it.
    sent = _interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        queens.solve(queens.Problem(12), engine="sat", limit=14_000)
    assert time.monotonic() - sent[0] < 1.0


@pytest.mark.parametrize("engine", ["backtrack", "sat"])
def test_timeout_is_honoured(engine):
    t = time.monotonic()
    r = queens.count(queens.Problem(19 if engine == "backtrack" else 13), engine=engine, timeout=0.5)
    took = time.monotonic() - t
    assert r.status == "timeout"
    assert 0.4 < took < 1.5


def test_the_gil_is_released_while_solving():
    ticks = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    try:
        r = queens.count(queens.Problem(19), timeout=0.5)
    finally:
        stop.set()
        t.join()
    assert r.status == "timeout"
    # Held for the whole half second, the thread would not have run at all.
    assert ticks > 50


def test_progress_reaches_a_callback():
    seen: list = []
    r = queens.count(queens.Problem(15), progress=lambda done, total: seen.append((done, total)))
    assert r.count == 2279184
    assert seen, "no progress reported"
    assert all(0 <= d <= t for d, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_an_exception_in_the_callback_stops_the_work():
    def fail(done: int, total: int) -> None:
        raise RuntimeError("enough")

    t = time.monotonic()
    with pytest.raises(RuntimeError, match="enough"):
        queens.count(queens.Problem(19), progress=fail)
    # The first report comes as the first subtrees finish; the whole count takes minutes.
    assert time.monotonic() - t < 10


def test_progress_true_draws_a_tqdm_bar(capsys):
    pytest.importorskip("tqdm")
    r = queens.count(queens.Problem(14), progress=True)
    assert r.count == 365596
    assert "count" in capsys.readouterr().err


def test_nothing_is_printed_on_stdout(capfd, tmp_path):
    p = queens.Problem(8, queens=[(4, 1), (3, 3)])
    queens.solve(p)
    queens.solve(p, engine="sat", timeout=5)
    queens.solve(queens.Problem(3), engine="sat", proof=tmp_path / "p.drat", proof_format="drat")
    queens.count(p, engine="sat")
    queens.check(p, [(0, 0)])
    queens.explain(queens.Problem(3))
    queens.encode(p)
    queens.generate("regions", 7)
    queens.compare([p], ["backtrack", "sat", "race"], timeout=5, frame=False)
    out, _ = capfd.readouterr()
    assert out == ""
