"""Convolution layers: ``Conv1D/2D/3D``, ``Conv1D/2D/3DTranspose``, ``DepthwiseConv1D/2D``,
``SeparableConv1D/2D``.

Weights keep Keras's layouts (``Conv2D`` kernel ``(kh, kw, in / groups, filters)``,
``Conv2DTranspose`` kernel ``(kh, kw, filters, in)``, ``DepthwiseConv2D`` kernel
``(kh, kw, in, depth_multiplier)``); the layers transpose them at call time for chainlet's
channels-first convolution functions. Data is ``channels_last`` unless
``data_format='channels_first'``. ``'same'`` padding follows Keras exactly, including the
extra bottom/right cell when the total padding is odd.
"""
from __future__ import annotations

from typing import Any, Optional

import chainlet.functions as F
from chainlet.keras import activations, constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.layers._utils import (conv_output_length, dilated, from_channels_first,
                                          normalize_data_format, normalize_padding,
                                          normalize_tuple, same_padding, spatial_padding,
                                          to_channels_first)


def _kernel_to_chainer(kernel: Any, rank: int) -> Any:
    """Keras ``(*k, in, out)`` -> Chainer ``(out, in, *k)``."""
    return F.transpose(kernel, (rank + 1, rank) + tuple(range(rank)))


class _BaseConv(Layer):
    """Arguments and shape rules shared by the convolution layers."""

    rank = 2
    _paddings: tuple = ('valid', 'same')

    def __init__(self, filters: Optional[int], kernel_size: Any, strides: Any = 1,
                 padding: str = 'valid', data_format: Optional[str] = None,
                 dilation_rate: Any = 1, groups: int = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = 'glorot_uniform',
                 bias_initializer: Any = 'zeros', kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        kwargs.pop('lora_rank', None)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        where = f'{type(self).__name__} "{self.name}"'
        n = self.rank
        if filters is not None and (isinstance(filters, bool) or not isinstance(filters, int)
                                    or filters <= 0):
            raise ValueError(f'{where}: argument filters: expected a positive int, '
                             f'got {filters!r}')
        self.filters = filters
        self.kernel_size = normalize_tuple(kernel_size, n, 'kernel_size', where)
        self.strides = normalize_tuple(strides, n, 'strides', where)
        self.padding = normalize_padding(padding, where, self._paddings)
        self.data_format = normalize_data_format(data_format, where)
        self.dilation_rate = normalize_tuple(dilation_rate, n, 'dilation_rate', where)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f'{where}: strides > 1 is not supported together with '
                             f'dilation_rate > 1; got strides={self.strides} and '
                             f'dilation_rate={self.dilation_rate}')
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f'{where}: argument groups: expected a positive int, '
                             f'got {groups!r}')
        if filters is not None and filters % groups:
            raise ValueError(f'{where}: filters ({filters}) must be a multiple of groups '
                             f'({groups})')
        self.groups = groups
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=n + 2)

    @property
    def _where(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    @property
    def _channel_axis(self) -> int:
        return -1 if self.data_format == 'channels_last' else 1

    def _input_channels(self, input_shape: Any) -> int:
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(f'{self._where}: the channel dimension of the inputs must be '
                             f'known, got input shape {tuple(input_shape)}')
        return channels

    def _spatial(self, shape: Any) -> tuple:
        return tuple(shape[1:-1] if self.data_format == 'channels_last' else shape[2:])

    def _with_spatial(self, input_shape: Any, spatial: tuple, channels: Optional[int]) -> tuple:
        if self.data_format == 'channels_last':
            return (input_shape[0],) + spatial + (channels,)
        return (input_shape[0], channels) + spatial

    def _pads(self, spatial: tuple, kernel_size: tuple) -> list:
        if self.padding == 'valid':
            return [(0, 0)] * self.rank
        if self.padding == 'causal':
            return [(dilated(k, d) - 1, 0) for k, d in zip(kernel_size, self.dilation_rate)]
        return [same_padding(length, k, s, d) for length, k, s, d in
                zip(spatial, kernel_size, self.strides, self.dilation_rate)]

    def _bias_weight(self, size: int) -> Any:
        if not self.use_bias:
            return None
        return self.add_weight('bias', (size,), initializer=self.bias_initializer,
                               regularizer=self.bias_regularizer,
                               constraint=self.bias_constraint)

    def _convolve(self, x: Any, W: Any, b: Any, kernel_size: tuple, groups: int) -> Any:
        """Channels-first convolution of ``x`` with Keras's padding rule."""
        x, pad = spatial_padding(x, self._pads(tuple(x.shape[2:]), kernel_size))
        return F.convolution_nd(x, W, b, stride=self.strides, pad=pad, cover_all=False,
                                dilate=self.dilation_rate, groups=groups)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        spatial = tuple(conv_output_length(length, k, self.padding, s, d) for length, k, s, d
                        in zip(self._spatial(input_shape), self.kernel_size, self.strides,
                               self.dilation_rate))
        return self._with_spatial(input_shape, spatial, self._output_channels(input_shape))

    def _output_channels(self, input_shape: Any) -> Optional[int]:
        return self.filters

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            kernel_size=self.kernel_size, strides=self.strides, padding=self.padding,
            data_format=self.data_format, dilation_rate=self.dilation_rate,
            activation=activations.serialize(self.activation), use_bias=self.use_bias,
            bias_initializer=initializers.serialize(self.bias_initializer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer))
        return config


