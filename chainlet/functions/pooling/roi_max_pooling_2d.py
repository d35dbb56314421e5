"""RoI max pooling: the maximum of every bin of every region of interest."""
from __future__ import annotations

from typing import Any

from chainlet.functions.pooling import _roi
from chainlet.variable import Variable


class ROIMaxPooling2D(_roi.PixelBins, _roi.ROIMaxBase):
    """Max of every bin; an empty bin gives ``-inf`` and passes no gradient."""

    _func = 'roi_max_pooling_2d'


def roi_max_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                       spatial_scale: float) -> Variable:
    """Max pooling over regions of interest (Fast R-CNN RoI pooling).

    Box ``r`` ``(y1, x1, y2, x2)`` of image ``roi_indices[r]`` is scaled by ``spatial_scale``
    and rounded to pixels (half to even); its ``max(y2 - y1, 1)`` rows are split into
    ``outh`` bins, bin ``p`` covering rows ``[floor(p * L / outh), ceil((p + 1) * L /
    outh))`` from ``y1`` (clipped to the image), and likewise for the columns. Every bin holds
    the maximum of its pixels per channel, ``-inf`` when it lies outside the image. The
    gradient goes to the first maximum (in row-major order) of each bin.

    Args:
        x: Float Variable or array of shape ``(N, C, H, W)``.
        rois: Array of shape ``(R, 4)`` and the dtype of ``x``.
        roi_indices: Integer array of shape ``(R,)``: the image of each box, in ``[0, N)``.
        outsize: ``(outh, outw)`` or one int for both (NumPy integers accepted).
        spatial_scale: Positive factor from box coordinates to ``x``'s pixels.

    Returns:
        Variable of shape ``(R, C, outh, outw)``; only ``x`` gets a gradient.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_max_pooling_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return ROIMaxPooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]


__all__ = ['ROIMaxPooling2D', 'roi_max_pooling_2d']
