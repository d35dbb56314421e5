"""``keras.ops.core``: conversion, casting, shapes, gradients stops, scatter/slice updates and
Python-level control flow (``cond``, ``while_loop``, ``fori_loop``, ``map``, ``scan``).

``convert_to_tensor`` returns the tensor type of this backend: a Variable stays a Variable, and
anything else becomes a NumPy (or CuPy) array -- so ``numpy.asarray`` works on it, as on Keras's
NumPy backend. ``convert_to_numpy`` always gives a NumPy array (from the GPU too).

Control flow runs eagerly in Python: define-by-run needs no graph-level loop, and gradients flow
through every iteration that ran.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.fori_loop(0, 3, lambda i, x: x + i, np.float32(1.0)).item()
    4.0
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.engine.tree import flatten, map_structure
import builtins
import operator

from chainlet.keras.ops._dispatch import (array_of, cast as _cast, const, is_float, keras_op,
                                          to_variable, xp_of)


def shape(x: Any) -> tuple:
    """The shape as a tuple (``None`` for unknown sizes of a KerasTensor)."""
    if isinstance(x, (KerasTensor, Variable)) or hasattr(x, 'shape'):
        return tuple(x.shape)
    return tuple(numpy.shape(x))


def dtype(x: Any) -> str:
    """The dtype name (``'float32'``)."""
    if isinstance(x, KerasTensor):
        return x.dtype
    return numpy.dtype(getattr(x, 'dtype', None) or numpy.asarray(x).dtype).name


def is_tensor(x: Any) -> bool:
    """True for a Variable or a NumPy/CuPy array."""
    return isinstance(x, Variable) or chainlet.backend.is_array(x)


@keras_op('x', module='core')
def cast(x: Any, dtype: Any) -> Any:
    """``x`` as ``dtype`` (differentiable between float dtypes)."""
    return _cast(x, numpy.dtype(dtype))


@keras_op('x', module='core')
def saturate_cast(x: Any, dtype: Any) -> Any:
    """Cast after clipping to the range of ``dtype`` (no wrap-around)."""
    target = numpy.dtype(dtype)
    if target.kind in 'iu':
        info = numpy.iinfo(target)
        a = x.array
        if a.dtype.kind == 'f':
            a = x.xp.clip(a, info.min, info.max)
        elif a.dtype.kind in 'iu':
            a = x.xp.clip(a.astype('int64') if a.dtype.kind == 'u' else a,
                          builtins.max(info.min, numpy.iinfo(a.dtype).min),
                          builtins.min(info.max, numpy.iinfo(a.dtype).max))
        return a.astype(target)
    return _cast(x, target)


def convert_to_tensor(x: Any, dtype: Any = None, sparse: Any = None,
                      ragged: Any = None) -> Any:
    """``x`` as a tensor of this backend: a Variable stays one (cast to ``dtype``), anything else
    becomes an array (Python floats float32, ints int32, as in Keras)."""
    if sparse or ragged:
        raise ValueError('keras.ops.convert_to_tensor: sparse and ragged tensors are not '
                         'supported')
    if isinstance(x, KerasTensor):
        return x if dtype is None else cast(x, dtype)
    if isinstance(x, Variable):
        return x if dtype is None else _cast(x, numpy.dtype(dtype))
    if chainlet.backend.is_array(x) and not isinstance(x, numpy.ndarray):
        return x if dtype is None else x.astype(dtype)
    value = to_variable(x, numpy, keep_scalars=False).array
    return value if dtype is None else value.astype(dtype)


def convert_to_numpy(x: Any) -> numpy.ndarray:
    """``x`` as a NumPy array: a copy, never a view of a weight or tensor."""
    if isinstance(x, KerasTensor):
        raise TypeError('keras.ops.convert_to_numpy: a KerasTensor is symbolic and has no '
                        'value; call the model on data instead')
    x = array_of(x)
    if isinstance(x, (list, tuple)):
        return numpy.asarray([convert_to_numpy(v) for v in x])
    if chainlet.backend.is_array(x):
        # A copy, as Keras's NumPy, JAX and TensorFlow backends give: the optimizer updates
        # weights in place, and a snapshot taken before fit() must not change with them.
        y = chainlet.backend.to_cpu(x)
        return y.copy() if y is x else numpy.asarray(y)
    return numpy.asarray(x)


@keras_op('variable', module='core')
def stop_gradient(variable: Any) -> Any:
    """The value of ``variable``, cut from the graph: no gradient flows back through it."""
    return Variable(variable.array, requires_grad=False)


@keras_op('x', module='core')
def unstack(x: Any, num: Optional[int] = None, axis: int = 0) -> Any:
    """The slices of ``x`` along ``axis``, as a list."""
    if num is not None and num != x.shape[axis]:
        raise ValueError(f'keras.ops.unstack: num={num} but axis {axis} has size '
                         f'{x.shape[axis]}')
    return list(F.separate(x, axis)) if x.shape[axis] != 1 else [F.squeeze(x, axis)]


@keras_op('inputs', module='core')
def slice(inputs: Any, start_indices: Sequence[int], shape: Sequence[int]) -> Any:
    """The block of ``shape`` starting at ``start_indices`` (``-1`` in ``shape``: to the end)."""
    key = tuple(builtins.slice(int(s), None if int(n) == -1 else int(s) + int(n))
                for s, n in zip(array_of(start_indices), shape))
    return F.get_item(inputs, key) if is_float(inputs) else inputs.array[key]


@keras_op('inputs', 'updates', module='core')
def slice_update(inputs: Any, start_indices: Sequence[int], updates: Any) -> Any:
    """``inputs`` with the block at ``start_indices`` replaced by ``updates``."""
    starts = [int(s) for s in array_of(start_indices)]
    key = tuple(builtins.slice(s, s + n) for s, n in zip(starts, updates.shape))
    if not is_float(inputs):
        out = inputs.array.copy()
        out[key] = updates.array
        return out
    updates = _cast(updates, inputs.dtype)
    xp = inputs.xp
    mask = xp.ones(inputs.shape, inputs.dtype)
    mask[key] = 0
    width = tuple((s, size - s - n) for s, n, size in zip(starts, updates.shape, inputs.shape))
    return inputs * mask + F.pad(updates, width)


@keras_op('indices', 'values', module='core')
def scatter(indices: Any, values: Any, shape: Sequence[int]) -> Any:
    """A zero tensor of ``shape`` with ``values`` added at ``indices`` (rows of coordinates;
    duplicates add up)."""
    idx = indices.array.astype('int64')
    key = tuple(idx[..., i] for i in range(idx.shape[-1]))
    xp = values.xp
    if not is_float(values):
        out = xp.zeros(tuple(shape), values.dtype)
        xp.add.at(out, key, values.array)
        return out
    return F.scatter_add(xp.zeros(tuple(shape), values.dtype), key, values)


@keras_op('inputs', 'indices', 'updates', module='core')
def scatter_update(inputs: Any, indices: Any, updates: Any) -> Any:
    """``inputs`` with the entries at ``indices`` (rows of coordinates) set to ``updates``."""
    idx = indices.array.astype('int64')
    key = tuple(idx[..., i] for i in range(idx.shape[-1]))
    if not is_float(inputs):
        out = inputs.array.copy()
        out[key] = updates.array
        return out
    updates = _cast(updates, inputs.dtype)
    xp = inputs.xp
    mask = xp.ones(inputs.shape, inputs.dtype)
    mask[key] = 0
    return inputs * mask + F.scatter_add(xp.zeros(inputs.shape, inputs.dtype), key, updates)


def _truth(pred: Any) -> bool:
    if isinstance(pred, KerasTensor):
        raise TypeError('keras.ops.cond: the predicate is a KerasTensor; branching on '
                        'symbolic values is not supported, use ops.where instead')
    return bool(array_of(pred))


def cond(pred: Any, true_fn: Callable, false_fn: Callable) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()`` (evaluated eagerly)."""
    return true_fn() if _truth(pred) else false_fn()


