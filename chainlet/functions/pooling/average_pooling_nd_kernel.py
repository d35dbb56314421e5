"""CUDA sources of N-D average pooling (Chainer's ``average_pooling_nd_kernel`` module).

The forward kernel multiplies every window sum by ``coeff`` (``1 / prod(ksize)``); the
backward kernel sums, for every input cell, the (already scaled) gradients of the windows
holding it. Pure Python, importable without CuPy; chainlet's own average pooling works on
strided views instead.

Example:
    >>> from chainlet.functions.pooling import average_pooling_nd_kernel as K
    >>> K.AveragePoolingNDKernelForward()._generate(2)[0].endswith('int32 p_1, T coeff')
    True
"""
from __future__ import annotations

from chainlet.functions.pooling import pooling_nd_kernel


class AveragePoolingNDKernelForward(pooling_nd_kernel.PoolingNDKernelForward):

    def name(self) -> str:
        return 'avg'

    def in_params(self) -> list:
        return ['T coeff']

    def before(self) -> str:
        return 'T val = 0;'

    def main(self, offset: str, xs: list) -> str:
        return f'val = val + in[{offset}];'

    def after(self, out_xs: list) -> str:
        return 'out = val * coeff;'


class AveragePoolingNDKernelBackward(pooling_nd_kernel.PoolingNDKernelBackward):

    def name(self) -> str:
        return 'avg'

    def before(self) -> str:
        return 'T val = 0;'

    def main(self, offset: str, xs: list, out_xs: list) -> str:
        return f'val = val + gy[{offset}];'

    def after(self, xs: list) -> str:
        return 'gx = val;'


__all__ = ['AveragePoolingNDKernelBackward', 'AveragePoolingNDKernelForward']
