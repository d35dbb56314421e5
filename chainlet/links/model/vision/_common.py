"""What the vision models share: image preparation, pretrained weights and the feature
extraction loop over named layers.

Each model lists its layers as ``functions``, an ordered dict from layer name to the callables
that compute that layer from the previous one; :class:`VisionModel` runs them in order and
stops as soon as every requested layer is computed, so asking for an early layer costs only
that part of the network. A layer may start from an earlier layer's output instead of the
previous one (GoogLeNet's auxiliary classifiers): ``_branches`` maps it to that layer.

Pretrained weights are ``.npz`` files in Chainer's layout. ``pretrained_model='auto'`` looks
for them in ``<dataset root>/pfnet/chainer/models`` (Chainer's location) and never downloads;
when only the original ``.caffemodel`` is there it is converted, provided the Caffe reader
:mod:`chainlet.links.caffe` is available.
"""
from __future__ import annotations

import importlib.util
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import numpy

import chainlet
from chainlet._config import get_dtype
from chainlet.dataset import concat_examples, get_dataset_directory
from chainlet.functions.array.reshape import reshape
from chainlet.functions.math.sum import sum as _sum
from chainlet.link import Chain
from chainlet.serializers import load_npz
from chainlet.utils import argument
from chainlet.utils.imgproc import oversample
from chainlet.variable import Variable

# Pillow is optional (only prepare / extract / predict need it) and imported when used.
available = importlib.util.find_spec('PIL') is not None

MODELS_DIRECTORY = 'pfnet/chainer/models/'


def prepare(image: Any, size: Optional[Sequence[int]], mean: Sequence[float]) -> numpy.ndarray:
    """An RGB image as a BGR ``(3, H, W)`` array of ``chainlet.config.dtype`` minus ``mean``.

    Args:
        image: A PIL image or an array ``(H, W)``, ``(H, W, C)`` or ``(C, H, W)`` with ``C``
            1 or 3, values in ``[0, 255]``.
        size: Passed to PIL's ``resize``, so ``(width, height)`` as in Chainer; ``None`` keeps
            the size.
        mean: The per-channel mean to subtract, in BGR order.
    """
    if not available:
        raise ImportError('prepare: Pillow is required to convert images (pip install Pillow)')
    from PIL import Image
    dtype = get_dtype()
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3:
            if image.shape[0] == 1:
                image = image[0]
            elif image.shape[0] == 3:
                image = image.transpose(1, 2, 0)
        image = Image.fromarray(image.astype(numpy.uint8))
    image = image.convert('RGB')
    if size:
        image = image.resize(tuple(size))
    array = numpy.asarray(image, dtype=dtype)[:, :, ::-1]
    array = array - numpy.asarray(mean, dtype=dtype)
    return numpy.ascontiguousarray(array.transpose(2, 0, 1))


def _caffe_function() -> Optional[Callable[[str], Any]]:
    """chainlet's Caffe reader, or ``None`` where it is not part of this installation."""
    try:
        from chainlet.links.caffe import CaffeFunction
    except ImportError:
        return None
    return CaffeFunction


def read_caffemodel(path: str, caller: str) -> Any:
    """Load ``path`` with :class:`chainlet.links.caffe.CaffeFunction`."""
    caffe_function = _caffe_function()
    if caffe_function is None:
        raise ImportError(f'{caller}: converting a .caffemodel needs chainlet.links.caffe, '
                          f'which this installation lacks')
    return caffe_function(path)


def retrieve(model: Chain, npz_name: str, caffemodel_name: str,
             convert: Callable[[str, str], None], source: str) -> None:
    """Load the pretrained weights of ``model`` from the models directory of the dataset root.

    ``<models>/<npz_name>`` is loaded when it exists. Otherwise ``<models>/<caffemodel_name>``
    (an absolute path stays as it is) is converted to it with ``convert(caffemodel, npz)``
    when both that file and the Caffe reader exist. Nothing is downloaded: when neither works
    an ``OSError`` says where to put which file (``source`` says where the original is).
    """
    root = get_dataset_directory(MODELS_DIRECTORY)
    path = os.path.join(root, npz_name)
    if not os.path.exists(path):
        caffemodel = os.path.join(root, caffemodel_name)
        name = type(model).__name__
        can_convert = _caffe_function() is not None
        if not (can_convert and os.path.exists(caffemodel)):
            reader = '' if can_convert else ' (which needs chainlet.links.caffe, absent here)'
            raise OSError(
                f'{name}: pretrained weights not found at {path}. chainlet does not download '
                f'them: put there the weights saved with save_npz (e.g. by Chainer), or the '
                f'original Caffe model from {source} at {caffemodel} to be converted{reader}; '
                f'or pass pretrained_model=None for random weights or the path of an .npz file')
        convert(caffemodel, path)
    load_npz(path, model)