class _Conv(_BaseConv):
    filters: int  # never None here: only the depthwise layers pass None to _BaseConv

    def build(self, input_shape: Any) -> None:
        channels = self._input_channels(input_shape)
        if channels % self.groups:
            raise ValueError(f'{self._where}: the number of input channels ({channels}) must be '
                             f'a multiple of groups ({self.groups})')
        shape = self.kernel_size + (channels // self.groups, self.filters)
        self.kernel = self.add_weight('kernel', shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._bias_weight(self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = to_channels_first(inputs, self.data_format)
        y = self._convolve(x, _kernel_to_chainer(self.kernel, self.rank), self.bias,
                           self.kernel_size, self.groups)
        return self.activation(from_channels_first(y, self.data_format))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            filters=self.filters, groups=self.groups,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer))
        return config


_CONV_DOC = """{rank}-D convolution layer: ``activation(conv(inputs, kernel) + bias)``.

    Args:
        filters: Number of output channels.
        kernel_size: Int or tuple of {rank} ints.
        strides: Int or tuple of {rank} ints (``> 1`` excludes ``dilation_rate > 1``).
        padding: {paddings}.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.
        dilation_rate: Int or tuple of {rank} ints.
        groups: Number of channel groups (input channels and ``filters`` divisible by it).
        activation: Activation name or callable (``None``: linear).
        use_bias: Whether to add a bias.
        kernel_initializer, bias_initializer: ``'glorot_uniform'``, ``'zeros'`` by default.
        kernel_regularizer, bias_regularizer, activity_regularizer: Optional regularizers.
        kernel_constraint, bias_constraint: Optional constraints.

    Weights:
        ``kernel`` of shape ``kernel_size + (in_channels / groups, filters)``, ``bias``
        ``(filters,)``.
"""


class Conv1D(_Conv):
    __doc__ = _CONV_DOC.format(
        rank=1, paddings="``'valid'``, ``'same'`` or ``'causal'`` (left padding only, so that "
                         "output ``t`` sees inputs up to ``t``)") + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Conv1D(4, 3, padding='causal')(np.zeros((2, 10, 3), np.float32)).shape
        (2, 10, 4)
    """
    rank = 1
    _paddings = ('valid', 'same', 'causal')

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = 'valid',
                 data_format: Optional[str] = None, dilation_rate: Any = 1, groups: int = 1,
                 activation: Any = None, use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, **kwargs)


class Conv2D(_Conv):
    __doc__ = _CONV_DOC.format(rank=2, paddings="``'valid'`` or ``'same'``") + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Conv2D(8, 3, strides=2, padding='same', activation='relu')
        >>> layer(np.zeros((2, 7, 7, 3), np.float32)).shape
        (2, 4, 4, 8)
        >>> layer.kernel.shape
        (3, 3, 3, 8)
    """
    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = 'valid', data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), groups: int = 1, activation: Any = None,
                 use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, **kwargs)


