"""Fast R-CNN RoI max pooling with Chainer's legacy box layout ``(index, x1, y1, x2, y2)``."""
from __future__ import annotations

from typing import Any

from chainlet.functions.pooling import _roi
from chainlet.variable import Variable


class ROIPooling2D(_roi.PixelBins, _roi.ROIMaxBase):
    """Max of every bin of every RoI; an empty bin (a RoI outside the image) gives ``0``.

    Boxes are inclusive pixel ranges: a box from ``x1`` to ``x2`` spans ``x2 - x1 + 1``
    pixels. See :class:`~chainlet.functions.pooling._roi.ROIMaxBase` for the gradient.
    """

    _func = 'roi_pooling_2d'
    _box_columns = 5
    _with_indices = False
    _empty_value = 0.0
    _corners = (1, 0, 3, 2)  # the boxes are (x1, y1, x2, y2) once the image index is split off
    _inclusive = True

    def __init__(self, outh: int, outw: int, spatial_scale: float) -> None:
        super().__init__((outh, outw), spatial_scale)


def roi_pooling_2d(x: Any, rois: Any, outh: int, outw: int, spatial_scale: float) -> Variable:
    """Max pooling over regions of interest (Fast R-CNN), boxes given with their image index.

    Each box ``(b, x1, y1, x2, y2)`` is scaled by ``spatial_scale`` and rounded to pixels
    (half to even), then split into ``outh x outw`` bins of about equal size (at least one
    pixel per RoI, inclusive ends); every bin holds the maximum of its pixels of image ``b``,
    per channel, or ``0`` when it lies outside the image. The gradient goes to the first
    maximum of each bin. Prefer :func:`roi_max_pooling_2d`, whose boxes are ``(y1, x1, y2,
    x2)`` with the image indices apart.

    Args:
        x: Float Variable or array of shape ``(N, C, H, W)``.
        rois: Array of shape ``(R, 5)`` and the dtype of ``x``: ``(b, x1, y1, x2, y2)``.
        outh: Number of bins along the height.
        outw: Number of bins along the width.
        spatial_scale: Factor from box coordinates to ``x``'s pixels.

    Returns:
        Variable of shape ``(R, C, outh, outw)``; only ``x`` gets a gradient.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0, 0, 0, 3, 1]], np.float32)
        >>> F.roi_pooling_2d(x, rois, 1, 2, 1.0).array
        array([[[[5., 7.]]]], dtype=float32)
    """
    return ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]


__all__ = ['ROIPooling2D', 'roi_pooling_2d']
