"""``forget(func, *xs)``: run ``func`` without keeping its intermediate results.

Forward calls ``func`` under no-backprop mode, so only the inputs and outputs of the whole call
stay alive. Backward calls ``func`` again on fresh leaf copies of the inputs, with backprop forced
on and ``chainlet.config.in_recomputing`` set (links read it to skip state updates such as batch
normalization's running averages), and backpropagates the output gradients through that replay.
The replay is a full backward, so parameters that ``func`` closes over (a link's weights) receive
their gradients as they would without ``forget``.

As in Chainer, the replay cannot be differentiated again: asking for double backprop through
``forget`` raises ``RuntimeError``.
"""
from __future__ import annotations

from typing import Any, Callable

from chainlet import _config
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _ordinal(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return f'{n}th'
    return f'{n}' + {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')


def _call(func: Callable, xs: list) -> tuple:
    """Call ``func`` and return its outputs as a tuple of Variables, or raise ``RuntimeError``."""
    outs = func(*xs)
    if isinstance(outs, Variable):
        return (outs,)
    if not isinstance(outs, tuple):
        raise RuntimeError(f'forget: func must return a Variable or a tuple of Variables, '
                           f'got {type(outs).__name__}')
    for i, out in enumerate(outs):
        if not isinstance(out, Variable):
            raise RuntimeError(f'forget: the {_ordinal(i + 1)} element of the tuple returned by '
                               f'func must be a Variable, got {type(out).__name__}')
    return outs


class Forget(FunctionNode):
    """Runs ``func`` without a graph in forward and replays it in backward; keeps the inputs.
    """

    def __init__(self, func: Callable) -> None:
        if not callable(func):
            raise TypeError(f'forget: argument func: expected a callable, '
                            f'got {type(func).__name__}')
        self.func = func

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        # _will_recompute (Chainer's private flag) tells links whose replay must see the state
        # of this first run (L.BatchRenormalization) to keep a copy of it.
        with _config.no_backprop_mode(), _config.using_config('_will_recompute', True):
            outs = _call(self.func, [Variable(x) for x in inputs])
        return tuple(out.array for out in outs)

    def backward(self, indexes, grad_outputs):
        if _config.config.enable_backprop:
            raise RuntimeError('forget: double backpropagation is not supported (the replayed '
                               'forward is not kept); call the function without forget to '
                               'differentiate twice')
        xs = [Variable(x.array, requires_grad=x.requires_grad)
              for x in self.get_retained_inputs()]
        with _config.force_backprop_mode(), _config.using_config('in_recomputing', True):
            outs = _call(self.func, xs)
            if len(outs) != len(grad_outputs):
                raise RuntimeError(f'forget: func returned {len(outs)} outputs when replayed '
                                   f'in backward, {len(grad_outputs)} in forward')
            # One scalar whose gradient with respect to each output is that output's gradient:
            # a single backward then reaches the inputs and every parameter func closes over.
            total = None
            for out, gy in zip(outs, grad_outputs):
                if gy is None:
                    continue
                term = (out * gy.array).sum()
                total = term if total is None else total + term
            if total is not None:
                total.backward()
        return tuple(xs[i].grad_var for i in indexes)


def forget(func: Callable, *xs: Any) -> Any:
    """Call ``func(*xs)`` without storing its intermediate results; recompute them in backward.

    This trades compute for memory: the graph inside ``func`` is built only during backward,
    by calling ``func`` a second time with the same inputs. ``func`` must therefore give the
    same result on both calls (no dropout or other random draws), and a link that updates state
    in its forward should skip the update while ``chainlet.config.in_recomputing`` is true
    (:class:`~chainlet.links.BatchNormalization` does).

    Args:
        func: Callable taking Variables and returning a Variable or a tuple of Variables.
        *xs: Its arguments, Variables or arrays (arrays become Variables that require grad).

    Returns:
        What ``func`` returns: a Variable, or a tuple of Variables.

    Raises:
        TypeError: If ``func`` is not callable.
        RuntimeError: If ``func`` returns anything else, or on double backpropagation.

    Example:
        >>> import numpy as np, chainlet, chainlet.functions as F
        >>> x = chainlet.Variable(np.array([1.0, 2.0]))
        >>> y = F.forget(lambda a: F.sum(a * a * a), x)
        >>> y.backward()
        >>> x.grad
        array([ 3., 12.])
    """
    xs = tuple(x if isinstance(x, Variable) else Variable(x, requires_grad=True) for x in xs)
    ys = Forget(func).apply(xs)
    return ys[0] if len(ys) == 1 else ys
