"""``queens-worker op``: runs one request in a process of its own, as ``queens op`` does.

Work an engine cannot stop by itself (the SAT engine, proofs, the race's SAT side, each
attempt of :func:`queens.compare`) runs here, so that a timeout or Ctrl-C in the parent
kills it. The request comes as JSON on stdin; the answer goes to stdout as one JSON line,
progress to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from . import _native


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="queens-worker")
    sub = parser.add_subparsers(dest="command", required=True)
    op = sub.add_parser("op", help="answer one request read from stdin")
    op.add_argument("--artifacts", metavar="DIR")
    op.add_argument("--max-memory", metavar="BYTES", type=int)
    op.add_argument("--timeout-ms", metavar="MS", type=int)
    op.add_argument("--solver", metavar="NAME=CMD", action="append", default=[])
    op.add_argument("--solvers-only", action="store_true")
    args = parser.parse_args(argv)
    exe = os.path.abspath(sys.argv[0])
    try:
        return int(
            _native.child_main(
                exe,
                args.artifacts,
                args.max_memory,
                args.timeout_ms,
                args.solver,
                args.solvers_only,
            )
        )
    except _native.NativeError as e:
        print(f"queens-worker: error: {e.args[-1]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
