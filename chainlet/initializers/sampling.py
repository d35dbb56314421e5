"""Bilinear up/down-sampling filters for (de)convolution weights (Long et al., FCN).

The weight ``(c_in, c_out, k, k, ...)`` is zero except that every channel ``i`` maps to
channel ``i`` (or to the only output channel) through a separable triangle ("linear") kernel;
for downsampling the kernel is normalized to sum to one.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet.initializers.base import Initializer


def _linear_kernel(size: int, ndim: int, upsampling: bool) -> numpy.ndarray:
    factor = (size + 1) // 2
    center = factor - 1.0 if size % 2 == 1 else factor - 0.5
    taps = 1.0 - numpy.abs(numpy.arange(size) - center) / factor
    kernel = numpy.ones(())
    for _ in range(ndim):
        kernel = numpy.multiply.outer(kernel, taps)
    if not upsampling:
        kernel /= kernel.sum()
    return kernel


class _SamplingFilter(Initializer):

    _upsampling = True

    def __init__(self, interpolation: str = 'linear', dtype: Any = None) -> None:
        if interpolation != 'linear':
            raise ValueError(f"{type(self).__name__}: argument interpolation: expected 'linear', "
                             f'got {interpolation!r}')
        super().__init__(dtype)
        self.interpolation = interpolation

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        name = type(self).__name__
        if array.ndim < 3:
            raise ValueError(f'{name}: expected a weight (c_in, c_out, k, ...), got shape '
                             f'{array.shape}')
        in_c, out_c = array.shape[:2]
        if out_c not in (in_c, 1):
            raise ValueError(f'{name}: the second axis must equal the first or be 1, got shape '
                             f'{array.shape}')
        ksizes = set(array.shape[2:])
        if len(ksizes) != 1:
            raise ValueError(f'{name}: the kernel must be square, got shape {array.shape}')
        kernel = _linear_kernel(ksizes.pop(), array.ndim - 2, self._upsampling)
        values = numpy.zeros(array.shape)
        channels = numpy.arange(in_c)
        values[channels, 0 if out_c == 1 else channels] = kernel
        self._fill(array, values)


class UpsamplingDeconvFilter(_SamplingFilter):
    """Bilinear upsampling weight for a deconvolution with ``stride == (ksize + 1) // 2``.

    Args:
        interpolation: Only ``'linear'``.
        dtype: dtype of the generated arrays.

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import UpsamplingDeconvFilter
        >>> w = np.empty((1, 1, 3, 3)); UpsamplingDeconvFilter()(w); w[0, 0]
        array([[0.25, 0.5 , 0.25],
               [0.5 , 1.  , 0.5 ],
               [0.25, 0.5 , 0.25]])
    """


class DownsamplingConvFilter(_SamplingFilter):
    """Bilinear downsampling weight (the kernel sums to one) for a convolution with
    ``stride == (ksize + 1) // 2``.

    Args:
        interpolation: Only ``'linear'``.
        dtype: dtype of the generated arrays.
    """

    _upsampling = False
