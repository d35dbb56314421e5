"""Argument normalisation, Keras's output-length and 'same' padding rules, and masks.

Keras pads 'same' convolutions and poolings like TensorFlow: the total padding of an axis is
``max((out - 1) * stride + dilated_kernel - length, 0)`` with ``out = ceil(length / stride)``;
``total // 2`` goes before and the rest after, so an odd total puts the extra cell at the
bottom/right. Chainer's functions pad symmetrically, so the odd case is padded explicitly.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras import config


def normalize_tuple(value: Any, n: int, arg: str, layer: str,
                    allow_zero: bool = False) -> tuple:
    """An int or a sequence of ``n`` ints as a tuple of ``n`` ints (checked)."""
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        values = (int(value),) * n
    else:
        try:
            values = tuple(int(v) for v in value)
        except (TypeError, ValueError):
            raise TypeError(f'{layer}: argument {arg}: expected an int or a tuple of {n} ints, '
                            f'got {value!r}') from None
        if len(values) != n:
            raise ValueError(f'{layer}: argument {arg}: expected an int or a tuple of {n} ints, '
                             f'got {value!r}')
    low = 0 if allow_zero else 1
    if any(v < low for v in values):
        kind = 'non-negative' if allow_zero else 'positive'
        raise ValueError(f'{layer}: argument {arg}: expected {kind} values, got {value!r}')
    return values


def normalize_padding(value: Any, layer: str,
                      allowed: Sequence[str] = ('valid', 'same')) -> str:
    """``'valid'``/``'same'`` (case-insensitive), or one of ``allowed``."""
    padding = value.lower() if isinstance(value, str) else value
    if padding not in allowed:
        raise ValueError(f'{layer}: argument padding: expected one of {list(allowed)}, '
                         f'got {value!r}')
    return padding


def normalize_data_format(value: Optional[str], layer: str) -> str:
    """``None`` means ``keras.config.image_data_format()`` (``'channels_last'`` unless set)."""
    if value is None:
        return config.image_data_format()
    fmt = value.lower() if isinstance(value, str) else value
    if fmt not in ('channels_last', 'channels_first'):
        raise ValueError(f"{layer}: argument data_format: expected 'channels_last' or "
                         f"'channels_first', got {value!r}")
    return fmt


def dilated(kernel: int, dilation: int) -> int:
    return kernel + (kernel - 1) * (dilation - 1)


def conv_output_length(length: Optional[int], kernel: int, padding: str, stride: int,
                       dilation: int = 1) -> Optional[int]:
    """Output length of a convolution or pooling along one axis (``None`` stays ``None``)."""
    if length is None:
        return None
    if padding in ('same', 'causal'):
        out = length
    else:
        out = length - dilated(kernel, dilation) + 1
    return max((out + stride - 1) // stride, 0)


def same_padding(length: int, kernel: int, stride: int, dilation: int = 1) -> tuple:
    """``(before, after)`` zero padding of Keras's 'same' mode along one axis."""
    out = (length + stride - 1) // stride
    total = max((out - 1) * stride + dilated(kernel, dilation) - length, 0)
    return total // 2, total - total // 2


def to_channels_first(x: Any, data_format: str) -> Any:
    """``(N, *spatial, C)`` -> ``(N, C, *spatial)`` when the data is channels_last."""
    if data_format == 'channels_first':
        return x
    return F.moveaxis(x, -1, 1)


def from_channels_first(y: Any, data_format: str) -> Any:
    if data_format == 'channels_first':
        return y
    return F.moveaxis(y, 1, -1)


def spatial_padding(x: Any, pads: Sequence[tuple], value: float = 0.0) -> tuple:
    """Pad the spatial axes of channels-first ``x``; returns ``(x, symmetric_pad)``.

    Symmetric pads are left to the consuming Chainer function (cheaper); when any axis needs
    asymmetric padding, every axis is padded here and the returned pad is zero.
    """
    if all(b == a for b, a in pads):
        return x, tuple(b for b, _ in pads)
    width = ((0, 0), (0, 0)) + tuple(tuple(p) for p in pads)
    return F.pad(x, width, constant_values=value), (0,) * len(pads)


def check_float(layer: str, x: Any) -> None:
    if numpy.dtype(x.dtype).kind != 'f':
        raise TypeError(f'{layer}: expected a floating-point input, got dtype {x.dtype}')


# -- masks: Keras attaches a boolean (batch, time) mask to the output of Embedding(mask_zero=True)
# and other masking layers; it travels on the Variable as ``_keras_mask`` (Keras's attribute), so
# it lives and dies with the tensor.


def set_mask(x: Any, mask: Any) -> None:
    """Attach ``mask`` (a boolean array or ``None``) to the Variable ``x``."""
    if not isinstance(x, Variable):
        return
    if mask is None:
        if getattr(x, '_keras_mask', None) is not None:
            del x._keras_mask
        return
    x._keras_mask = mask


def get_mask(x: Any) -> Any:
    """The mask attached to ``x`` by a masking layer, or ``None``."""
    return getattr(x, '_keras_mask', None)


def mask_array(mask: Any) -> Any:
    """A mask given as a Variable, array or nested list, as a boolean array."""
    if mask is None:
        return None
    if isinstance(mask, Variable):
        mask = mask.array
    if not hasattr(mask, 'astype'):
        mask = numpy.asarray(mask)
    return mask.astype(bool)
