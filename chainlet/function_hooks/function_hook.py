"""The ``FunctionHook`` base class."""
from __future__ import annotations

from typing import Any

from chainlet import _hooks


class FunctionHook:
    """Base class of function hooks; override the callbacks you need.

    Use it as a context manager to hook every function applied in this thread inside the block,
    or register it on one node with ``FunctionNode.add_hook``.

    Attributes:
        name: Registration name (must be unique among active hooks of a thread).
    """

    name = 'FunctionHook'

    def __enter__(self) -> 'FunctionHook':
        _hooks.functions.register(self.name, self)
        self.added(None)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _hooks.functions.unregister(self.name)
        self.deleted(None)

    def added(self, function: Any = None) -> None:
        """Called when registered (``function`` is ``None`` for a thread-wide hook)."""

    def deleted(self, function: Any = None) -> None:
        """Called when unregistered (``function`` is ``None`` for a thread-wide hook)."""

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        """Called before ``function.forward`` with the input arrays."""

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        """Called after ``function.forward`` with the input arrays."""

    def backward_preprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Called before ``function.backward``; ``in_data`` has retained inputs (else ``None``),
        ``out_grad`` the output gradient arrays (``None`` where absent)."""

    def backward_postprocess(self, function: Any, in_data: tuple, out_grad: tuple) -> None:
        """Called after ``function.backward`` with the same arguments as the preprocess."""
