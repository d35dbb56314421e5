"""RoIAlign with max: the largest bilinear sample of every bin of every region of interest."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.pooling import _roi
from chainlet.variable import Variable


class ROIMaxAlign2D(_roi.AlignBins, _roi.ROIMaxBase):
    """Largest bilinear sample of every bin; a bin without samples gives ``-inf``."""

    _func = 'roi_max_align_2d'


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
