"""Pooling layers: ``MaxPooling1D/2D/3D``, ``AveragePooling1D/2D/3D`` and the global poolings.

``'same'`` padding follows Keras (TensorFlow): the padded cells never win a maximum and are left
out of an average; an odd total padding puts the extra cell at the bottom/right.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.layers._utils import (conv_output_length, from_channels_first, get_mask,
                                          normalize_data_format, normalize_padding,
                                          normalize_tuple, same_padding, spatial_padding,
                                          to_channels_first)


class _Pooling(Layer):
    rank = 2
    _mode = 'max'

    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = 'valid',
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = f'{type(self).__name__} "{self.name}"'
        self.pool_size = normalize_tuple(pool_size, self.rank, 'pool_size', where)
        self.strides = self.pool_size if strides is None else \
            normalize_tuple(strides, self.rank, 'strides', where)
        self.padding = normalize_padding(padding, where)
        self.data_format = normalize_data_format(data_format, where)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs: Any) -> Any:
        x = to_channels_first(inputs, self.data_format)
        spatial = tuple(x.shape[2:])
        if self.padding == 'valid':
            pads = [(0, 0)] * self.rank
        else:
            pads = [same_padding(n, k, s) for n, k, s in zip(spatial, self.pool_size,
                                                             self.strides)]
        if self._mode == 'max':
            # The lowest finite value never wins against a real cell (every window holds one).
            low = float(numpy.finfo(x.dtype).min)
            x, pad = spatial_padding(x, pads, value=low)
            y = F.max_pooling_nd(x, self.pool_size, self.strides, pad, cover_all=False)
        else:
            padded, pad = spatial_padding(x, pads)
            y = F.average_pooling_nd(padded, self.pool_size, self.strides, pad, pad_value=None)
            if padded is not x:
                # Explicitly padded zeros counted in the mean: rescale by window size / real
                # cells.
                xp = y.xp
                ones = xp.ones((1, 1) + spatial, x.dtype)
                width = ((0, 0), (0, 0)) + tuple(pads)
                real = F.average_pooling_nd(xp.pad(ones, width), self.pool_size,
                                            self.strides).array
                y = y * (1 / real).astype(x.dtype)
        return from_channels_first(y, self.data_format)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        if self.data_format == 'channels_last':
            spatial, channels = tuple(input_shape[1:-1]), input_shape[-1]
        else:
            spatial, channels = tuple(input_shape[2:]), input_shape[1]
        out = tuple(conv_output_length(n, k, self.padding, s)
                    for n, k, s in zip(spatial, self.pool_size, self.strides))
        if self.data_format == 'channels_last':
            return (input_shape[0],) + out + (channels,)
        return (input_shape[0], channels) + out

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(pool_size=self.pool_size, strides=self.strides, padding=self.padding,
                      data_format=self.data_format)
        return config


_POOL_DOC = """{kind} pooling over windows of ``pool_size`` on the {rank} spatial axis/axes.

    Args:
        pool_size: Int or tuple of {rank} ints (default {default}).
        strides: Int or tuple; ``None`` means ``pool_size``.
        padding: ``'valid'`` or ``'same'`` (output length ``ceil(length / stride)``; padded
            cells are ignored).
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.
"""


class MaxPooling1D(_Pooling):
    __doc__ = _POOL_DOC.format(kind='Max', rank=1, default=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> x = np.array([[[1.0], [3.0], [2.0], [5.0], [4.0]]], np.float32)
        >>> keras.layers.MaxPooling1D(2, padding='same')(x).array[0, :, 0]
        array([3., 5., 4.], dtype=float32)
    """
    rank = 1