class Conv3D(_Conv):
    __doc__ = _CONV_DOC.format(rank=3, paddings="``'valid'`` or ``'same'``") + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Conv3D(2, 3)(np.zeros((1, 5, 5, 5, 1), np.float32)).shape
        (1, 3, 3, 3, 2)
    """
    rank = 3

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1, 1),
                 padding: str = 'valid', data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1, 1), groups: int = 1, activation: Any = None,
                 use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         groups, activation, use_bias, **kwargs)


def transpose_output_length(length: Optional[int], kernel: int, padding: str, stride: int,
                            dilation: int = 1, output_padding: Optional[int] = None) -> Any:
    """Keras's output length of a transposed convolution along one axis."""
    if length is None:
        return None
    dk = dilated(kernel, dilation)
    if output_padding is None:
        if padding == 'valid':
            return length * stride + max(dk - stride, 0)
        return length * stride
    pad = dk // 2 if padding == 'same' else 0
    return (length - 1) * stride + dk - 2 * pad + output_padding


class _ConvTranspose(_BaseConv):
    filters: int  # never None here: only the depthwise layers pass None to _BaseConv

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = 'valid',
                 output_padding: Any = None, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, 1,
                         activation, use_bias, **kwargs)
        if output_padding is None:
            self.output_padding = None
        else:
            self.output_padding = normalize_tuple(output_padding, self.rank, 'output_padding',
                                                  self._where, allow_zero=True)
            if any(p >= s for p, s in zip(self.output_padding, self.strides)):
                raise ValueError(f'{self._where}: output_padding {self.output_padding} must be '
                                 f'smaller than strides {self.strides} on every axis')

    def build(self, input_shape: Any) -> None:
        channels = self._input_channels(input_shape)
        shape = self.kernel_size + (self.filters, channels)
        self.kernel = self.add_weight('kernel', shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._bias_weight(self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def _lengths(self, spatial: tuple) -> tuple:
        out_pad = self.output_padding or (None,) * self.rank
        return tuple(transpose_output_length(length, k, self.padding, s, d, p) for
                     length, k, s, d, p in zip(spatial, self.kernel_size, self.strides,
                                               self.dilation_rate, out_pad))

    def call(self, inputs: Any) -> Any:
        x = to_channels_first(inputs, self.data_format)
        # Keras (..., out, in) -> Chainer deconvolution (in, out, ...).
        W = _kernel_to_chainer(self.kernel, self.rank)
        full = F.deconvolution_nd(x, W, None, stride=self.strides, dilate=self.dilation_rate)
        # The full result has (l - 1) s + dk cells per axis; Keras keeps a window of it, placed
        # like TensorFlow's 'SAME'/'VALID' transposed convolution, and zero-extends at the end.
        slices, extend = [slice(None), slice(None)], [(0, 0), (0, 0)]
        for full_len, target in zip(full.shape[2:], self._lengths(tuple(x.shape[2:]))):
            total = full_len - target
            before = max(total, 0) // 2 if self.padding == 'same' else 0
            stop = min(before + target, full_len)
            slices.append(slice(before, stop))
            extend.append((0, target - (stop - before)))
        y = full[tuple(slices)]
        if any(after for _, after in extend):
            y = F.pad(y, tuple(extend))
        if self.bias is not None:
            y = y + F.reshape(self.bias, (1, -1) + (1,) * self.rank)
        return self.activation(from_channels_first(y, self.data_format))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return self._with_spatial(input_shape, self._lengths(self._spatial(input_shape)),
                                  self.filters)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            filters=self.filters, output_padding=self.output_padding,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer))
        return config


_TRANSPOSE_DOC = """{rank}-D transposed convolution ("deconvolution"): the gradient of a
    convolution with respect to its input, used to upsample.

    Args:
        filters: Number of output channels.
        kernel_size, strides, dilation_rate: Ints or tuples of {rank} ints.
        padding: ``'valid'``: output length ``l * s + max(k - s, 0)``; ``'same'``: ``l * s``.
        output_padding: Optional int or tuple: output length becomes
            ``(l - 1) * s + k - 2 * pad + output_padding`` (``pad = k // 2`` for 'same').
        data_format, activation, use_bias, initializers, regularizers, constraints: As in
            ``Conv{rank}D``.

    Weights:
        ``kernel`` of shape ``kernel_size + (filters, in_channels)`` (Keras's layout),
        ``bias`` ``(filters,)``.
"""


