"""``static_code``: side-effect code that a static chain must run on every call.

A static chain (a method decorated with :func:`~chainlet.graph_optimizations.static_graph`) is
replayed from a recording of the function nodes it applied, so plain Python statements in its
body run only while it is being recorded. Code that must run every time (a counter, a print, a
check, an in-place update of an array) goes into a function decorated with :func:`static_code`:
while a static chain is being recorded, a call of that function is recorded as one step of the
schedule (with its array and Variable arguments tied to where they came from), and each replay
calls it again, in the same place, on the current arrays. Outside a static chain the decorated
function is an ordinary call.

The function nodes applied *inside* a ``static_code`` function are not recorded one by one: the
whole call is the step, and its return value (Variables or arrays, possibly in tuples, lists or
dicts) may be used by later functions of the chain.
"""
from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Optional


class _Active(threading.local):
    """The recorders of the static chains being traced in this thread, innermost last."""

    def __init__(self) -> None:
        self.tracers: list = []


_active = _Active()


def static_code(*dec_args: Any, func_name: Optional[str] = None) -> Any:
    """Decorator: run this function on every call of a static chain, not only while recording.

    Use it bare (``@static_code``) or with a name for messages
    (``@static_code(func_name='count')``). Chainer's contract for the decorated function is kept:
    arrays it reads that come from elsewhere in the chain are passed as arguments (any nesting of
    tuples, lists and dicts; Chainer's ``inputs=[...]`` keyword is one such argument), and arrays
    it produces are returned (or written in place into arrays passed to it).

    Args:
        func_name: An optional name shown in verbose output of the static chain.

    Returns:
        The wrapped function (or, when called with arguments, a decorator).

    Example:
        >>> import numpy as np, chainlet, chainlet.functions as F
        >>> from chainlet.graph_optimizations import static_code
        >>> from chainlet.graph_optimizations.static_graph import static_graph
        >>> calls = []
        >>> @static_code
        ... def log_call(x):
        ...     calls.append(float(x.array.sum()))
        >>> class Net(chainlet.Chain):
        ...     @static_graph
        ...     def forward(self, x):
        ...         y = F.relu(x)
        ...         log_call(y)
        ...         return y
        >>> net = Net()
        >>> for v in (1.0, 2.0, 3.0, 4.0):
        ...     _ = net(np.full((2,), v, np.float32))
        >>> calls
        [2.0, 4.0, 6.0, 8.0]
    """
    def wrap(func: Callable) -> Callable:
        name = func_name or getattr(func, '__qualname__', repr(func))

        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            tracers = _active.tracers
            if not tracers:
                return func(*args, **kwargs)
            tracers = list(tracers)
            for tracer in tracers:
                tracer.suspended += 1
            try:
                ret = func(*args, **kwargs)
            finally:
                for tracer in tracers:
                    tracer.suspended -= 1
            for tracer in tracers:
                tracer.record_code(wrapped, name, args, kwargs, ret)
            return ret

        wrapped._static_code_name = name  # type: ignore[attr-defined]
        return wrapped

    if len(dec_args) == 1 and callable(dec_args[0]) and func_name is None:
        return wrap(dec_args[0])
    if dec_args:
        raise TypeError('static_code: use it bare (@static_code) or with the keyword argument '
                        f'func_name, got positional arguments {dec_args!r}')
    return wrap
