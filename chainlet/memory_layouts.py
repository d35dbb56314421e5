"""Chainer 7's memory layouts: names for how an array's axes are ordered in memory.

Chainer 7.8 can keep convolution inputs and weights "channels last" (NHWC) for cuDNN's fast
Tensor Core path while code keeps seeing the usual "channels first" (NCHW) semantic shape. A
layout is a plain value: ``None`` is the standard one (:data:`CUDNN_CHANNEL_FIRST_X`,
:data:`CUDNN_CHANNEL_FIRST_W`), a string names a non-standard one. chainlet computes in the
standard layout only, on every device; this module gives code ported from Chainer the same
names and helpers, which convert shapes and arrays between layouts:

- the *raw* shape is the shape of the array as stored;
- the *semantic* shape is the standard (channels first) one that functions reason about.

Example:
    >>> import numpy as np
    >>> from chainlet import memory_layouts as ml
    >>> x = np.zeros((2, 5, 7, 3), np.float32)             # N, H, W, C as stored
    >>> ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X)
    (2, 3, 5, 7)
    >>> ml._transpose_array(x, ml.CUDNN_CHANNEL_LAST_X, ml.CUDNN_CHANNEL_FIRST_X).shape
    (2, 3, 5, 7)
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from chainlet import function_node
from chainlet import variable

#: Standard (channels first, ``(N, C, ...)``) layout of a data array.
CUDNN_CHANNEL_FIRST_X = None
#: Channels last (``(N, ..., C)``) layout of a data array.
CUDNN_CHANNEL_LAST_X = 'CUDNN_CHANNEL_LAST_X'
#: Standard (``(out, in, kh, kw)``) layout of a convolution weight.
CUDNN_CHANNEL_FIRST_W = None
#: Channels last (``(out, kh, kw, in)``) layout of a convolution weight.
CUDNN_CHANNEL_LAST_W = 'CUDNN_CHANNEL_LAST_W'

_LAST_TO_FIRST = {CUDNN_CHANNEL_LAST_X: CUDNN_CHANNEL_FIRST_X,
                  CUDNN_CHANNEL_LAST_W: CUDNN_CHANNEL_FIRST_W}


class _Unspecified:
    def __repr__(self) -> str:
        return '<unspecified>'


_unspecified = _Unspecified()


def get_raw_shape(arr_or_var: Any) -> Tuple[int, ...]:
    """The shape of the array as stored in memory (of a Variable's raw array).

    Args:
        arr_or_var: An ndarray or a :class:`~chainlet.Variable`.

    Returns:
        tuple of ints: the raw shape.
    """
    if isinstance(arr_or_var, variable.Variable):
        return arr_or_var.raw_array.shape
    return arr_or_var.shape


def get_semantic_shape(arr_or_var: Any, *, assumed_layout: Any = _unspecified
                       ) -> Tuple[int, ...]:
    """The shape in the standard layout.

    Args:
        arr_or_var: An ndarray or a :class:`~chainlet.Variable`.
        assumed_layout: The layout an ndarray is stored in (a Variable knows its own layout;
            when given for a Variable, it must equal ``var.layout``).

    Returns:
        tuple of ints: the semantic (channels first) shape.

    Raises:
        ValueError: ``assumed_layout`` differs from a Variable's layout.
    """
    if not isinstance(arr_or_var, variable.Variable):
        shape = arr_or_var.shape
        if assumed_layout is not _unspecified:
            shape = _transpose_shape(shape, assumed_layout, None)
        return shape
    if assumed_layout is not _unspecified and arr_or_var.layout != assumed_layout:
        raise ValueError(
            f'get_semantic_shape: assumed_layout is {assumed_layout!r} but the Variable has '
            f'layout {arr_or_var.layout!r}')
    return arr_or_var.shape


def _transpose_array(arr: Any, src_layout: Any, dst_layout: Any) -> Any:
    """``arr`` stored in ``src_layout``, as stored in ``dst_layout`` (a transposed view)."""
    trans = _get_layout_transpose_axes(arr.ndim, src_layout, dst_layout)
    if trans is None:
        return arr
    return arr.transpose(*trans)


def _transpose_shape(shape: Tuple[int, ...], src_layout: Any, dst_layout: Any
                     ) -> Tuple[int, ...]:
    """``shape`` of an array in ``src_layout``, as the shape in ``dst_layout``."""
    trans = _get_layout_transpose_axes(len(shape), src_layout, dst_layout)
    if trans is None:
        return shape
    return tuple([shape[i] for i in trans])


def _get_layout_transpose_axes(ndim: int, src_layout: Any, dst_layout: Any,
                               inverse: bool = False) -> Optional[Tuple[int, ...]]:
    """The axes to transpose an ``ndim`` array in ``src_layout`` into ``dst_layout``.

    ``None`` when the layouts are equal (nothing to do); with ``inverse=True``, the axes of the
    opposite conversion. Only conversions between a channels-last layout and its standard
    counterpart exist.

    Raises:
        ValueError: an unknown conversion, or an array with fewer than 3 axes.
    """
    if src_layout == dst_layout:
        return None
    if dst_layout in _LAST_TO_FIRST and src_layout == _LAST_TO_FIRST[dst_layout]:
        trans = (0,) + tuple(range(2, ndim)) + (1,)       # channels to the end
    elif src_layout in _LAST_TO_FIRST and dst_layout == _LAST_TO_FIRST[src_layout]:
        trans = (0, ndim - 1) + tuple(range(1, ndim - 1))  # the last axis back to 1
    else:
        raise ValueError(
            f'memory_layouts: unknown layout conversion from {src_layout!r} to {dst_layout!r}')
    if ndim < 3:
        raise ValueError(
            f'memory_layouts: a conversion from {src_layout!r} to {dst_layout!r} needs an array '
            f'of at least 3 dimensions, got {ndim}')
    if inverse:
        t = [0] * ndim
        for i, n in enumerate(trans):
            t[n] = i
        trans = tuple(t)
    return trans


class AsLayout(function_node.FunctionNode):
    """Transpose an array from one memory layout into another (differentiable).

    Args:
        layout: The layout of the output.
        in_layout: The layout of the input (chainlet's Variables are in the standard one).
    """

    def __init__(self, layout: Any, in_layout: Any = None) -> None:
        self.out_layout = layout
        self.in_layout = in_layout

    @property
    def label(self) -> str:
        return 'AsLayout'

    def forward(self, inputs):
        x, = inputs
        return _transpose_array(x, self.in_layout, self.out_layout),

    def backward(self, indexes, grad_outputs):
        return AsLayout(self.in_layout, self.out_layout).apply(grad_outputs)
