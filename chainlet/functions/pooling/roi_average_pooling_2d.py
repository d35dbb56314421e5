"""RoI average pooling: the mean of every bin of every region of interest."""
from __future__ import annotations

from typing import Any

from chainlet.functions.pooling import _roi
from chainlet.variable import Variable


class ROIAveragePooling2D(_roi.PixelBins, _roi.ROIAverageBase):
    """Mean of every bin (a separable linear map of ``x``); an empty bin gives ``0``."""

    _func = 'roi_average_pooling_2d'


def roi_average_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                           spatial_scale: float) -> Variable:
    """Average pooling over regions of interest.

    The bins are those of :func:`roi_max_pooling_2d`; every bin holds the mean of its pixels
    per channel, ``0`` when it lies outside the image. The gradient spreads ``gy / bin
    area`` over each bin.

    Args:
        x: Float Variable or array of shape ``(N, C, H, W)``.
        rois: Array of shape ``(R, 4)`` and the dtype of ``x``: ``(y1, x1, y2, x2)``.
        roi_indices: Integer array of shape ``(R,)``: the image of each box, in ``[0, N)``.
        outsize: ``(outh, outw)`` or one int for both.
        spatial_scale: Positive factor from box coordinates to ``x``'s pixels.

    Returns:
        Variable of shape ``(R, C, outh, outw)``; only ``x`` gets a gradient.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_average_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return ROIAveragePooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]


__all__ = ['ROIAveragePooling2D', 'roi_average_pooling_2d']
