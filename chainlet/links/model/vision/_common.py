"""What the vision models share: image preparation, oversampling and the feature-extraction
loop over named layers."""
from __future__ import annotations

import importlib.util
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy

import chainlet
from chainlet import _config
from chainlet.dataset import concat_examples, get_dataset_directory
from chainlet.functions.array.reshape import reshape
from chainlet.functions.math.sum import sum as _sum
from chainlet.link import Chain
from chainlet.serializers import load_npz
from chainlet.utils import argument
from chainlet.variable import Variable

# Pillow is optional (only prepare / extract / predict need it) and imported when used.
available = importlib.util.find_spec('PIL') is not None


def prepare(image: Any, size: Optional[Sequence[int]], mean: Sequence[float]) -> numpy.ndarray:
    """An RGB image (PIL image or array, HWC, CHW or HW) as a BGR ``(3, H, W)`` array of
    ``chainlet.config.dtype`` minus the per-channel ``mean``, resized to ``size`` (``(H, W)``)
    unless ``size`` is ``None``."""
    if not available:
        raise ImportError('Pillow is required to prepare images (pip install Pillow)')
    from PIL import Image
    dtype = numpy.dtype(_config.config.dtype or numpy.float32)
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3:
            if image.shape[0] == 1:
                image = image[0]
            elif image.shape[0] == 3:
                image = image.transpose(1, 2, 0)
        image = Image.fromarray(image.astype(numpy.uint8))
    image = image.convert('RGB')
    if size:
        image = image.resize((size[1], size[0]))  # PIL takes (width, height)
    array = numpy.asarray(image, dtype=dtype)[:, :, ::-1]
    array = array - numpy.asarray(mean, dtype=dtype)
    return numpy.ascontiguousarray(array.transpose(2, 0, 1))


def oversample(images: numpy.ndarray, crop_dims: Sequence[int]) -> numpy.ndarray:
    """Ten crops of each image of ``(N, C, H, W)``: four corners and the center, and their
    horizontal mirrors, as ``(10 N, C, h, w)`` (the ten crops of an image are consecutive)."""
    n, c, H, W = images.shape
    h, w = crop_dims
    tops = (0, 0, H - h, H - h, (H - h) // 2)
    lefts = (0, W - w, 0, W - w, (W - w) // 2)
    crops = [images[:, :, t:t + h, s:s + w] for t, s in zip(tops, lefts)]
    crops = crops + [crop[:, :, :, ::-1] for crop in crops]
    return numpy.stack(crops, axis=1).reshape(n * 10, c, h, w)


def load_pretrained(link: Chain, pretrained_model: Any, file_name: str) -> None:
    """Load ``pretrained_model`` (``'auto'`` or a path to an ``.npz`` file) into ``link``."""
    if pretrained_model == 'auto':
        path = os.path.join(get_dataset_directory('pfnet/chainer/models/'), file_name)
        if not os.path.exists(path):
            raise OSError(f'{type(link).__name__}: pretrained weights not found at {path}. '
                          f'chainlet cannot convert the original Caffe model; save the weights '
                          f'of the model to that path with save_npz (e.g. from Chainer), or '
                          f'pass pretrained_model=None for random weights')
        pretrained_model = path
    load_npz(pretrained_model, link)


class VisionModel(Chain):
    """A chain whose forward runs ``functions`` (an ordered dict from layer name to a list of
    callables, defined by each model as a property of its links) in order and returns the
    requested layers' activations."""

    _mean: Sequence[float] = (0.0, 0.0, 0.0)
    _predict_size = (256, 256)
    _crop_size = (224, 224)

    @property
    def available_layers(self) -> List[str]:
        """Names of the layers whose outputs :meth:`forward` can return, in order."""
        return list(self.functions.keys())

    def forward(self, x: Any, layers: Optional[Iterable[str]] = None,
                **kwargs: Any) -> Dict[str, Variable]:
        """forward(x, layers=None)

        Run the network on ``x`` ``(N, 3, H, W)`` until every layer in ``layers`` (default
        ``['prob']``) is computed.

        Returns:
            A dict from layer name to its output Variable.
        """
        argument.check_unexpected_kwargs(
            kwargs, test="the test argument is not supported anymore; use "
                         "chainlet.using_config('train', False)")
        argument.assert_kwargs_empty(kwargs)
        targets = set(['prob'] if layers is None else layers)
        unknown = targets - set(self.functions)
        if unknown:
            raise ValueError(f'{type(self).__name__}: unknown layers {sorted(unknown)}; the '
                             f'available ones are {self.available_layers}')
        activations = {}
        h = x
        for name, funcs in self.functions.items():
            if not targets:
                break
            for func in funcs:
                h = func(h)
            if name in targets:
                activations[name] = h
                targets.remove(name)
        return activations

    def prepare(self, image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
        """The model's input for one image (see :func:`prepare`)."""
        return prepare(image, size, self._mean)

    def extract(self, images: Sequence[Any], layers: Optional[Iterable[str]] = None,
                size: Optional[Sequence[int]] = (224, 224),
                **kwargs: Any) -> Dict[str, Variable]:
        """Features of the layers ``layers`` (default ``['pool5']``) for a list of images,
        computed in test mode without a graph."""
        argument.check_unexpected_kwargs(
            kwargs, test="the test argument is not supported anymore; use "
                         "chainlet.using_config('train', False)",
            volatile='the volatile argument is not supported anymore; use '
                     'chainlet.using_config')
        argument.assert_kwargs_empty(kwargs)
        x = concat_examples([self.prepare(image, size) for image in images])
        x = Variable(self.xp.asarray(x))
        with chainlet.using_config('train', False), chainlet.no_backprop_mode():
            return self(x, ['pool5'] if layers is None else layers)

    def predict(self, images: Sequence[Any], oversample: bool = True) -> Variable:
        """Class probabilities ``(N, 1000)`` of a list of images; with ``oversample`` the
        average over ten crops (corners, center and mirrors), else the center crop."""
        x = concat_examples([self.prepare(image, self._predict_size) for image in images])
        if oversample:
            x = _oversample(x, self._crop_size)
        else:
            top = (x.shape[2] - self._crop_size[0]) // 2
            left = (x.shape[3] - self._crop_size[1]) // 2
            x = x[:, :, top:top + self._crop_size[0], left:left + self._crop_size[1]]
        x = Variable(self.xp.asarray(numpy.ascontiguousarray(x)))
        with chainlet.using_config('train', False), chainlet.no_backprop_mode():
            y = self(x, ['prob'])['prob']
            if oversample:
                y = reshape(y, (len(y) // 10, 10) + y.shape[1:])
                y = _sum(y, axis=1) / 10
        return y


_oversample = oversample
