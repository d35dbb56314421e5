"""Image files and arrays, as Keras 3's ``keras.utils`` image helpers (also under
``keras.preprocessing.image``): :func:`load_img`, :func:`save_img`, :func:`img_to_array`,
:func:`array_to_img`, :func:`smart_resize` (``keras.preprocessing.image``), and
:func:`normalize` (``keras.utils.normalize``).

Images are PIL images (Pillow is an optional extra: ``pip install "chainlet-dl[image]"``);
arrays are ``(height, width, channels)`` unless ``data_format='channels_first'``
(``keras.config.image_data_format()`` by default) and ``keras.config.floatx()`` by default.

Example:
    >>> import io, numpy as np
    >>> from chainlet import keras
    >>> buffer = io.BytesIO()
    >>> keras.utils.save_img(buffer, np.zeros((4, 5, 3)), file_format='png')
    >>> _ = buffer.seek(0)
    >>> keras.utils.img_to_array(keras.utils.load_img(buffer)).shape
    (4, 5, 3)
"""
from __future__ import annotations

import io
import os
import pathlib
import warnings
from typing import Any, Optional

import numpy

from chainlet.keras import config

_INTERPOLATIONS = ('nearest', 'bilinear', 'bicubic', 'hamming', 'box', 'lanczos')


def _pil(where: str) -> Any:
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(f'keras.utils.{where} needs Pillow; install it with '
                          f'pip install "chainlet-dl[image]"') from e
    return Image


def _plain(x: Any) -> Any:
    # a Variable or a GPU array: its values on the host
    if hasattr(x, 'get') and not isinstance(x, numpy.ndarray):
        return x.get()
    return x


def array_to_img(x: Any, data_format: Optional[str] = None, scale: bool = True,
                 dtype: Any = None) -> Any:
    """A PIL image of the 3-D array ``x`` (1 channel: ``'L'``, 3: ``'RGB'``, 4: ``'RGBA'``).

    Args:
        x: ``(height, width, channels)`` (or channels first).
        data_format: ``'channels_last'`` or ``'channels_first'``.
        scale: Rescale the values to [0, 255] (min to 0, max to 255) first.
        dtype: Working dtype (``floatx()``).

    Raises:
        ValueError: ``x`` is not 3-D, or has another number of channels.
    """
    fmt = config.standardize_data_format(data_format)
    Image = _pil('array_to_img')
    x = numpy.array(_plain(x), dtype=dtype or config.floatx())
    if x.ndim != 3:
        raise ValueError(f'keras.utils.array_to_img: argument x: expected a 3-D array (one '
                         f'image), got shape {x.shape}')
    if fmt == 'channels_first':
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - numpy.min(x)
        top = numpy.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return Image.fromarray(x.astype('uint8'), 'RGBA')
    if channels == 3:
        return Image.fromarray(x.astype('uint8'), 'RGB')
    if channels == 1:
        if numpy.max(x) > 255:  # 16/32-bit grayscale
            return Image.fromarray(x[:, :, 0].astype('int32'), 'I')
        return Image.fromarray(x[:, :, 0].astype('uint8'), 'L')
    raise ValueError(f'keras.utils.array_to_img: argument x: expected 1, 3 or 4 channels, got '
                     f'{channels}')


def img_to_array(img: Any, data_format: Optional[str] = None, dtype: Any = None
                 ) -> numpy.ndarray:
    """The array of a PIL image: ``(height, width, channels)`` (a grayscale image gets one
    channel axis), or channels first.

    Raises:
        ValueError: The image is neither 2-D nor 3-D.
    """
    fmt = config.standardize_data_format(data_format)
    x = numpy.asarray(img, dtype=dtype or config.floatx())
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if fmt == 'channels_first' else x
    if x.ndim == 2:
        return x[None] if fmt == 'channels_first' else x[:, :, None]
    raise ValueError(f'keras.utils.img_to_array: unsupported image shape {x.shape}')


def save_img(path: Any, x: Any, data_format: Optional[str] = None,
             file_format: Optional[str] = None, scale: bool = True, **kwargs: Any) -> None:
    """Write the 3-D array ``x`` as an image file (format from the suffix of ``path`` unless
    ``file_format``; ``kwargs`` go to PIL's ``Image.save``)."""
    fmt = config.standardize_data_format(data_format)
    if file_format is None and isinstance(path, (str, os.PathLike)):
        file_format = pathlib.Path(path).suffix[1:].lower() or None
    if file_format and file_format.lower() == 'jpg':
        file_format = 'jpeg'
    img = array_to_img(x, data_format=fmt, scale=scale)
    if img.mode == 'RGBA' and file_format == 'jpeg':
        warnings.warn('keras.utils.save_img: JPEG has no alpha channel; the image is saved '
                      'as RGB', stacklevel=2)
        img = img.convert('RGB')
    img.save(path, format=file_format, **kwargs)


