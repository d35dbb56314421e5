"""VGG16 and VGG19 (Simonyan and Zisserman, 2014) with Chainer's layer names.

``conv1_1`` ... ``conv5_3`` (3x3 convolutions, ReLU), ``pool1`` ... ``pool5`` (2x2 max
pooling), ``fc6``, ``fc7`` (4096 units, ReLU, dropout), ``fc8`` (1000 classes) and ``prob``
(softmax). Inputs are BGR images minus the ImageNet mean, prepared by :func:`prepare`.
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy

from chainlet import initializers
from chainlet.functions.activation.relu import relu
from chainlet.functions.activation.softmax import softmax
from chainlet.functions.noise.dropout import dropout
from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.links.connection.linear import Linear
from chainlet.links.model.vision import _common
from chainlet.links.model.vision._common import available  # noqa: F401
from chainlet.serializers import load_npz, save_npz

_MEAN = (103.939, 116.779, 123.68)
_BLOCKS = {16: (2, 2, 3, 3, 3), 19: (2, 2, 4, 4, 4)}
_CHANNELS = (64, 128, 256, 512, 512)


def prepare(image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
    """Convert an image to the input of the VGG models.

    Args:
        image: A PIL image or an array (``(H, W, 3)``, ``(3, H, W)``, ``(1, H, W)`` or
            ``(H, W)``), RGB with values in ``[0, 255]``.
        size: The size to resize to, given to PIL's ``resize`` as Chainer does, so
            ``(width, height)``; ``None`` keeps the size.

    Returns:
        A BGR ``(3, H, W)`` array of ``chainlet.config.dtype`` minus the ImageNet mean.
    """
    return _common.prepare(image, size, _MEAN)


def _max_pooling_2d(x: Any) -> Any:
    return max_pooling_2d(x, ksize=2)


class VGGLayers(_common.VisionModel):
    """VGG network of 16 or 19 layers.

    Args:
        pretrained_model: ``None`` for random weights (``Normal(0.01)`` weights and zero
            biases, as in the paper), the path of an ``.npz`` file of trained weights (saved
            by ``save_npz`` from this model or Chainer's), or ``'auto'`` for
            ``VGG_ILSVRC_{16,19}_layers.npz`` in ``<dataset root>/pfnet/chainer/models``,
            made first from ``VGG_ILSVRC_{16,19}_layers.caffemodel`` in the same folder where
            only that exists and :mod:`chainlet.links.caffe` is available. Nothing is
            downloaded (Chainer downloads the Caffe model); a missing file raises ``OSError``
            saying where to put it.
        n_layers: 16 or 19.

    Attributes:
        available_layers: ``conv1_1``, ``conv1_2``, ``pool1``, ..., ``pool5``, ``fc6``,
            ``fc7``, ``fc8``, ``prob``. ``extract`` returns ``fc7`` by default.

    Example:
        >>> import numpy as np
        >>> from chainlet.links.model.vision.vgg import VGG16Layers
        >>> model = VGG16Layers(pretrained_model=None)  # doctest: +SKIP
        >>> len(model.available_layers), model.available_layers[-3:]  # doctest: +SKIP
        (22, ['fc7', 'fc8', 'prob'])
        >>> prepare(np.zeros((32, 32, 3), np.uint8)).shape    # BGR, mean subtracted, resized
        (3, 224, 224)
    """

    _mean = _MEAN
    _extract_layers = ('fc7',)

    def __init__(self, pretrained_model: Any = 'auto', n_layers: int = 16) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(f'VGGLayers: argument n_layers: expected 16 or 19, got {n_layers}')
        self.n_layers = n_layers
        if pretrained_model:
            # The weights are overwritten: skip drawing random ones.
            kwargs: dict = {'initialW': initializers.Zero(), 'initial_bias': initializers.Zero()}
        else:
            kwargs = {'initialW': initializers.Normal(0.01),
                      'initial_bias': initializers.Zero()}
        in_channels = 3
        with self.init_scope():
            for block, (n_convs, channels) in enumerate(zip(_BLOCKS[n_layers], _CHANNELS), 1):
                for i in range(1, n_convs + 1):
                    setattr(self, f'conv{block}_{i}',
                            Convolution2D(in_channels, channels, 3, 1, 1, **kwargs))
                    in_channels = channels
            self.fc6 = Linear(512 * 7 * 7, 4096, **kwargs)
            self.fc7 = Linear(4096, 4096, **kwargs)
            self.fc8 = Linear(4096, 1000, **kwargs)
        if pretrained_model == 'auto':
            _common.retrieve(self, f'VGG_ILSVRC_{n_layers}_layers.npz',
                             f'VGG_ILSVRC_{n_layers}_layers.caffemodel',
                             VGGLayers.convert_caffemodel_to_npz,
                             'https://www.robots.ox.ac.uk/~vgg/research/very_deep/')
        elif pretrained_model:
            load_npz(pretrained_model, self)

    @property
    def functions(self) -> Dict[str, List[Callable[[Any], Any]]]:
        """Layer name to the callables that compute it from the previous layer."""
        funcs: Dict[str, List[Callable[[Any], Any]]] = collections.OrderedDict()
        for block, n_convs in enumerate(_BLOCKS[self.n_layers], 1):
            for i in range(1, n_convs + 1):
                name = f'conv{block}_{i}'
                funcs[name] = [getattr(self, name), relu]
            funcs[f'pool{block}'] = [_max_pooling_2d]
        funcs['fc6'] = [self.fc6, relu, dropout]
        funcs['fc7'] = [self.fc7, relu, dropout]
        funcs['fc8'] = [self.fc8]
        funcs['prob'] = [softmax]
        return funcs

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Convert the VGG team's ``.caffemodel`` to an ``.npz`` file that
        ``pretrained_model`` accepts (needs :mod:`chainlet.links.caffe`; the Caffe layer
        names are this model's)."""
        caffemodel = _common.read_caffemodel(path_caffemodel,
                                             'VGGLayers.convert_caffemodel_to_npz')
        save_npz(path_npz, caffemodel, compression=False)

    def prepare(self, image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
        return prepare(image, size)


class VGG16Layers(VGGLayers):
    """VGG16 (``VGGLayers`` with 16 layers); see :class:`VGGLayers`."""

    def __init__(self, pretrained_model: Any = 'auto') -> None:
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """VGG19 (``VGGLayers`` with 19 layers); see :class:`VGGLayers`."""

    def __init__(self, pretrained_model: Any = 'auto') -> None:
        super().__init__(pretrained_model, 19)
