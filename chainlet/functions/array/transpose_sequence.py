"""``transpose_sequence``: turn a batch of sequences into a sequence of batches."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import arrays_of
from chainlet.variable import Variable


class TransposeSequence(FunctionNode):
    """``ys[t]`` stacks the ``t``-th elements of the sequences longer than ``t``.

    The inputs are sorted by non-increasing length; the outputs then are, too, and applying the
    same operation to them gives the inputs back (except sequences of length 0), which is how
    the gradient is computed.
    """

    def _check_arrays(self, in_data):
        x0 = in_data[0]
        for i, x in enumerate(in_data):
            if x.ndim < 1:
                raise type_check.fail('transpose_sequence', f'xs[{i}]', 'ndim >= 1 (a sequence)',
                                      'a 0-d array')
            if x.dtype != x0.dtype:
                raise type_check.fail('transpose_sequence', f'xs[{i}]',
                                      f'dtype {x0.dtype} (the dtype of xs[0])', str(x.dtype))
            if x.shape[1:] != x0.shape[1:]:
                raise type_check.fail('transpose_sequence', f'xs[{i}]',
                                      f'shape (L, {", ".join(map(str, x0.shape[1:]))}) (the '
                                      f'element shape of xs[0])', str(x.shape))
        for i in range(1, len(in_data)):
            if in_data[i].shape[0] > in_data[i - 1].shape[0]:
                raise type_check.fail(
                    'transpose_sequence', f'xs[{i}]',
                    f'length <= {in_data[i - 1].shape[0]} (sequences sorted by non-increasing '
                    f'length)', str(in_data[i].shape[0]))

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self._shapes = [x.shape for x in inputs]
        self._dtype = inputs[0].dtype
        lengths = [x.shape[0] for x in inputs]
        ys = []
        for t in range(lengths[0]):
            batch = sum(1 for n in lengths if n > t)
            ys.append(xp.stack([x[t] for x in inputs[:batch]]))
        return tuple(ys)

    def backward(self, indexes, grad_outputs):
        ref = next(g for g in grad_outputs if g is not None)
        xp = backend.get_array_module(ref.array)
        elem = self._shapes[0][1:]
        gys = []
        for t, gy in enumerate(grad_outputs):
            if gy is None:
                batch = sum(1 for s in self._shapes if s[0] > t)
                gy = Variable(xp.zeros((batch,) + elem, self._dtype), requires_grad=False)
            gys.append(gy)
        gxs = list(TransposeSequence().apply(tuple(gys)))
        # Sequences of length 0 do not appear in the outputs; their gradient is empty.
        for shape in self._shapes[len(gxs):]:
            gxs.append(Variable(xp.zeros(shape, self._dtype), requires_grad=False))
        return tuple(gxs)


def transpose_sequence(xs: Sequence[Any]) -> tuple[Variable, ...]:
    """Transpose a list of sequences into a list of time steps (time-major batches).

    With ``xs`` sorted by non-increasing length ``L_0 >= L_1 >= ...``, the result has ``L_0``
    entries and ``ys[t]`` stacks ``xs[i][t]`` for every sequence ``i`` with ``L_i > t``, so its
    batch size does not increase with ``t``. Applying the function to ``ys`` gives ``xs`` back.
    This is the layout the ``n_step_*`` RNN functions take and return.

    Args:
        xs: List or tuple of Variables or arrays of shape ``(L_i, ...)`` with one dtype and one
            element shape, sorted by non-increasing length.

    Returns:
        Tuple of ``L_0`` Variables; ``ys[t]`` has shape ``(B_t, ...)``. An empty input, or
        sequences that are all empty, give an empty tuple.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), np.array([6.0])]
        >>> [y.array for y in F.transpose_sequence(xs)]
        [array([1., 4., 6.]), array([2., 5.]), array([3.])]
        >>> [x.array for x in F.transpose_sequence(F.transpose_sequence(xs))]
        [array([1., 2., 3.]), array([4., 5.]), array([6.])]
    """
    if isinstance(xs, (list, tuple)) and len(xs) == 0:
        return ()
    data = arrays_of('transpose_sequence', xs)
    if all(d.ndim >= 1 and d.shape[0] == 0 for d in data):
        return ()
    return TransposeSequence().apply(tuple(xs))


__all__ = ['TransposeSequence', 'transpose_sequence']