class Conv1DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(rank=1) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Conv1DTranspose(2, 3, strides=2)(np.zeros((1, 4, 3), np.float32)).shape
        (1, 9, 2)
    """
    rank = 1


class Conv2DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(rank=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Conv2DTranspose(4, 3, strides=2, padding='same')
        >>> layer(np.zeros((2, 5, 5, 3), np.float32)).shape
        (2, 10, 10, 4)
        >>> layer.kernel.shape
        (3, 3, 4, 3)
    """
    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = 'valid', output_padding: Any = None,
                 data_format: Optional[str] = None, dilation_rate: Any = (1, 1),
                 activation: Any = None, use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, output_padding, data_format,
                         dilation_rate, activation, use_bias, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    __doc__ = _TRANSPOSE_DOC.format(rank=3) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Conv3DTranspose(1, 2, strides=2)
        >>> layer(np.zeros((1, 2, 2, 2, 3), np.float32)).shape
        (1, 4, 4, 4, 1)
    """
    rank = 3


class _DepthwiseConv(_BaseConv):
    def __init__(self, kernel_size: Any, strides: Any = 1, padding: str = 'valid',
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = 'glorot_uniform', bias_initializer: Any = 'zeros',
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(None, kernel_size, strides, padding, data_format, dilation_rate, 1,
                         activation, use_bias, kernel_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        if isinstance(depth_multiplier, bool) or not isinstance(depth_multiplier, int) or \
                depth_multiplier <= 0:
            raise ValueError(f'{self._where}: argument depth_multiplier: expected a positive '
                             f'int, got {depth_multiplier!r}')
        self.depth_multiplier = depth_multiplier

    def build(self, input_shape: Any) -> None:
        channels = self._input_channels(input_shape)
        shape = self.kernel_size + (channels, self.depth_multiplier)
        self.kernel = self.add_weight('kernel', shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._bias_weight(channels * self.depth_multiplier)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def _depthwise(self, x: Any, kernel: Any, bias: Any) -> Any:
        channels = x.shape[1]
        # (*k, in, m) -> (*k, 1, in * m): output channel c * m + j is a grouped convolution
        # of input channel c with kernel[..., c, j] (groups = in).
        grouped = F.reshape(kernel, self.kernel_size + (1, -1))
        return self._convolve(x, _kernel_to_chainer(grouped, self.rank), bias,
                              self.kernel_size, channels)

    def call(self, inputs: Any) -> Any:
        x = to_channels_first(inputs, self.data_format)
        y = self._depthwise(x, self.kernel, self.bias)
        return self.activation(from_channels_first(y, self.data_format))

    def _output_channels(self, input_shape: Any) -> Optional[int]:
        channels = input_shape[self._channel_axis]
        return None if channels is None else channels * self.depth_multiplier

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=initializers.serialize(self.kernel_initializer),
            depthwise_regularizer=regularizers.serialize(self.kernel_regularizer))
        return config


_DEPTHWISE_DOC = """{rank}-D depthwise convolution: each input channel is convolved with its own
    ``depth_multiplier`` filters (output channel ``c * depth_multiplier + j``).

    Args:
        kernel_size, strides, dilation_rate: Ints or tuples of {rank} ints.
        padding: ``'valid'`` or ``'same'``.
        depth_multiplier: Filters per input channel.
        data_format, activation, use_bias: As in ``Conv{rank}D``.
        depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
        activity_regularizer, depthwise_constraint, bias_constraint: As the kernel ones of
            ``Conv{rank}D``.

    Weights:
        ``kernel`` of shape ``kernel_size + (in_channels, depth_multiplier)``, ``bias``
        ``(in_channels * depth_multiplier,)``.
"""


class DepthwiseConv1D(_DepthwiseConv):
    __doc__ = _DEPTHWISE_DOC.format(rank=1) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.DepthwiseConv1D(3, depth_multiplier=2)(
        ...     np.zeros((1, 6, 4), np.float32)).shape
        (1, 4, 8)
    """
    rank = 1


