"""Chainer's ``chainer.function_hook`` module: :class:`FunctionHook` (defined in
:mod:`chainlet.function_hooks.function_hook`)."""
from chainlet.function_hooks.function_hook import FunctionHook  # noqa: F401
