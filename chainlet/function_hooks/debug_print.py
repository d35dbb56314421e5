"""Chainer's module path for :class:`PrintHook` (chainlet defines it in ``print_hook``)."""
from chainlet.function_hooks.print_hook import PrintHook  # noqa: F401