def switch(index: Any, branches: Sequence[Callable], *operands: Any) -> Any:
    """``branches[index](*operands)``, the index clamped to the valid range."""
    i = int(array_of(index))
    return branches[builtins.max(0, builtins.min(i, len(branches) - 1))](*operands)


def while_loop(cond: Callable, body: Callable, loop_vars: Any,
               maximum_iterations: Optional[int] = None) -> Any:
    """Run ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds (at most
    ``maximum_iterations`` times); a single loop variable is passed and returned bare."""
    packed = isinstance(loop_vars, (list, tuple))
    state = tuple(loop_vars) if packed else (loop_vars,)
    done = 0
    while (maximum_iterations is None or done < maximum_iterations) and _truth(cond(*state)):
        state = body(*state)
        state = tuple(state) if isinstance(state, (list, tuple)) else (state,)
        done += 1
    return (type(loop_vars)(state) if isinstance(loop_vars, list) else state) if packed \
        else state[0]


def fori_loop(lower: int, upper: int, body_fun: Callable, init_val: Any) -> Any:
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``."""
    val = init_val
    for i in range(int(array_of(lower)), int(array_of(upper))):
        val = body_fun(i, val)
    return val


def _stack_results(results: list) -> Any:
    if not results:
        raise ValueError('keras.ops.map: cannot stack an empty sequence of results')
    first = results[0]
    if isinstance(first, (list, tuple, dict)):
        leaves = [flatten(r) for r in results]
        stacked = iter([_stack_results([leaf[i] for leaf in leaves])
                        for i in range(len(leaves[0]))])
        return map_structure(lambda _: next(stacked), first)
    if any(isinstance(r, Variable) for r in results):
        return F.stack([r if isinstance(r, Variable) else const(r, r) for r in results])
    return xp_of(*results).stack([xp_of(r).asarray(r) for r in results])


def _slices(xs: Any) -> list:
    leaves = flatten(xs)
    n = len(leaves[0]) if leaves else 0
    return [map_structure(operator.itemgetter(i), xs) for i in range(n)]


def map(f: Callable, xs: Any) -> Any:
    """``f`` applied to every slice of ``xs`` along the first axis, results stacked."""
    return _stack_results([f(x) for x in _slices(xs)])


vectorized_map = map


def scan(f: Callable, init: Any, xs: Any = None, length: Optional[int] = None,
         reverse: bool = False, unroll: int = 1) -> tuple:
    """``carry, y = f(carry, x)`` over the slices of ``xs``; returns ``(carry, stacked ys)``."""
    items = _slices(xs) if xs is not None else [None] * int(length or 0)
    order = range(len(items) - 1, -1, -1) if reverse else range(len(items))
    carry, ys = init, [None] * len(items)
    for i in order:
        carry, ys[i] = f(carry, items[i])
    if not ys or all(y is None for y in ys):
        return carry, None
    return carry, _stack_results(ys)


def associative_scan(f: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Inclusive scan with the associative ``f`` along ``axis`` (sequentially)."""
    def moved(v: Any) -> Any:
        if isinstance(v, Variable):
            return F.moveaxis(v, axis, 0)
        return xp_of(v).moveaxis(v, axis, 0)
    seq = _slices(map_structure(moved, elems))
    if reverse:
        seq = seq[::-1]
    acc, out = None, []
    for item in seq:
        acc = item if acc is None else f(acc, item)
        out.append(acc)
    if reverse:
        out = out[::-1]
    stacked = _stack_results(out)

    def back(v: Any) -> Any:
        if isinstance(v, Variable):
            return F.moveaxis(v, 0, axis)
        return xp_of(v).moveaxis(v, 0, axis)
    return map_structure(back, stacked)


