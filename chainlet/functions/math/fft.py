"""``fft`` and ``ifft``: the discrete Fourier transform over the last axis, on (real, imag) pairs.

As in Chainer, a complex signal is passed as two float arrays. The transform ``F`` is linear
and its matrix is symmetric, so the gradient is ``conj(F)`` applied to ``(gr, gi)``, which is the
same transform applied to ``(gi, gr)`` with the two outputs swapped (``ifft`` likewise, with its
``1/n``); the backward is thus the node itself and differentiable to any order.
"""
from __future__ import annotations

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode


class FFT(FunctionNode):
    """``(yr, yi) = method(xr + i xi)`` over the last axis, ``method`` ``'fft'`` or ``'ifft'``."""

    def __init__(self, method: str) -> None:
        if method not in ('fft', 'ifft'):
            raise ValueError(f"FFT: argument method: expected 'fft' or 'ifft', got {method!r}")
        self._method = method

    @property
    def label(self) -> str:
        return self._method

    def _check_arrays(self, in_data):
        name = self._method
        type_check.count(name, in_data, 2)
        real, imag = in_data
        type_check.argument(name, 'real', real, kind='f', min_ndim=1)
        type_check.argument(name, 'imag', imag, dtype=real.dtype, shape=real.shape)

    def forward(self, inputs):
        real, imag = inputs
        xp = backend.get_array_module(real, imag)
        x = xp.empty(real.shape, numpy.promote_types(real.dtype, numpy.complex64))
        x.real = real
        x.imag = imag
        y = getattr(xp.fft, self._method)(x)
        return y.real.astype(real.dtype), y.imag.astype(real.dtype)

    def backward(self, indexes, grad_outputs):
        gr, gi = grad_outputs
        xp = backend.get_array_module(*[g.array for g in grad_outputs if g is not None])
        shape = self.inputs[0].shape
        dtype = self.inputs[0].dtype
        if gr is None:
            gr = xp.zeros(shape, dtype)
        if gi is None:
            gi = xp.zeros(shape, dtype)
        gxi, gxr = FFT(self._method).apply((gi, gr))
        return gxr, gxi


def fft(x: tuple) -> tuple:
    """Discrete Fourier transform over the last axis, :math:`y_k = \\sum_j x_j e^{-2\\pi i jk/n}`.

    Args:
        x: Pair ``(real, imag)`` of Variables or float arrays of one shape and dtype (at least
            one axis): the real and imaginary parts of the signal.

    Returns:
        Pair ``(real, imag)`` of Variables of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> yr, yi = F.fft((np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(4)))
        >>> yr.array, yi.array
        (array([1., 1., 1., 1.]), array([0., 0., 0., 0.]))
    """
    real, imag = x
    return FFT('fft').apply((real, imag))


def ifft(x: tuple) -> tuple:
    """Inverse discrete Fourier transform over the last axis,
    :math:`y_k = \\frac1n \\sum_j x_j e^{2\\pi i jk/n}`.

    Args:
        x: Pair ``(real, imag)`` of Variables or float arrays of one shape and dtype.

    Returns:
        Pair ``(real, imag)`` of Variables of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> yr, yi = F.ifft((np.ones(4), np.zeros(4)))
        >>> yr.array
        array([1., 0., 0., 0.])
    """
    real, imag = x
    return FFT('ifft').apply((real, imag))
