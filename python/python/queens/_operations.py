"""Functions and result classes made from the operations' declarations.

The compiled module describes every operation offered to library callers (its name, summary,
the request's fields with their defaults and descriptions, the answer's fields), from the
same declarations the command line and the service are made of. An operation without a
written function in :mod:`queens` gets one made here: ``queens.hint(problem)``,
``queens.grade(problem, steps=True)``, and every operation added later, with no Python
written for it. A written function (one that needs more than its JSON, such as NumPy boards,
proof files or a typed result) states its options' types but not their defaults: each is
:data:`DECLARED`, replaced by the declared default when the package is imported
(:func:`take_defaults`), and it sends the options that differ from them (:func:`changed`), as a
made function does.
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable, ClassVar, Dict, FrozenSet, List, Optional, Tuple, Type

#: Runs an operation: ``(op, problem, options, timeout, progress)`` → the answer's JSON.
Runner = Callable[[str, Any, Dict[str, Any], Optional[float], Any], Dict[str, Any]]


class _Declared:
    __slots__ = ()

    def __repr__(self) -> str:
        return "DECLARED"


#: The default of a written function's option, as the operation's declaration gives it:
#: :func:`take_defaults` puts the declared value in its place when the package is imported, so
#: the signature (``help()``, :func:`inspect.signature`) shows the value.
DECLARED: Any = _Declared()


def take_defaults(fn: Callable[..., Any], op: Dict[str, Any]) -> Dict[str, Any]:
    """Replaces every :data:`DECLARED` default of ``fn`` by the default ``op`` (an
    operation's description) declares for the option of that name, and returns the declared
    defaults of all of ``op``'s options (for :func:`changed`). A ``DECLARED`` option the
    operation gives no default raises :class:`TypeError` when the package is imported."""
    defaults = {f["name"]: f["default"] for f in op["fields"] if "default" in f}

    def pick(name: str, value: Any) -> Any:
        if value is not DECLARED:
            return value
        if name not in defaults:
            raise TypeError(
                f"{fn.__name__}({name}=DECLARED): operation {op['name']!r} declares no default "
                f"for {name!r}"
            )
        return defaults[name]

    code = fn.__code__
    given = fn.__defaults__ or ()
    names = code.co_varnames[code.co_argcount - len(given) : code.co_argcount]
    fn.__defaults__ = tuple(pick(n, v) for n, v in zip(names, given)) or None
    if fn.__kwdefaults__:
        fn.__kwdefaults__ = {n: pick(n, v) for n, v in fn.__kwdefaults__.items()}
    return defaults


def changed(defaults: Dict[str, Any], arguments: Dict[str, Any]) -> Dict[str, Any]:
    """The ``arguments`` that are options of the request (those with a declared default in
    ``defaults``) and differ from that default: only these are sent, and the operation
    applies its own defaults (a 9×9 puzzle is solved in microseconds, and passing options
    costs as much). A value of another type than the default (``0`` for ``False``) is sent,
    so that the operation refuses it as it would from JSON."""
    sent = {}
    for name, value in arguments.items():
        if name not in defaults:
            continue
        default = defaults[name]
        if value is default or (type(value) is type(default) and value == default):
            continue
        sent[name] = value
    return sent


class Result:
    """An operation's answer: each field of its JSON answer is an attribute (``None`` for one
    the answer leaves out), cells as ``(row, col)`` pairs; ``time`` is ``time_ms`` in
    seconds, and ``raw`` the whole JSON answer, as ``queens … --json`` prints it."""

    __slots__ = ("raw",)

    #: The operation's name.
    operation: ClassVar[str] = ""
    #: The answer's fields, as the service documents them.
    fields: ClassVar[Tuple[str, ...]] = ()
    #: The fields that hold lists of cells.
    _cells: ClassVar[FrozenSet[str]] = frozenset()

    def __init__(self, raw: Dict[str, Any]) -> None:
        self.raw = raw

    def __getattr__(self, name: str) -> Any:
        if name == "raw":  # not yet set (a copy being made)
            raise AttributeError(name)
        if name in self.fields:
            value = self.raw.get(name)
            if name in self._cells and value is not None:
                return [(r, c) for r, c in value]
            return value
        if name == "time" and "time_ms" in self.fields:
            return self.raw["time_ms"] / 1e3
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __dir__(self) -> List[str]:
        extra = ["time"] if "time_ms" in self.fields else []
        return sorted(set(super().__dir__()) | set(self.fields) | set(extra))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and getattr(other, "raw", None) == self.raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{k}={self.raw[k]!r}"
            for k in self.fields
            if k in self.raw and not isinstance(self.raw[k], (list, dict))
        )
        return f"{type(self).__name__}({shown})"


def _is_cells(schema: Dict[str, Any]) -> bool:
    """A list of ``[row, col]`` pairs (``Vec<Vec<usize>>`` in the declaration)."""
    kinds = schema.get("type")
    if kinds != "array" and not (isinstance(kinds, list) and "array" in kinds):
        return False
    inner = schema.get("items") or {}
    return inner.get("type") == "array" and (inner.get("items") or {}).get("type") == "integer"


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _sentence(text: Optional[str]) -> str:
    """A description on one line, without the Rust doc's links."""
    text = re.sub(r"\[`([^`]*)`\]", r"``\1``", " ".join((text or "").split()))
    return text.replace("`", "``").replace("````", "``")


