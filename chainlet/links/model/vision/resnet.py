"""Residual networks (He et al., 2015): ResNet-50, -101 and -152 with Chainer's layer names.

``conv1`` (7x7/2 convolution, batch normalization, ReLU), ``pool1`` (3x3/2 max pooling),
``res2`` ... ``res5`` (:class:`BuildingBlock` s of bottlenecks), ``pool5`` (global average
pooling), ``fc6`` (1000 classes) and ``prob`` (softmax).
"""
from __future__ import annotations

import collections
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, cast

import numpy

from chainlet import initializers
from chainlet.functions.activation.relu import relu
from chainlet.functions.activation.softmax import softmax
from chainlet.functions.array.reshape import reshape
from chainlet.functions.pooling.average_pooling_2d import average_pooling_2d
from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlet.link import Chain
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.links.connection.linear import Linear
from chainlet.links.model.vision import _common
from chainlet.links.model.vision._common import available  # noqa: F401
from chainlet.links.normalization.batch_normalization import BatchNormalization
from chainlet.serializers import load_npz, save_npz
from chainlet.utils import argument
from chainlet.variable import Variable

_MEAN = (103.063, 115.903, 123.152)
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}


def prepare(image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
    """Convert an image to the input of the ResNet models (see
    :func:`chainlet.links.model.vision.vgg.prepare`; the mean is ResNet's)."""
    return _common.prepare(image, size, _MEAN)


def _conv_bn(owner: Chain, index: int, n_in: int, n_out: int, ksize: int, stride: int,
             pad: int, initialW: Any) -> None:
    setattr(owner, f'conv{index}', Convolution2D(n_in, n_out, ksize, stride, pad,
                                                 initialW=initialW, nobias=True))
    setattr(owner, f'bn{index}', BatchNormalization(n_out))


class BottleneckA(Chain):
    """Bottleneck that changes the size: 1x1, 3x3, 1x1 convolutions plus a projected
    shortcut (``conv4``/``bn4``). ``downsample_fb`` puts the stride on the 3x3 convolution
    (the fb.resnet.torch variant) instead of the first 1x1."""

    # Registered by _conv_bn; declared for mypy.
    conv1: Any
    conv2: Any
    conv3: Any
    conv4: Any
    bn1: Any
    bn2: Any
    bn3: Any
    bn4: Any

    def __init__(self, in_channels: int, mid_channels: int, out_channels: int,
                 stride: int = 2, initialW: Any = None, downsample_fb: bool = False) -> None:
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        with self.init_scope():
            _conv_bn(self, 1, in_channels, mid_channels, 1, stride_1x1, 0, initialW)
            _conv_bn(self, 2, mid_channels, mid_channels, 3, stride_3x3, 1, initialW)
            _conv_bn(self, 3, mid_channels, out_channels, 1, 1, 0, initialW)
            _conv_bn(self, 4, in_channels, out_channels, 1, stride, 0, initialW)

    def forward(self, x: Any) -> Variable:
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu(h + self.bn4(self.conv4(x)))


class BottleneckB(Chain):
    """Bottleneck keeping the size: 1x1, 3x3, 1x1 convolutions plus the identity."""

    # Registered by _conv_bn; declared for mypy.
    conv1: Any
    conv2: Any
    conv3: Any
    bn1: Any
    bn2: Any
    bn3: Any

    def __init__(self, in_channels: int, mid_channels: int, initialW: Any = None) -> None:
        super().__init__()
        with self.init_scope():
            _conv_bn(self, 1, in_channels, mid_channels, 1, 1, 0, initialW)
            _conv_bn(self, 2, mid_channels, mid_channels, 3, 1, 1, initialW)
            _conv_bn(self, 3, mid_channels, in_channels, 1, 1, 0, initialW)

    def forward(self, x: Any) -> Variable:
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        return relu(self.bn3(self.conv3(h)) + x)


class BuildingBlock(Chain):
    """A :class:`BottleneckA` ``a`` followed by ``n_layers - 1`` :class:`BottleneckB`
    ``b1``, ``b2``, ...

    Args:
        n_layers: Number of bottlenecks (the deprecated keyword ``n_layer`` is still accepted,
            with a ``DeprecationWarning``, as in Chainer 7).
        in_channels: Input channels.
        mid_channels: Channels inside the bottlenecks.
        out_channels: Output channels.
        stride: Stride of the first bottleneck.
        initialW: Initializer of the convolutions.
        downsample_fb: Stride on the 3x3 convolution (Facebook's ResNet) rather than on the
            first 1x1 one (the original MSRA ResNet).
    """

    def __init__(self, n_layers: Optional[int] = None, in_channels: Any = None,
                 mid_channels: Any = None, out_channels: Any = None,
                 stride: Any = None, initialW: Any = None, downsample_fb: Any = None,
                 **kwargs: Any) -> None:
        super().__init__()
        if 'n_layer' in kwargs:
            warnings.warn('BuildingBlock: argument n_layer is deprecated; use n_layers',
                          DeprecationWarning, stacklevel=2)
            n_layers = kwargs.pop('n_layer')
        argument.assert_kwargs_empty(kwargs)
        if not isinstance(n_layers, int):
            raise TypeError(f'BuildingBlock: argument n_layers: expected an int, got '
                            f'{type(n_layers).__name__}')
        if n_layers < 1:
            raise ValueError(f'BuildingBlock: argument n_layers: expected at least 1, got '
                             f'{n_layers}')
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW,
                                 downsample_fb)
            self._forward = ['a']
            for i in range(1, n_layers):
                setattr(self, f'b{i}', BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(f'b{i}')

    def forward(self, x: Any) -> Variable:
        """Apply the bottlenecks in order."""
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


def _global_average_pooling_2d(x: Any) -> Variable:
    n, c, h, w = x.shape
    return reshape(average_pooling_2d(x, (h, w), stride=1), (n, c))


def _max_pooling(x: Any) -> Any:
    return max_pooling_2d(x, ksize=3, stride=2)


class ResNetLayers(_common.VisionModel):
    """ResNet of 50, 101 or 152 layers (MSRA's, He et al. 2015), with Chainer's layer names.

    Args:
        pretrained_model: ``None`` for random weights (``HeNormal(scale=1.0)`` convolutions),
            the path of an ``.npz`` file of trained weights (saved by ``save_npz`` from this
            model or Chainer's), or the name of a ``.caffemodel``: then
            ``ResNet-{n_layers}-model.npz`` in ``<dataset root>/pfnet/chainer/models`` is
            loaded, made first from that ``.caffemodel`` (looked for in the same folder) where
            only the latter exists and :mod:`chainlet.links.caffe` is available. Nothing is
            downloaded; a missing file raises ``OSError`` saying where to put it.
        n_layers: 50, 101 or 152.
        downsample_fb: Stride 2 on the 3x3 convolutions (Facebook's ResNet) rather than on the
            first 1x1 ones (MSRA's original, whose weights Chainer distributes).

    Attributes:
        available_layers: ``['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5', 'pool5',
            'fc6', 'prob']``.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet.links.model.vision.resnet import ResNet50Layers
        >>> model = ResNet50Layers(pretrained_model=None)
        >>> x = np.zeros((1, 3, 32, 32), np.float32)
        >>> with chainlet.using_config('train', False):
        ...     out = model(x, layers=['res3', 'pool5'])
        >>> out['res3'].shape, out['pool5'].shape
        ((1, 512, 4, 4), (1, 2048))
    """

    _mean = _MEAN

    def __init__(self, pretrained_model: Any, n_layers: int,
                 downsample_fb: bool = False) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(f'ResNetLayers: argument n_layers: expected 50, 101 or 152, got '
                             f'{n_layers}')
        # Weights about to be overwritten by pretrained ones need no random draw.
        init = initializers.Zero() if pretrained_model else initializers.HeNormal(scale=1.0)
        blocks = _BLOCKS[n_layers]
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, 2, 3, initialW=init)
            self.bn1 = BatchNormalization(64)
            self.res2 = BuildingBlock(blocks[0], 64, 64, 256, 1, init, downsample_fb)
            self.res3 = BuildingBlock(blocks[1], 256, 128, 512, 2, init, downsample_fb)
            self.res4 = BuildingBlock(blocks[2], 512, 256, 1024, 2, init, downsample_fb)
            self.res5 = BuildingBlock(blocks[3], 1024, 512, 2048, 2, init, downsample_fb)
            self.fc6 = Linear(2048, 1000)
        if pretrained_model and str(pretrained_model).endswith('.caffemodel'):
            _common.retrieve(
                self, f'ResNet-{n_layers}-model.npz', str(pretrained_model),
                lambda caffemodel, npz: ResNetLayers.convert_caffemodel_to_npz(
                    caffemodel, npz, n_layers),
                'https://github.com/KaimingHe/deep-residual-networks')
        elif pretrained_model:
            load_npz(pretrained_model, self)

    @property
    def functions(self) -> Dict[str, List[Callable[[Any], Any]]]:
        """Layer name to the callables that compute it from the previous layer."""
        return collections.OrderedDict([
            ('conv1', [self.conv1, self.bn1, relu]),
            ('pool1', [_max_pooling]),
            ('res2', [self.res2]),
            ('res3', [self.res3]),
            ('res4', [self.res4]),
            ('res5', [self.res5]),
            ('pool5', [_global_average_pooling_2d]),
            ('fc6', [self.fc6]),
            ('prob', [softmax]),
        ])

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str,
                                  n_layers: int = 50) -> None:
        """Convert MSRA's ``ResNet-{n_layers}-model.caffemodel`` to an ``.npz`` file that
        ``pretrained_model`` accepts (needs :mod:`chainlet.links.caffe`)."""
        if n_layers not in _BLOCKS:
            raise ValueError(f'ResNetLayers.convert_caffemodel_to_npz: argument n_layers: '
                             f'expected 50, 101 or 152, got {n_layers}')
        caffemodel = _common.read_caffemodel(path_caffemodel,
                                             'ResNetLayers.convert_caffemodel_to_npz')
        model = ResNetLayers(None, n_layers)
        _transfer_resnet(caffemodel, model, n_layers)
        save_npz(path_npz, model, compression=False)

    def prepare(self, image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
        return prepare(image, size)


class ResNet50Layers(ResNetLayers):
    """ResNet-50 (``ResNetLayers`` with 50 layers); ``pretrained_model='auto'`` stands for
    ``'ResNet-50-model.caffemodel'`` (see :class:`ResNetLayers`)."""

    def __init__(self, pretrained_model: Any = 'auto', downsample_fb: bool = False) -> None:
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-50-model.caffemodel'
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """ResNet-101 (``ResNetLayers`` with 101 layers); ``pretrained_model='auto'`` stands for
    ``'ResNet-101-model.caffemodel'`` (see :class:`ResNetLayers`)."""

    def __init__(self, pretrained_model: Any = 'auto', downsample_fb: bool = False) -> None:
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-101-model.caffemodel'
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """ResNet-152 (``ResNetLayers`` with 152 layers); ``pretrained_model='auto'`` stands for
    ``'ResNet-152-model.caffemodel'`` (see :class:`ResNetLayers`)."""

    def __init__(self, pretrained_model: Any = 'auto', downsample_fb: bool = False) -> None:
        if pretrained_model == 'auto':
            pretrained_model = 'ResNet-152-model.caffemodel'
        super().__init__(pretrained_model, 152, downsample_fb)


# Caffe layer names of MSRA's models: the bottlenecks of stage s are 'sa', then 'sb', 'sc', ...
# (ResNet-50) or 'sb1', 'sb2', ... (the deeper stages of ResNet-101 and -152).
def _caffe_block_names(stage: int, count: int, numbered: bool) -> List[str]:
    if numbered:
        return [f'{stage}a'] + [f'{stage}b{i}' for i in range(1, count)]
    return [f'{stage}{chr(ord("a") + i)}' for i in range(count)]


def _copy_conv_bn(src: Any, conv: Any, bn: Any, conv_name: str, bn_name: str,
                  scale_name: str) -> None:
    # Caffe splits batch normalization into BatchNorm (statistics) and Scale (gamma, beta).
    conv.W.array[...] = getattr(src, conv_name).W.array
    bn.avg_mean[...] = getattr(src, bn_name).avg_mean
    bn.avg_var[...] = getattr(src, bn_name).avg_var
    bn.gamma.array[...] = getattr(src, scale_name).W.array
    bn.beta.array[...] = getattr(src, scale_name).bias.b.array


def _transfer_resnet(src: Any, dst: ResNetLayers, n_layers: int) -> None:
    """Copy the weights of MSRA's Caffe ResNet ``src`` (a ``CaffeFunction``) into ``dst``."""
    _copy_conv_bn(src, dst.conv1, dst.bn1, 'conv1', 'bn_conv1', 'scale_conv1')
    bias = getattr(dst.conv1, 'b', None)
    if bias is not None and getattr(src.conv1, 'b', None) is not None:
        bias.array[...] = src.conv1.b.array
    for stage, block in zip((2, 3, 4, 5), (dst.res2, dst.res3, dst.res4, dst.res5)):
        count = len(block._forward)
        numbered = n_layers > 50 and stage in (3, 4)
        for name, caffe in zip(block._forward, _caffe_block_names(stage, count, numbered)):
            bottleneck = getattr(block, name)
            branches = ['2a', '2b', '2c'] + (['1'] if name == 'a' else [])
            for index, branch in enumerate(branches, 1):
                _copy_conv_bn(src, getattr(bottleneck, f'conv{index}'),
                              getattr(bottleneck, f'bn{index}'), f'res{caffe}_branch{branch}',
                              f'bn{caffe}_branch{branch}', f'scale{caffe}_branch{branch}')
    dst.fc6.W.array[...] = src.fc1000.W.array
    cast(Any, dst.fc6.b).array[...] = src.fc1000.b.array  # fc6 has a bias
