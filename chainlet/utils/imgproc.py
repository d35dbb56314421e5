"""Image helpers of the vision models (Chainer's ``chainer.utils.imgproc``).

:func:`oversample` is the ten-crop test-time augmentation of the Caffe model zoo, used by the
``predict`` methods of :mod:`chainlet.links.model.vision`. It works on host arrays only (the
models crop before moving the batch to their device).
"""
from __future__ import annotations

from typing import Sequence

import numpy


def oversample(images: numpy.ndarray, crop_dims: Sequence[int]) -> numpy.ndarray:
    """Crop each image at its four corners and its center, and mirror the five crops.

    Args:
        images: A batch ``(N, C, H, W)`` (or a sequence of ``(C, H, W)`` arrays of one shape).
        crop_dims: ``(h, w)`` of the crops; at most ``(H, W)``.

    Returns:
        A ``(10 N, C, h, w)`` array of the images' dtype. The ten crops of image ``i`` are rows
        ``10 i`` to ``10 i + 9``: top-left, top-right, bottom-left, bottom-right, center, then
        the same five flipped horizontally.

    Example:
        >>> import numpy as np
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> crops = oversample(x, (2, 2))
        >>> crops.shape
        (10, 1, 2, 2)
        >>> crops[4, 0].tolist(), crops[9, 0].tolist()   # center, and center mirrored
        ([[5.0, 6.0], [9.0, 10.0]], [[6.0, 5.0], [10.0, 9.0]])
    """
    images = numpy.asarray(images)
    if images.ndim != 4:
        raise ValueError(f'oversample: argument images: expected a batch of shape '
                         f'(N, C, H, W), got shape {images.shape}')
    n, channels, height, width = images.shape
    crop_h, crop_w = (int(d) for d in crop_dims)
    if not (0 < crop_h <= height and 0 < crop_w <= width):
        raise ValueError(f'oversample: argument crop_dims: expected positive sizes within the '
                         f'image size {(height, width)}, got {(crop_h, crop_w)}')
    # Corners, then the center (its offset rounded down, as Caffe's int(c - d / 2)).
    tops = (0, 0, height - crop_h, height - crop_h, (height - crop_h) // 2)
    lefts = (0, width - crop_w, 0, width - crop_w, (width - crop_w) // 2)
    crops = [images[:, :, t:t + crop_h, s:s + crop_w] for t, s in zip(tops, lefts)]
    crops += [crop[:, :, :, ::-1] for crop in crops]
    return numpy.stack(crops, axis=1).reshape(n * 10, channels, crop_h, crop_w)