def load_img(path: Any, color_mode: str = 'rgb', target_size: Optional[tuple] = None,
             interpolation: str = 'nearest', keep_aspect_ratio: bool = False) -> Any:
    """Read an image file into a PIL image.

    Args:
        path: A path or a binary file object (``io.BytesIO``).
        color_mode: ``'rgb'``, ``'rgba'`` or ``'grayscale'``.
        target_size: ``(height, width)`` to resize to (``None``: as stored).
        interpolation: ``'nearest'``, ``'bilinear'``, ``'bicubic'``, ``'hamming'``, ``'box'``
            or ``'lanczos'``.
        keep_aspect_ratio: Crop the centre to the target's aspect ratio before resizing.
    """
    Image = _pil('load_img')
    if isinstance(path, io.IOBase) or hasattr(path, 'read'):
        img = Image.open(path)
    elif isinstance(path, (str, bytes, os.PathLike)):
        with open(path, 'rb') as f:
            img = Image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f'keras.utils.load_img: argument path: expected a path or a binary '
                        f'file object, got {type(path).__name__}')
    modes = {'grayscale': ('L', ('L', 'I;16', 'I')), 'rgba': ('RGBA', ('RGBA',)),
             'rgb': ('RGB', ('RGB',))}
    if color_mode not in modes:
        raise ValueError(f"keras.utils.load_img: argument color_mode: expected 'grayscale', "
                         f"'rgb' or 'rgba', got {color_mode!r}")
    mode, keep = modes[color_mode]
    if img.mode not in keep:
        img = img.convert(mode)
    if target_size is None:
        return img
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f'keras.utils.load_img: argument interpolation: expected one of '
                         f'{list(_INTERPOLATIONS)}, got {interpolation!r}')
    size = (target_size[1], target_size[0])
    if img.size == size:
        return img
    resample = getattr(Image, interpolation.upper())
    if not keep_aspect_ratio:
        return img.resize(size, resample)
    width, height = img.size
    crop_h = min(height, (width * size[1]) // size[0])
    crop_w = min(width, (height * size[0]) // size[1])
    top, left = (height - crop_h) // 2, (width - crop_w) // 2
    return img.resize(size, resample, box=[left, top, left + crop_w, top + crop_h])


def smart_resize(x: Any, size: Any, interpolation: str = 'bilinear',
                 data_format: str = 'channels_last', **kwargs: Any) -> Any:
    """Resize images to ``size = (height, width)`` without distorting them: the largest
    centred crop of the target's aspect ratio is resized (``keras.preprocessing.image.
    smart_resize``).

    Args:
        x: ``(height, width, channels)`` or a batch ``(n, height, width, channels)`` (or
            channels first).
        size: ``(height, width)``.
        interpolation: ``'bilinear'`` or ``'nearest'``.
        data_format: ``'channels_last'`` or ``'channels_first'``.

    Raises:
        ValueError: ``size`` is not 2 ints, or ``x`` is not 3-D or 4-D.
    """
    kwargs.pop('backend_module', None)
    if kwargs:
        raise TypeError(f'smart_resize: unexpected keyword argument(s) {sorted(kwargs)}')
    if len(size) != 2:
        raise ValueError(f'smart_resize: argument size: expected (height, width), got {size}')
    from chainlet.keras import ops
    img = ops.convert_to_tensor(x)
    if img.ndim not in (3, 4):
        raise ValueError(f'smart_resize: argument x: expected (height, width, channels) or a '
                         f'batch of them, got shape {tuple(img.shape)}')
    axes = (-3, -2) if data_format == 'channels_last' else (-2, -1)
    height, width = img.shape[axes[0]], img.shape[axes[1]]
    target_h, target_w = size
    crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
    crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
    top, left = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
    index = [slice(None)] * img.ndim
    index[axes[0]] = slice(top, top + crop_h)
    index[axes[1]] = slice(left, left + crop_w)
    img = img[tuple(index)]
    batched = img if img.ndim == 4 else img[None]
    out = ops.image.resize(batched, size, interpolation=interpolation,
                           data_format=data_format)
    return out if img.ndim == 4 else out[0]


def normalize(x: Any, axis: int = -1, order: int = 2) -> Any:
    """``x`` divided by its ``order``-norm along ``axis`` (zero norms left as 1), as
    ``keras.utils.normalize``: NumPy arrays stay NumPy; tensors go through
    ``keras.ops.normalize`` (differentiable).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.utils.normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
        array([[0.6, 0.8],
               [0. , 0. ]])
    """
    if isinstance(x, numpy.ndarray):
        norm = numpy.atleast_1d(numpy.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / numpy.expand_dims(norm, axis if axis is not None else -1)
    from chainlet.keras.ops.nn import normalize as _normalize
    return _normalize(x, axis=axis, order=order)


__all__ = ['array_to_img', 'img_to_array', 'load_img', 'normalize', 'save_img', 'smart_resize']