class VisionModel(Chain):
    """A chain whose forward runs its ``functions`` in order and returns the outputs of the
    requested layers; ``extract`` and ``predict`` start from images."""

    functions: Any  # the ordered (name, callables) of the layers; each model sets it

    _mean: Sequence[float] = (0.0, 0.0, 0.0)
    _extract_layers = ('pool5',)
    _removed_forward_arg = 'test'
    _branches: Dict[str, str] = {}

    @property
    def available_layers(self) -> List[str]:
        """Names of the layers whose outputs :meth:`forward` can return, in order."""
        return list(self.functions.keys())

    def forward(self, x: Any, layers: Optional[Iterable[str]] = None,
                **kwargs: Any) -> Dict[str, Variable]:
        """forward(x, layers=['prob'])

        Run the network on ``x`` ``(N, 3, H, W)`` (prepared by ``prepare``) until every
        layer in ``layers`` is computed.

        Args:
            x: The input batch.
            layers: Names from :attr:`available_layers`; default ``['prob']``.

        Returns:
            A dict from layer name to its output Variable.
        """
        if kwargs:
            argument.check_unexpected_kwargs(kwargs, **{
                self._removed_forward_arg:
                    f'{self._removed_forward_arg} argument is not supported anymore. Use '
                    f'chainlet.using_config'})
            argument.assert_kwargs_empty(kwargs)
        targets = set(['prob'] if layers is None else layers)
        functions = self.functions
        unknown = targets - set(functions)
        if unknown:
            raise ValueError(f'{type(self).__name__}: unknown layers {sorted(unknown)}; the '
                             f'available ones are {list(functions)}')
        sources = set(self._branches.values())
        kept: Dict[str, Any] = {}
        activations = {}
        h = x
        for name, funcs in functions.items():
            if not targets:
                break
            if name in self._branches:
                h = kept[self._branches[name]]
            for func in funcs:
                h = func(h)
            if name in targets:
                activations[name] = h
                targets.remove(name)
            if name in sources:
                kept[name] = h
        return activations

    def prepare(self, image: Any, size: Optional[Sequence[int]] = (224, 224)) -> numpy.ndarray:
        """The model's input for one image (see the module's ``prepare``)."""
        return prepare(image, size, self._mean)

    def extract(self, images: Iterable[Any], layers: Optional[Iterable[str]] = None,
                size: Optional[Sequence[int]] = (224, 224),
                **kwargs: Any) -> Dict[str, Variable]:
        """extract(images, layers=None, size=(224, 224))

        Features of a list of images: ``prepare`` each, stack them and run :meth:`forward`.

        As in Chainer, the configuration is left as it is: to extract features for inference
        wrap the call in ``chainlet.using_config('train', False)`` and
        ``chainlet.using_config('enable_backprop', False)``.

        Args:
            images: PIL images or arrays (see ``prepare``), RGB.
            layers: Layer names; default ``['pool5']`` (``['fc7']`` for VGG).
            size: Size to resize the images to (PIL's ``(width, height)``); ``None`` keeps
                them as they are (then they must all have the same size).

        Returns:
            A dict from layer name to its output Variable.
        """
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, test='test argument is not supported anymore. Use '
                             'chainlet.using_config',
                volatile='volatile argument is not supported anymore. Use '
                         'chainlet.using_config')
            argument.assert_kwargs_empty(kwargs)
        if layers is None:
            layers = list(self._extract_layers)
        x = concat_examples([self.prepare(image, size) for image in images])
        return self(Variable(self.xp.asarray(x)), layers=layers)

    def predict(self, images: Iterable[Any], oversample: bool = True) -> Variable:
        """Class probabilities ``(N, 1000)`` of a list of RGB images.

        The images are resized to 256x256; with ``oversample`` the result is the average over
        ten 224x224 crops (corners, center and their mirrors), else the center crop's. Runs
        in test mode without building a graph.
        """
        x = concat_examples([self.prepare(image, (256, 256)) for image in images])
        if oversample:
            x = _oversample(x, (224, 224))
        else:
            x = x[:, :, 16:240, 16:240]
        with chainlet.no_backprop_mode(), chainlet.using_config('train', False):
            x = Variable(self.xp.asarray(numpy.ascontiguousarray(x)))
            y = self(x, layers=['prob'])['prob']
            if oversample:
                y = reshape(y, (len(y) // 10, 10) + y.shape[1:])
                y = _sum(y, axis=1) / 10
        return y


_oversample = oversample