class MaxPooling2D(_Pooling):
    __doc__ = _POOL_DOC.format(kind='Max', rank=2, default='``(2, 2)``') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.MaxPooling2D()(np.zeros((2, 5, 5, 3), np.float32)).shape
        (2, 2, 2, 3)
    """
    rank = 2

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = 'valid',
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling3D(_Pooling):
    __doc__ = _POOL_DOC.format(kind='Max', rank=3, default='``(2, 2, 2)``') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.MaxPooling3D()(np.zeros((1, 4, 4, 4, 2), np.float32)).shape
        (1, 2, 2, 2, 2)
    """
    rank = 3

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = 'valid',
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(_Pooling):
    __doc__ = _POOL_DOC.format(kind='Average', rank=1, default=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> x = np.array([[[1.0], [3.0], [2.0], [5.0], [4.0]]], np.float32)
        >>> keras.layers.AveragePooling1D(2, padding='same')(x).array[0, :, 0]
        array([2. , 3.5, 4. ], dtype=float32)
    """
    rank = 1
    _mode = 'average'


class AveragePooling2D(_Pooling):
    __doc__ = _POOL_DOC.format(kind='Average', rank=2, default='``(2, 2)``') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.AveragePooling2D(3, strides=1)(np.zeros((2, 5, 5, 3), np.float32)).shape
        (2, 3, 3, 3)
    """
    rank = 2
    _mode = 'average'

    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = 'valid',
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling):
    __doc__ = _POOL_DOC.format(kind='Average', rank=3, default='``(2, 2, 2)``') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.AveragePooling3D()(np.zeros((1, 4, 4, 4, 2), np.float32)).shape
        (1, 2, 2, 2, 2)
    """
    rank = 3
    _mode = 'average'

    def __init__(self, pool_size: Any = (2, 2, 2), strides: Any = None, padding: str = 'valid',
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling(Layer):
    rank = 2
    _mode = 'max'

    def __init__(self, data_format: Optional[str] = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format,
                                                 f'{type(self).__name__} "{self.name}"')
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def _axes(self) -> tuple:
        start = 1 if self.data_format == 'channels_last' else 2
        return tuple(range(start, start + self.rank))

    def call(self, inputs: Any) -> Any:
        if self._mode == 'max':
            return F.max(inputs, axis=self._axes, keepdims=self.keepdims)
        mask = get_mask(inputs) if self.rank == 1 else None
        if mask is None:
            return F.mean(inputs, axis=self._axes, keepdims=self.keepdims)
        # Keras averages only the unmasked time steps of a masked sequence.
        axis = self._axes[0]
        xp = inputs.xp
        weights = xp.asarray(mask, inputs.dtype)
        weights = weights[:, :, None] if axis == 1 else weights[:, None, :]
        total = F.sum(inputs * weights, axis=axis, keepdims=self.keepdims)
        count = xp.maximum(weights.sum(axis=axis, keepdims=self.keepdims), 1)
        return total * (1 / count).astype(inputs.dtype)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        axes = self._axes
        if self.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(input_shape))
        return tuple(d for i, d in enumerate(input_shape) if i not in axes)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(data_format=self.data_format, keepdims=self.keepdims)
        return config


_GLOBAL_DOC = """Global {kind} pooling over the {rank} spatial axis/axes.

    Args:
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.
        keepdims: Keep the pooled axes with size 1.
"""


class GlobalMaxPooling1D(_GlobalPooling):
    __doc__ = _GLOBAL_DOC.format(kind='max', rank=1) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.GlobalMaxPooling1D()(np.zeros((2, 7, 3), np.float32)).shape
        (2, 3)
    """
    rank = 1


class GlobalMaxPooling2D(_GlobalPooling):
    __doc__ = _GLOBAL_DOC.format(kind='max', rank=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.GlobalMaxPooling2D(keepdims=True)(np.zeros((2, 4, 4, 3))).shape
        (2, 1, 1, 3)
    """
    rank = 2


class GlobalAveragePooling1D(_GlobalPooling):
    __doc__ = _GLOBAL_DOC.format(kind='average', rank=1) + """
    A sequence masked by ``Embedding(mask_zero=True)`` is averaged over its unmasked steps.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.GlobalAveragePooling1D()(np.ones((2, 7, 3), np.float32)).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    rank = 1
    _mode = 'average'


class GlobalAveragePooling2D(_GlobalPooling):
    __doc__ = _GLOBAL_DOC.format(kind='average', rank=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.GlobalAveragePooling2D()(np.zeros((2, 4, 4, 3), np.float32)).shape
        (2, 3)
    """
    rank = 2
    _mode = 'average'


class GlobalMaxPooling3D(_GlobalPooling):
    __doc__ = _GLOBAL_DOC.format(kind='max', rank=3)
    rank = 3


class GlobalAveragePooling3D(_GlobalPooling):
    __doc__ = _GLOBAL_DOC.format(kind='average', rank=3)
    rank = 3
    _mode = 'average'


MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool3D, GlobalAvgPool3D = GlobalMaxPooling3D, GlobalAveragePooling3D
