"""RoIAlign with max: the largest bilinear sample of every bin of every region of interest."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.functions.pooling import _roi
from chainlet.variable import Variable


def align_tables(x_shape: tuple, rois: numpy.ndarray, outh: int, outw: int,
                 spatial_scale: float, sampling_ratio: tuple) -> tuple:
    """Bilinear sample tables of boxes ``(y1, x1, y2, x2)`` scaled (not rounded)."""
    b = rois * spatial_scale
    height = numpy.maximum(b[:, 2] - b[:, 0], 1.0)
    width = numpy.maximum(b[:, 3] - b[:, 1], 1.0)
    rows = _roi.align_table(b[:, 0], height, outh, sampling_ratio[0], x_shape[2])
    cols = _roi.align_table(b[:, 1], width, outw, sampling_ratio[1], x_shape[3])
    return rows, cols


class ROIMaxAlign2D(_roi.ROIMaxBase):
    """Largest bilinear sample of every bin; a bin without samples gives ``-inf``."""

    _func = 'roi_max_align_2d'

    def __init__(self, outsize: Any, spatial_scale: float,
                 sampling_ratio: Optional[Any] = None) -> None:
        self.outh, self.outw = _roi.parse_outsize(self._func, outsize)
        self.spatial_scale = _roi.parse_scale(self._func, spatial_scale)
        self.sampling_ratio = _roi.parse_sampling_ratio(self._func, sampling_ratio)

    def _tables(self, x_shape, rois):
        return align_tables(x_shape, rois, self.outh, self.outw, self.spatial_scale,
                            self.sampling_ratio)


def roi_max_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: Any, spatial_scale: float,
                     sampling_ratio: Optional[Any] = None) -> Variable:
    """RoIAlign (Mask R-CNN) taking the maximum of the samples of each bin.

    Box ``r`` ``(y1, x1, y2, x2)`` of image ``roi_indices[r]`` is scaled by ``spatial_scale``
    without rounding and split into ``outh x outw`` equal bins (the box is at least one pixel
    high and wide). Each bin holds a ``gh x gw`` grid of evenly spaced points, ``gh`` being
    ``sampling_ratio[0]`` or, when ``None``, ``ceil(box height / outh)``; each point is read
    by bilinear interpolation (points more than one pixel outside the image are skipped,
    points just outside are clamped to the border). The output is the largest point value
    per channel (``-inf`` for a bin with no point); the gradient goes, with the interpolation
    weights, to the cells read by the first largest point.

    Args:
        x: Float Variable or array of shape ``(N, C, H, W)``.
        rois: Array of shape ``(R, 4)`` and the dtype of ``x``.
        roi_indices: Integer array of shape ``(R,)``: the image of each box, in ``[0, N)``.
        outsize: ``(outh, outw)`` or one int for both (NumPy integers accepted).
        spatial_scale: Positive factor from box coordinates to ``x``'s pixels.
        sampling_ratio: Points per bin along each axis: ``None`` (adaptive), an int >= 1, or
            a pair of those.

    Returns:
        Variable of shape ``(R, C, outh, outw)``; only ``x`` gets a gradient.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 4, 4]], np.float32)
        >>> F.roi_max_align_2d(x, rois, np.array([0], np.int32), 2, 1.0).array
        array([[[[ 7.5,  9. ],
                 [13.5, 15. ]]]], dtype=float32)
    """
    node = ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]


__all__ = ['ROIMaxAlign2D', 'roi_max_align_2d']