class DepthwiseConv2D(_DepthwiseConv):
    __doc__ = _DEPTHWISE_DOC.format(rank=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.DepthwiseConv2D(3, padding='same', depth_multiplier=2)
        >>> layer(np.zeros((1, 5, 5, 3), np.float32)).shape
        (1, 5, 5, 6)
        >>> layer.kernel.shape
        (3, 3, 3, 2)
    """
    rank = 2

    def __init__(self, kernel_size: Any, strides: Any = (1, 1), padding: str = 'valid',
                 depth_multiplier: int = 1, data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, activation, use_bias, **kwargs)


class _SeparableConv(_DepthwiseConv):
    filters: int  # set by __init__ after _DepthwiseConv's None

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = 'valid', data_format: Optional[str] = None,
                 dilation_rate: Any = 1, depth_multiplier: int = 1, activation: Any = None,
                 use_bias: bool = True, depthwise_initializer: Any = 'glorot_uniform',
                 pointwise_initializer: Any = 'glorot_uniform', bias_initializer: Any = 'zeros',
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(kernel_size, strides, padding, depth_multiplier, data_format,
                         dilation_rate, activation, use_bias,
                         depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        if isinstance(filters, bool) or not isinstance(filters, int) or filters <= 0:
            raise ValueError(f'{self._where}: argument filters: expected a positive int, '
                             f'got {filters!r}')
        self.filters = filters
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape: Any) -> None:
        channels = self._input_channels(input_shape)
        m = self.depth_multiplier
        self.depthwise_kernel = self.add_weight(
            'depthwise_kernel', self.kernel_size + (channels, m),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.pointwise_kernel = self.add_weight(
            'pointwise_kernel', (1,) * self.rank + (channels * m, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = self._bias_weight(self.filters)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        self.built = True

    def call(self, inputs: Any) -> Any:
        x = to_channels_first(inputs, self.data_format)
        h = self._depthwise(x, self.depthwise_kernel, None)
        y = F.convolution_nd(h, _kernel_to_chainer(self.pointwise_kernel, self.rank), self.bias)
        return self.activation(from_channels_first(y, self.data_format))

    def _output_channels(self, input_shape: Any) -> int:
        return self.filters

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            filters=self.filters,
            pointwise_initializer=initializers.serialize(self.pointwise_initializer),
            pointwise_regularizer=regularizers.serialize(self.pointwise_regularizer))
        return config


_SEPARABLE_DOC = """{rank}-D separable convolution: a depthwise convolution (each input channel
    with ``depth_multiplier`` filters) followed by a pointwise (1x1) convolution to ``filters``
    channels, then bias and activation.

    Args:
        filters: Number of output channels.
        kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier: As in
            ``DepthwiseConv{rank}D``.
        activation, use_bias: As in ``Conv{rank}D``.
        depthwise_*, pointwise_*, bias_*: Initializers, regularizers and constraints of the
            two kernels and the bias.

    Weights:
        ``depthwise_kernel`` ``kernel_size + (in, depth_multiplier)``, ``pointwise_kernel``
        ``(1,) * {rank} + (in * depth_multiplier, filters)``, ``bias`` ``(filters,)``.
"""


class SeparableConv1D(_SeparableConv):
    __doc__ = _SEPARABLE_DOC.format(rank=1) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.SeparableConv1D(5, 3)(np.zeros((1, 6, 2), np.float32)).shape
        (1, 4, 5)
    """
    rank = 1


class SeparableConv2D(_SeparableConv):
    __doc__ = _SEPARABLE_DOC.format(rank=2) + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.SeparableConv2D(8, 3, padding='same')
        >>> layer(np.zeros((1, 6, 6, 3), np.float32)).shape
        (1, 6, 6, 8)
        >>> [w.shape for w in layer.weights]
        [(3, 3, 3, 1), (1, 1, 3, 8), (8,)]
    """
    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = 'valid', data_format: Optional[str] = None,
                 dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, **kwargs)


Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution1DTranspose, Convolution2DTranspose, Convolution3DTranspose = (
    Conv1DTranspose, Conv2DTranspose, Conv3DTranspose)
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