class _CustomGradient(chainlet.FunctionNode):
    """Runs ``fn`` without a graph; its ``grad_fn`` gives the input gradients."""

    def __init__(self, fn: Callable, structure: list) -> None:
        self.fn = fn
        self.structure = structure  # the arguments, with None where a tensor goes
        self.grad_fn: Any = None

    def forward(self, inputs: tuple) -> tuple:
        values = iter(Variable(a, requires_grad=False) for a in inputs)
        args = [next(values) if s is None else s for s in self.structure]
        with chainlet.no_backprop_mode():
            y, self.grad_fn = self.fn(*args)
        return (array_of(y),)

    def backward(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        upstream = grad_outputs[0]
        try:
            grads = self.grad_fn(upstream=upstream)
        except TypeError:  # grad(upstream) written with a positional argument
            grads = self.grad_fn(upstream)
        if not isinstance(grads, (list, tuple)):
            grads = (grads,)
        out = []
        for g, x in zip(grads, self.inputs):
            if g is None or isinstance(g, Variable):
                out.append(g)
                continue
            if not chainlet.backend.is_array(g):
                g = xp_of(upstream).asarray(g)
            out.append(Variable(g.astype(x.dtype, copy=False), requires_grad=False))
        return tuple(out)


def custom_gradient(f: Callable) -> Callable:
    """Decorator: ``f(*args)`` returns ``(y, grad)`` and ``grad(upstream=g)`` gives the
    gradients of its float tensor arguments (one, or a tuple in order).

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet.keras import ops
        >>> @ops.custom_gradient
        ... def clipped_identity(x):
        ...     def grad(*args, upstream=None):
        ...         return ops.clip(upstream, -1.0, 1.0)
        ...     return x, grad
        >>> x = chainlet.Variable(np.array([1.0, 2.0]))
        >>> y = clipped_identity(x * 3)
        >>> ops.sum(y * 10).backward(); x.grad
        array([3., 3.])
    """
    def wrapper(*args: Any) -> Any:
        if any(isinstance(a, KerasTensor) for a in args):
            raise TypeError('keras.ops.custom_gradient: call the function on values, not on '
                            'KerasTensors (wrap it in a layer)')
        tensors = [a for a in args if isinstance(a, Variable) or
                   (chainlet.backend.is_array(a) and a.dtype.kind == 'f')]
        structure = [None if any(a is t for t in tensors) else a for a in args]
        y = _CustomGradient(f, structure).apply(tuple(tensors))[0]
        if not any(isinstance(a, Variable) for a in args):
            return y.array
        return y
    wrapper.__name__ = getattr(f, '__name__', 'custom_gradient')
    wrapper.__doc__ = f.__doc__
    return wrapper


__all__ = ['shape', 'dtype', 'is_tensor', 'cast', 'saturate_cast', 'convert_to_tensor',
           'convert_to_numpy', 'stop_gradient', 'unstack', 'slice', 'slice_update', 'scatter',
           'scatter_update', 'cond', 'switch', 'while_loop', 'fori_loop', 'map',
           'vectorized_map', 'scan', 'associative_scan', 'custom_gradient']
