"""CUDA sources of N-D max pooling (Chainer's ``max_pooling_nd_kernel`` module).

The forward kernel writes every window's maximum and the flat in-window index of its first
maximum (``indexes``, C order over the window, as ``max_pooling_nd(..., return_indices=True)``
returns it); the backward kernel adds to every input cell the gradients of the outputs whose
maximum it was. Pure Python, importable without CuPy; chainlet's own max pooling works on
strided views instead.

Example:
    >>> from chainlet.functions.pooling import max_pooling_nd_kernel as K
    >>> in_params, out_params, operation, name = K.MaxPoolingNDKernelForward()._generate(1)
    >>> name, out_params
    ('max_pool_1d_fwd', 'T out, S indexes')
"""
from __future__ import annotations

from chainlet.functions.pooling import pooling_nd_kernel


def _flat_index(parts: list, sizes: list) -> str:
    """C expression of the C-order flat index of ``parts`` in a box of ``sizes``."""
    flat = parts[0]
    for part, size in zip(parts[1:], sizes[1:]):
        flat = f'({part} + {size} * {flat})'
    return flat


class MaxPoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):

    def name(self) -> str:
        return 'max'

    def out_params(self) -> list:
        return ['S indexes']

    def before(self) -> str:
        self.argmaxs = [f'argmax_{j}' for j in range(self.ndim)]
        return '\n'.join(['T maxval = (T)-(1.0/0.0);'] +
                         [f'int {a} = 0;' for a in self.argmaxs])

    def main(self, offset: str, xs: list) -> str:
        # Strictly greater: the first maximum of the window wins.
        sets = [f'  {a} = {x};' for a, x in zip(self.argmaxs, xs)]
        return '\n'.join([f'T v = in[{offset}];', 'if (maxval < v) {', '  maxval = v;'] +
                         sets + ['}'])

    def after(self, out_xs: list) -> str:
        ks = [f'argmax_k_{j}' for j in range(self.ndim)]
        decls = [f'int {k} = {a} + {p} - {o} * {s};'
                 for k, a, p, o, s in zip(ks, self.argmaxs, self.ps, out_xs, self.ss)]
        return '\n'.join(['out = maxval;'] + decls +
                         [f'indexes = {_flat_index(ks, self.ks)};'])


class MaxPoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):

    def name(self) -> str:
        return 'max'

    def in_params(self) -> tuple:
        return ['raw S indexes'], []

    def before(self) -> str:
        return 'T val = 0;'

    def main(self, offset: str, xs: list, out_xs: list) -> str:
        within = [f'({x} - {o} * {s})' for x, o, s in zip(xs, out_xs, self.ss)]
        return '\n'.join([f'int kx = {_flat_index(within, self.ks)};',
                          f'if (indexes[{offset}] == kx) {{',
                          f'  val = val + gy[{offset}];',
                          '}'])

    def after(self, xs: list) -> str:
        return 'gx = val;'


__all__ = ['MaxPoolingNDKernelBackward', 'MaxPoolingNDKernelForward']