def cell_fields(op: Dict[str, Any]) -> FrozenSet[str]:
    """The fields of operation ``op``'s answer that hold lists of cells."""
    return frozenset(f["name"] for f in op["response"]["fields"] if _is_cells(f["schema"]))


def result_class(op: Dict[str, Any]) -> Type[Result]:
    """The result class of operation ``op`` (its description): ``GradeResult`` for
    ``grade``."""
    fields = op["response"]["fields"]
    described = _sentence(op["response"]["description"])
    lines = [described or f":func:`{op['name']}`'s answer.", ""]
    lines += [f"* ``{f['name']}``: {_sentence(f['description'])}" for f in fields]
    namespace: Dict[str, Any] = {
        "__slots__": (),
        "__doc__": "\n".join(lines),
        "__module__": "queens",
        "operation": op["name"],
        "fields": tuple(f["name"] for f in fields),
        "_cells": cell_fields(op),
    }
    name = _camel(op["name"]) + "Result"
    cls = type(name, (Result,), namespace)
    cls.__qualname__ = name
    return cls


# The request's fields a function takes otherwise: the instance as `problem`, the time limit as
# `timeout` in seconds.
_NOT_OPTIONS = {"instance", "timeout_ms"}


def function(op: Dict[str, Any], cls: Type[Result], run: Runner) -> Callable[..., Result]:
    """The function of operation ``op`` (its description), answering ``cls``: the problem
    (when the operation takes one) and ``timeout`` by position, every option of the request
    by keyword with its declared default, and ``progress``. Only the options given are sent:
    the operation applies its own defaults."""
    name: str = op["name"]
    params: List[inspect.Parameter] = []
    kw = inspect.Parameter.KEYWORD_ONLY
    pos = inspect.Parameter.POSITIONAL_OR_KEYWORD
    if op["instance"]:
        params.append(inspect.Parameter("problem", pos))
    params.append(inspect.Parameter("timeout", pos, default=None))
    options = [f for f in op["fields"] if f["name"] not in _NOT_OPTIONS]
    for f in options:
        if f["required"]:
            params.append(inspect.Parameter(f["name"], kw))
        else:
            params.append(inspect.Parameter(f["name"], kw, default=f.get("default")))
    params.append(inspect.Parameter("progress", kw, default=None))
    signature = inspect.Signature(params, return_annotation=cls.__name__)
    option_names = {f["name"] for f in options}

    def call(*args: Any, **kwargs: Any) -> Result:
        bound = signature.bind(*args, **kwargs)
        given = dict(bound.arguments)
        problem = given.pop("problem", None)
        timeout = given.pop("timeout", None)
        progress = given.pop("progress", None)
        sent = {k: v for k, v in given.items() if k in option_names}
        return cls(run(name, problem, sent, timeout, progress))

    lines = [_sentence(op["summary"]) or f"Runs ``{name}``.", ""]
    if op["instance"]:
        lines.append("``problem``: the :class:`Problem` it works on.")
    lines.append("``timeout``: seconds (then ``status`` is ``timeout``).")
    for f in options:
        default = "required" if f["required"] else f"default {f.get('default')!r}"
        lines.append(f"``{f['name']}`` ({default}): {_sentence(f['description'])}")
    lines += ["", f"Returns a :class:`{cls.__name__}`."]
    call.__name__ = call.__qualname__ = name
    call.__module__ = "queens"
    call.__doc__ = "\n".join(lines)
    call.__signature__ = signature  # type: ignore[attr-defined]
    return call
