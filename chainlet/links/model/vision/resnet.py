"""Residual networks (He et al., 2015): ResNet-50, -101 and -152 with Chainer's layer names.

``conv1`` (7x7/2 convolution, batch normalization, ReLU), ``pool1`` (3x3/2 max pooling),
``res2`` ... ``res5`` (:class:`BuildingBlock` s of bottlenecks), ``pool5`` (global average
pooling), ``fc6`` (1000 classes) and ``prob`` (softmax).
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Dict, List, Optional, Sequence

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
    """A :class:`BottleneckA` ``a`` followed by ``n_layer - 1`` :class:`BottleneckB`
    ``b1``, ``b2``, ...; :attr:`forward` lists them in order (Chainer's convention, so the
    block is called through ``__call__``)."""

    def __init__(self, n_layer: int, in_channels: int, mid_channels: int, out_channels: int,
                 stride: int, initialW: Any = None, downsample_fb: bool = False) -> None:
        super().__init__()
        with self.init_scope():
            self.a = BottleneckA(in_channels, mid_channels, out_channels, stride, initialW,
                                 downsample_fb)
            self._forward = ['a']
            for i in range(1, n_layer):
                setattr(self, f'b{i}', BottleneckB(out_channels, mid_channels, initialW))
                self._forward.append(f'b{i}')

    @property
    def forward(self) -> List[Chain]:  # type: ignore[override]
        """The bottlenecks in order."""
        return [getattr(self, name) for name in self._forward]

    def __call__(self, x: Any) -> Variable:  # type: ignore[override]
        for link in self.forward:
            x = link(x)
        return x


def _global_average_pooling_2d(x: Any) -> Variable:
    n, c, h, w = x.shape
    return reshape(average_pooling_2d(x, (h, w), stride=1), (n, c))


def _max_pooling(x: Any) -> Any:
    return max_pooling_2d(x, ksize=3, stride=2)


class ResNetLayers(_common.VisionModel):
    """ResNet of 50, 101 or 152 layers.

    Args:
        pretrained_model: ``None`` for random weights (``HeNormal``), a path to an ``.npz``
            file, or ``'auto'`` for ``ResNet-{n}-model.npz`` in the dataset directory
            ``pfnet/chainer/models`` (chainlet does not convert the Caffe model itself).
        n_layers: 50, 101 or 152.
        downsample_fb: Stride on the 3x3 convolutions (fb.resnet.torch) instead of the 1x1.

    Example:
        >>> from chainlet.links.model.vision.resnet import ResNet50Layers
        >>> model = ResNet50Layers(pretrained_model=None)
        >>> model.available_layers
        ['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5', 'pool5', 'fc6', 'prob']
    """

    _mean = _MEAN

    def __init__(self, pretrained_model: Any = 'auto', n_layers: int = 50,
                 downsample_fb: bool = False) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(f'ResNetLayers: argument n_layers: expected 50, 101 or 152, got '
                             f'{n_layers}')
        init = initializers.Zero() if pretrained_model else initializers.HeNormal(scale=1.0)
        blocks = _BLOCKS[n_layers]
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, 2, 3, initialW=init)
            self.bn1 = BatchNormalization(64)
            self.res2 = BuildingBlock(blocks[0], 64, 64, 256, 1, init, downsample_fb)
            self.res3 = BuildingBlock(blocks[1], 256, 128, 512, 2, init, downsample_fb)
            self.res4 = BuildingBlock(blocks[2], 512, 256, 1024, 2, init, downsample_fb)
            self.res5 = BuildingBlock(blocks[3], 1024, 512, 2048, 2, init, downsample_fb)
            self.fc6 = Linear(2048, 1000, initialW=init)
        if pretrained_model:
            _common.load_pretrained(self, pretrained_model, f'ResNet-{n_layers}-model.npz')

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

    def prepare(self, image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
        return prepare(image, size)


class ResNet50Layers(ResNetLayers):
    """ResNet-50; see :class:`ResNetLayers`."""

    def __init__(self, pretrained_model: Any = 'auto', downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """ResNet-101; see :class:`ResNetLayers`."""

    def __init__(self, pretrained_model: Any = 'auto', downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """ResNet-152; see :class:`ResNetLayers`."""

    def __init__(self, pretrained_model: Any = 'auto', downsample_fb: bool = False) -> None:
        super().__init__(pretrained_model, 152, downsample_fb)
