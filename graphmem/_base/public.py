"""Where the public classes say they live: ``graphmem.Fact``, not ``graphmem._base.models.Fact``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

WRITTEN_IN: dict[type, str] = {}
"""Every published class and the module it is written in."""


def publish(module: str, namespace: dict[str, Any]) -> None:
    """Give every class that ``namespace``'s ``__all__`` exports, and graphmem defines, the
    public module ``module`` as its ``__module__``: reprs, tracebacks, pickles and the API
    reference then name what users import (``graphmem.InvalidInputError``) rather than the
    private module it is written in; a pickle stays loadable, as ``module.<name>`` is the class.

    ``typing.get_type_hints`` resolves a class's string annotations in the namespace of its
    ``__module__``, where a private module's imports (``datetime``, ``Any``) are not: the
    modules of published classes with annotated fields do without ``from __future__ import
    annotations`` (tests/unit/test_public_api.py checks every published class)."""
    for name in namespace["__all__"]:
        value = namespace[name]
        if isinstance(value, type) and value.__module__.startswith("graphmem.") and value.__qualname__ == name:
            WRITTEN_IN[value] = value.__module__
            value.__module__ = module


@contextmanager
def as_written() -> Iterator[None]:
    """The published classes back in the modules they are written in, for the duration:
    tools that read a class's source through its module (``inspect.getsource``, which pdoc
    uses for attribute docstrings and for where a member comes from) find it there."""
    shown = {cls: cls.__module__ for cls in WRITTEN_IN}
    for cls, written in WRITTEN_IN.items():
        cls.__module__ = written
    try:
        yield
    finally:
        for cls, public in shown.items():
            cls.__module__ = public
