"""RoIAlign: the mean of bilinear samples over every bin of every region of interest."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.pooling import _roi
from chainlet.variable import Variable


class ROIAverageAlign2D(_roi.AlignBins, _roi.ROIAverageBase):
    """Mean of the bilinear samples of every bin (a separable linear map of ``x``)."""

    _func = 'roi_average_align_2d'


def roi_average_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any,
                         spatial_scale: float, sampling_ratio: Optional[Any] = None
                         ) -> Variable:
    """RoIAlign (Mask R-CNN): the mean of bilinear samples over each bin.

    The bins and sample points are those of :func:`roi_max_align_2d`; every bin holds the
    sum of its point values divided by the number of grid points ``gh * gw`` (skipped points
    count as zeros). The gradient spreads ``gy`` back with the interpolation weights.

    Args:
        x: Float Variable or array of shape ``(N, C, H, W)``.
        rois: Array of shape ``(R, 4)`` and the dtype of ``x``: ``(y1, x1, y2, x2)``.
        roi_indices: Integer array of shape ``(R,)``: the image of each box, in ``[0, N)``.
        outsize: ``(outh, outw)`` or one int for both.
        spatial_scale: Positive factor from box coordinates to ``x``'s pixels.
        sampling_ratio: Points per bin along each axis: ``None`` (adaptive), an int >= 1, or
            a pair of those.

    Returns:
        Variable of shape ``(R, C, outh, outw)``; only ``x`` gets a gradient.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_average_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 5.  ,  6.75],
                 [12.  , 13.75]]]], dtype=float32)
    """
    node = ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]


__all__ = ['ROIAverageAlign2D', 'roi_average_align_2d']
