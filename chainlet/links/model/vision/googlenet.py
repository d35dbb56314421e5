"""GoogLeNet (Inception-v1, Szegedy et al., 2014), BVLC's model with Chainer's layer names.

The main path is ``conv1`` (7x7/2) ``pool1`` (3x3/2 max pooling and local response
normalization), ``conv2_reduce`` (1x1), ``conv2`` (3x3, then LRN), ``pool2``, the
:class:`~chainlet.links.Inception` modules ``inception_3a`` ... ``inception_5b`` with max
pooling ``pool3`` and ``pool4`` between the stages, ``pool5`` (7x7 average pooling),
``loss3_fc`` (dropout 0.4, 1000 classes) and ``prob`` (softmax). The two auxiliary classifiers
of training branch off ``inception_4a`` (``loss1_fc2``) and ``inception_4d`` (``loss2_fc2``):
5x5/3 average pooling, a 1x1 convolution, two fully connected layers. They come after
``prob`` in :attr:`GoogLeNet.available_layers` so that a plain forward never computes them.
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy

from chainlet import initializers
from chainlet.functions.activation.relu import relu
from chainlet.functions.activation.softmax import softmax
from chainlet.functions.noise.dropout import dropout
from chainlet.functions.normalization.local_response_normalization import (
    local_response_normalization)
from chainlet.functions.pooling.average_pooling_2d import average_pooling_2d
from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.links.connection.inception import Inception
from chainlet.links.connection.linear import Linear
from chainlet.links.model.vision import _common
from chainlet.links.model.vision._common import available  # noqa: F401
from chainlet.serializers import load_npz, save_npz

_MEAN = (104.0, 117.0, 123.0)

# (name, in_channels, out1, proj3, out3, proj5, out5, proj_pool) of BVLC's inception modules.
_INCEPTIONS = (
    ('3a', 192, 64, 96, 128, 16, 32, 32),
    ('3b', 256, 128, 128, 192, 32, 96, 64),
    ('4a', 480, 192, 96, 208, 16, 48, 64),
    ('4b', 512, 160, 112, 224, 24, 64, 64),
    ('4c', 512, 128, 128, 256, 24, 64, 64),
    ('4d', 512, 112, 144, 288, 32, 64, 64),
    ('4e', 528, 256, 160, 320, 32, 128, 128),
    ('5a', 832, 256, 160, 320, 32, 128, 128),
    ('5b', 832, 384, 192, 384, 48, 128, 128),
)


def prepare(image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
    """Convert an image to the input of :class:`GoogLeNet`.

    Args:
        image: A PIL image or an array (``(H, W)``, ``(H, W, 3)``, ``(3, H, W)`` or
            ``(1, H, W)``), RGB with values in ``[0, 255]``.
        size: The size to resize to, given to PIL's ``resize`` as Chainer does, so
            ``(width, height)``; ``None`` keeps the size.

    Returns:
        A BGR ``(3, H, W)`` array of ``chainlet.config.dtype`` minus BVLC's mean pixel
        ``(104, 117, 123)``.

    Example:
        >>> import numpy as np
        >>> y = prepare(np.full((8, 6, 3), 200, np.uint8), size=None)
        >>> y.shape, y[:, 0, 0].tolist()
        ((3, 8, 6), [96.0, 83.0, 77.0])
    """
    return _common.prepare(image, size, _MEAN)


def _max_pooling_2d(x: Any) -> Any:
    return max_pooling_2d(x, ksize=3, stride=2)


def _local_response_normalization(x: Any) -> Any:
    # Caffe's LRN divides alpha by the window size; Chainer's does not.
    return local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pooling_2d_k5(x: Any) -> Any:
    return average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_2d_k7(x: Any) -> Any:
    return average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x: Any) -> Any:
    return dropout(x, ratio=0.4)


class GoogLeNet(_common.VisionModel):
    """GoogLeNet as trained by BVLC, with Chainer's layer names.

    ``model(x, layers)`` returns a dict of the requested layers' outputs for a batch ``x``
    ``(N, 3, 224, 224)`` prepared by :func:`prepare`; ``extract(images, layers, size)`` and
    ``predict(images, oversample=True)`` start from RGB images (they need Pillow).

    Args:
        pretrained_model: ``None`` for random weights (``LeCunUniform(scale=1.0)``, Caffe's
            "xavier" filler, with zero biases; the inception modules keep their own
            defaults), the path of an ``.npz`` file of trained weights (saved by ``save_npz``
            from this model or Chainer's), or ``'auto'`` for ``bvlc_googlenet.npz`` in
            ``<dataset root>/pfnet/chainer/models``, made first from
            ``bvlc_googlenet.caffemodel`` in the same folder where only that exists and
            :mod:`chainlet.links.caffe` is available. Nothing is downloaded (Chainer
            downloads the Caffe model); a missing file raises ``OSError`` saying where to put
            it.

    Attributes:
        available_layers: ``conv1``, ``pool1``, ``conv2_reduce``, ``conv2``, ``pool2``,
            ``inception_3a``, ``inception_3b``, ``pool3``, ``inception_4a`` ...
            ``inception_4e``, ``pool4``, ``inception_5a``, ``inception_5b``, ``pool5``,
            ``loss3_fc``, ``prob``, ``loss1_fc2``, ``loss2_fc2``.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet.links import GoogLeNet
        >>> model = GoogLeNet(pretrained_model=None)
        >>> x = np.zeros((1, 3, 224, 224), np.float32)
        >>> with chainlet.using_config('train', False):
        ...     out = model(x, layers=['pool5', 'prob', 'loss1_fc2'])
        >>> out['pool5'].shape, out['prob'].shape, out['loss1_fc2'].shape
        ((1, 1024, 1, 1), (1, 1000), (1, 1000))
    """

    # The inception blocks, registered in a loop; declared for mypy.
    inc3a: Any
    inc3b: Any
    inc4a: Any
    inc4b: Any
    inc4c: Any
    inc4d: Any
    inc4e: Any
    inc5a: Any
    inc5b: Any

    _mean = _MEAN
    _removed_forward_arg = 'train'
    _branches = {'loss1_fc2': 'inception_4a', 'loss2_fc2': 'inception_4d'}

    def __init__(self, pretrained_model: Any = 'auto') -> None:
        super().__init__()
        if pretrained_model:
            # Weights about to be overwritten by pretrained ones need no random draw.
            kwargs: dict = {'initialW': initializers.Zero()}
        else:
            kwargs = {'initialW': initializers.LeCunUniform(scale=1.0)}
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, stride=2, pad=3, **kwargs)
            self.conv2_reduce = Convolution2D(64, 64, 1, **kwargs)
            self.conv2 = Convolution2D(64, 192, 3, stride=1, pad=1, **kwargs)
            for name, *channels in _INCEPTIONS:
                setattr(self, f'inc{name}', Inception(*channels))
            self.loss3_fc = Linear(1024, 1000, **kwargs)

            self.loss1_conv = Convolution2D(512, 128, 1, **kwargs)
            self.loss1_fc1 = Linear(2048, 1024, **kwargs)
            self.loss1_fc2 = Linear(1024, 1000, **kwargs)

            self.loss2_conv = Convolution2D(528, 128, 1, **kwargs)
            self.loss2_fc1 = Linear(2048, 1024, **kwargs)
            self.loss2_fc2 = Linear(1024, 1000, **kwargs)
        if pretrained_model == 'auto':
            _common.retrieve(self, 'bvlc_googlenet.npz', 'bvlc_googlenet.caffemodel',
                             GoogLeNet.convert_caffemodel_to_npz,
                             'http://dl.caffe.berkeleyvision.org/bvlc_googlenet.caffemodel')
        elif pretrained_model:
            load_npz(pretrained_model, self)

    @property
    def functions(self) -> Dict[str, List[Callable[[Any], Any]]]:
        """Layer name to the callables that compute it from the previous layer (the
        auxiliary classifiers start from ``inception_4a`` and ``inception_4d``)."""
        return collections.OrderedDict([
            ('conv1', [self.conv1, relu]),
            ('pool1', [_max_pooling_2d, _local_response_normalization]),
            ('conv2_reduce', [self.conv2_reduce, relu]),
            ('conv2', [self.conv2, relu, _local_response_normalization]),
            ('pool2', [_max_pooling_2d]),
            ('inception_3a', [self.inc3a]),
            ('inception_3b', [self.inc3b]),
            ('pool3', [_max_pooling_2d]),
            ('inception_4a', [self.inc4a]),
            ('inception_4b', [self.inc4b]),
            ('inception_4c', [self.inc4c]),
            ('inception_4d', [self.inc4d]),
            ('inception_4e', [self.inc4e]),
            ('pool4', [_max_pooling_2d]),
            ('inception_5a', [self.inc5a]),
            ('inception_5b', [self.inc5b]),
            ('pool5', [_average_pooling_2d_k7]),
            ('loss3_fc', [_dropout, self.loss3_fc]),
            ('prob', [softmax]),
            ('loss1_fc2', [_average_pooling_2d_k5, self.loss1_conv, relu,
                           self.loss1_fc1, relu, self.loss1_fc2]),
            ('loss2_fc2', [_average_pooling_2d_k5, self.loss2_conv, relu,
                           self.loss2_fc1, relu, self.loss2_fc2]),
        ])

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Convert BVLC's ``bvlc_googlenet.caffemodel`` to an ``.npz`` file that
        ``pretrained_model`` accepts (needs :mod:`chainlet.links.caffe`)."""
        caffemodel = _common.read_caffemodel(path_caffemodel,
                                             'GoogLeNet.convert_caffemodel_to_npz')
        model = GoogLeNet(pretrained_model=None)
        _transfer_googlenet(caffemodel, model)
        save_npz(path_npz, model, compression=False)

    def prepare(self, image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
        return prepare(image, size)


# Our link -> the Caffe layer whose W and b it takes.
_CAFFE_NAMES = {
    'conv1': 'conv1/7x7_s2', 'conv2_reduce': 'conv2/3x3_reduce', 'conv2': 'conv2/3x3',
    'loss1_conv': 'loss1/conv', 'loss1_fc1': 'loss1/fc', 'loss1_fc2': 'loss1/classifier',
    'loss2_conv': 'loss2/conv', 'loss2_fc1': 'loss2/fc', 'loss2_fc2': 'loss2/classifier',
    'loss3_fc': 'loss3/classifier',
}
_CAFFE_INCEPTION_NAMES = {
    'conv1': '1x1', 'proj3': '3x3_reduce', 'conv3': '3x3', 'proj5': '5x5_reduce',
    'conv5': '5x5', 'projp': 'pool_proj',
}


def _copy_wb(src: Any, dst: Any) -> None:
    dst.W.array[...] = src.W.array
    dst.b.array[...] = src.b.array


def _transfer_googlenet(src: Any, dst: GoogLeNet) -> None:
    """Copy the weights of BVLC's Caffe GoogLeNet ``src`` (a ``CaffeFunction``, whose layers
    are looked up by their Caffe names) into ``dst``."""
    for name, caffe in _CAFFE_NAMES.items():
        _copy_wb(src[caffe], getattr(dst, name))
    for name, *_ in _INCEPTIONS:
        module = getattr(dst, f'inc{name}')
        for child, caffe in _CAFFE_INCEPTION_NAMES.items():
            _copy_wb(src[f'inception_{name}/{caffe}'], getattr(module, child))
