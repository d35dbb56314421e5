"""The core's own gradient sum: where the graph branches, backward adds the gradients up once.

A value used by several functions receives one gradient from each; the scheduler sums them once,
when the value's creator is reached, with :func:`sum_grads`. The sum is a :class:`FunctionNode`
so that under double backprop it is part of the graph of the gradient (its backward hands the
output gradient to every term). It lives in the core, not in ``chainlet.functions``: every term
already has the value's shape, so it needs no broadcasting and no argument checks.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet._grad_sum import sum_grads
    >>> g = sum_grads([chainlet.Variable(np.ones(2)), chainlet.Variable(np.full(2, 2.0))])
    >>> g.array
    array([3., 3.])
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet import _config
from chainlet import _hooks
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

_ndarray = numpy.ndarray
_local = _config.config
_global = _config.global_config


def add_arrays(arrays: Sequence[Any]) -> Any:
    """The sum of two or more gradient arrays of one value, as a fresh array (never a NumPy
    scalar, which is what adding 0-d arrays gives)."""
    y = arrays[0] + arrays[1]  # a fresh array: the terms are never written to
    for x in arrays[2:]:
        if x.dtype == y.dtype:
            y += x
        else:  # an integer input's gradients may come in several dtypes
            y = y + x
    return numpy.asarray(y) if isinstance(y, numpy.generic) else y


def _on_arrays(grads: Sequence[Variable]) -> bool:
    """Whether a sum or copy may skip ``apply``: no graph wanted, nothing observing functions,
    NumPy arrays (the first-order CPU backward)."""
    local = _local.__dict__
    if local.get('enable_backprop', _global.enable_backprop) or _hooks.functions.active or \
            local.get('debug', _global.debug):
        return False
    for g in grads:
        if type(g._data) is not _ndarray:
            return False
    return True


class GradientSum(FunctionNode):
    """``g0 + g1 + ...`` of gradients of one value (same shape; a float dtype wins)."""

    @property
    def label(self) -> str:
        return '_ + _'  # as Chainer's graph dumps show a gradient sum

    def forward(self, inputs: tuple) -> tuple:
        return add_arrays(inputs),

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gy, = grad_outputs
        return (gy,) * len(indexes)


class GradientCopy(FunctionNode):
    """A private copy of a gradient (a leaf's ``.grad`` must not alias another array)."""

    def forward(self, inputs: tuple) -> tuple:
        return inputs[0].copy(),

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        return grad_outputs


def sum_grads(grads: Sequence[Variable]) -> Variable:
    """The sum of the gradient Variables ``grads`` (the one term itself when there is one)."""
    if len(grads) == 1:
        return grads[0]
    if _on_arrays(grads):  # what apply would give, without the node nobody will see
        return Variable._from_output(add_arrays([g._data for g in grads]),
                                     any([g._node.requires_grad for g in grads]))
    return GradientSum().apply(grads)[0]


def copy_grad(grad: Variable) -> Variable:
    """A copy of ``grad`` with its own writable array (differentiable under double backprop)."""
    if _on_arrays((grad,)):
        return Variable._from_output(grad._data.copy(), grad._node.requires_grad)
    return GradientCopy().apply((grad,))[0]
