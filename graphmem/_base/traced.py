"""Every public call of ``Memory``, ``AsyncMemory`` and the integrations as a span
(``graphmem.recall``, ``graphmem.langgraph.batch``...) and as a sample of the
``graphmem.operation.duration`` histogram: ``instrument`` wraps a class's public methods
once, when the class is defined (``traced`` wraps one function).

A call's span says what an operator needs and nothing a user said: the tenant, how deep
the scope is, ``k``, ``kinds``, how many messages; the question, the scope's path and the
user, agent and session ids only with ``Observability(record_content=True)``. Without
OpenTelemetry a wrapped call costs one attribute read and one test."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import time
from collections.abc import Callable, Iterable, Mapping, Sized
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from .kinds import KINDS
from .observe import OFF, Observability

C = TypeVar("C", bound=type)
P = ParamSpec("P")
R = TypeVar("R")
_SHOWN = ("scope", "k", "kinds", "messages", "items", "records")
_CONTENT = ("query", "user_id", "agent_id", "session_id")
_default: Observability | None = None
_inside: contextvars.ContextVar[bool] = contextvars.ContextVar("graphmem_inside_a_call", default=False)


def default() -> Observability:
    """The observability of parts built without one: the global OpenTelemetry providers."""
    global _default
    if _default is None:
        _default = Observability()
    return _default


def observer(owner: Any) -> Observability:
    """The ``Observability`` of a memory object, of one of its services (through the store
    it holds), or of the memory an integration holds."""
    found = getattr(owner, "_observe", None)
    if found is None:
        found = getattr(getattr(owner, "_store", None), "observe", None)
    if found is None:
        found = getattr(getattr(owner, "memory", None), "_observe", None)
    return found if isinstance(found, Observability) else default()


def tenant_of(owner: Any) -> str | None:
    """The tenant of a memory object, of one of its services, or of the memory an
    integration holds or names."""
    memory = getattr(owner, "memory", None)
    core = (getattr(owner, "_core", None) or getattr(getattr(owner, "_store", None), "core", None)
            or getattr(memory, "_core", None) or getattr(getattr(memory, "_store", None), "core", None))
    tenant = getattr(core, "tenant", None) if core is not None else getattr(owner, "_tenant", None)
    return tenant if isinstance(tenant, str) else None


class _Arguments:
    """Where a function takes the arguments a span shows (by name, or by position)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        params = list(inspect.signature(fn).parameters.values())[1:]  # after self
        self.positions: dict[str, int] = {}
        for i, p in enumerate(params):
            if p.name in _SHOWN + _CONTENT and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                self.positions[p.name] = i
        self.names = {p.name for p in params} & set(_SHOWN + _CONTENT)

    def of(self, args: tuple[Any, ...], kwargs: Mapping[str, Any], content: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.names:
            if name in kwargs:
                value = kwargs[name]
            elif (i := self.positions.get(name)) is not None and i < len(args):
                value = args[i]
            else:
                continue
            out.update(_shown(name, value, content))
        return out


def _shown(name: str, value: Any, content: bool) -> dict[str, Any]:
    """The span attributes one argument gives (none for a value of an unexpected type)."""
    if name == "scope" and isinstance(value, str):
        shown: dict[str, Any] = {"graphmem.scope.depth": value.count("/") + 1}
        if content:
            shown["graphmem.scope"] = value
        return shown
    if name == "k" and isinstance(value, int) and not isinstance(value, bool):
        return {"graphmem.k": value}
    if name == "kinds" and isinstance(value, (list, tuple, set, frozenset)):  # graphmem's kinds only
        return {"graphmem.kinds": sorted(v for v in value if isinstance(v, str) and v in KINDS)}
    if name in ("messages", "items", "records") and isinstance(value, Sized) and not isinstance(value, (str, bytes)):
        return {f"graphmem.{name}": len(value)}
    if content and name in _CONTENT and isinstance(value, str):
        return {f"graphmem.{name}": value}
    return {}


def _begin(obs: Observability, operation: str, owner: Any, spec: _Arguments, args: tuple[Any, ...],
           kwargs: Mapping[str, Any]) -> tuple[Any, float, bool, Any]:
    """The call's span, its start, whether it runs inside another graphmem call (``context``
    calling ``recall``, a tool calling ``remember``: marked ``graphmem.nested``, so a
    dashboard of top-level calls counts each once), and the token that restores that."""
    attributes = spec.of(args, kwargs, obs.record_content)
    tenant = tenant_of(owner)
    if tenant is not None:
        attributes["graphmem.tenant"] = tenant
    nested = _inside.get()
    if nested:
        attributes["graphmem.nested"] = True
    return obs.span(operation, attributes), time.perf_counter(), nested, _inside.set(True)


def _end(obs: Observability, operation: str, started: float, error: str | None, nested: bool, token: Any) -> None:
    """A call's end: the outer call is current again, and its duration is counted."""
    _inside.reset(token)
    obs.called(operation, time.perf_counter() - started, error, nested=nested)


def traced(operation: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a method, sync or async) run inside a span ``operation``, timed."""
    spec = _Arguments(fn)

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def acall(self: Any, *args: Any, **kwargs: Any) -> Any:
            obs = observer(self)
            if not obs.on:
                return await fn(self, *args, **kwargs)
            span, started, nested, token = _begin(obs, operation, self, spec, args, kwargs)
            error = None
            try:
                with span:
                    return await fn(self, *args, **kwargs)
            except BaseException as exc:
                error = type(exc).__name__
                raise
            finally:
                _end(obs, operation, started, error, nested, token)

        acall.__graphmem_traced__ = operation  # type: ignore[attr-defined]
        return acall

    @functools.wraps(fn)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        obs = observer(self)
        if not obs.on:
            return fn(self, *args, **kwargs)
        span, started, nested, token = _begin(obs, operation, self, spec, args, kwargs)
        error = None
        try:
            with span:
                return fn(self, *args, **kwargs)
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            _end(obs, operation, started, error, nested, token)

    call.__graphmem_traced__ = operation  # type: ignore[attr-defined]
    return call


def instrument(prefix: str, names: Iterable[str] | Mapping[str, str] | None = None) -> Callable[[C], C]:
    """A class decorator: every public method graphmem defines for the class (its own or a
    base's; not those it inherits from langchain or langgraph) becomes ``traced`` as
    ``<prefix>.<name>``; with ``names``, only those methods (a mapping names each one's
    operation). Properties, static and class methods and generators are left as they are."""

    def wrap(cls: C) -> C:
        chosen = names if names is not None else [n for n in dir(cls) if not n.startswith("_")]
        for name in chosen:
            raw = inspect.getattr_static(cls, name)
            if (not inspect.isfunction(raw) or not raw.__module__.startswith("graphmem.")
                    or getattr(raw, "__graphmem_traced__", None) is not None
                    or inspect.isasyncgenfunction(raw) or inspect.isgeneratorfunction(raw)):
                continue
            operation = names[name] if isinstance(names, Mapping) else f"{prefix}.{name}"
            setattr(cls, name, traced(operation, raw))
        return cls

    return wrap


def delegate(attr: str, fn: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A front door's method that hands the call to the service it holds as ``attr``: the
    service's method ``fn`` (its signature and documentation are the front door's), looked
    up on each call (a test that replaces a service's method is obeyed). The service traces
    its own calls (``instrument``), so the front door does not trace this one again."""
    name = fn.__name__

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def acall(self: Any, *args: Any, **kwargs: Any) -> Any:
            return await getattr(getattr(self, attr), name)(*args, **kwargs)

        wrapper: Any = acall
    elif inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def agen(self: Any, *args: Any, **kwargs: Any) -> Any:
            async with contextlib.aclosing(getattr(getattr(self, attr), name)(*args, **kwargs)) as items:
                async for item in items:
                    yield item

        wrapper = agen
    elif inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen(self: Any, *args: Any, **kwargs: Any) -> Any:
            return (yield from getattr(getattr(self, attr), name)(*args, **kwargs))

        wrapper = gen
    else:
        @functools.wraps(fn)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            return getattr(getattr(self, attr), name)(*args, **kwargs)

        wrapper = call
    wrapper.__graphmem_traced__ = ""  # not traced here: the service's method is
    wrapper.__graphmem_delegate__ = attr
    return cast(Callable[Concatenate[Any, P], R], wrapper)


def front_door(cls: C) -> C:
    """A class decorator for a front door made of ``delegate``s: each one is named as the
    front door's own method (its ``__qualname__``), for the documentation and tracebacks."""
    for name, value in vars(cls).items():
        if getattr(value, "__graphmem_delegate__", None) is not None:
            value.__qualname__ = f"{cls.__qualname__}.{name}"
    return cls


__all__ = ["OFF", "default", "delegate", "front_door", "instrument", "observer", "traced"]
