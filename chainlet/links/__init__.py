"""Links: layers with parameters, under Chainer's names (``import chainlet.links as L``).

Each link is a :class:`chainlet.Link` (or ``Chain``) whose parameters have Chainer's names and
layouts (``Linear.W`` is ``(out_size, in_size)``), and whose ``forward`` calls the matching
function of :mod:`chainlet.functions`. Sizes given as ``None`` are inferred from the first input.

Example:
    >>> import numpy as np, chainlet, chainlet.links as L, chainlet.functions as F
    >>> model = chainlet.Sequential(L.Linear(None, 8), F.relu, L.Linear(8, 3))
    >>> model(np.zeros((2, 5), np.float32)).shape
    (2, 3)
    >>> [name for name, _ in model.namedparams()]
    ['/0/W', '/0/b', '/1/W', '/1/b']
"""
from chainlet.links.activation import Maxout, PReLU, Swish  # noqa: F401
from chainlet.links.connection import (  # noqa: F401
    Bias, Bilinear, ChildSumTreeLSTM, Convolution1D, Convolution2D, Convolution3D, ConvolutionND,
    Deconvolution1D, Deconvolution2D, Deconvolution3D, DeconvolutionND, DeformableConvolution2D,
    DepthwiseConvolution2D, DilatedConvolution2D, EmbedID, GRU, Highway, Inception, InceptionBN,
    LSTM, Linear, LocalConvolution2D, MLPConvolution2D, NStepBiGRU, NStepBiLSTM, NStepBiRNNReLU,
    NStepBiRNNTanh, NStepGRU, NStepLSTM, NStepRNNReLU, NStepRNNTanh, NaryTreeLSTM, Parameter,
    Scale, SimplifiedDropconnect, StatefulGRU, StatefulMGU, StatefulPeepholeLSTM,
    StatefulZoneoutLSTM, StatelessGRU, StatelessLSTM, StatelessMGU)
from chainlet.links.loss import (  # noqa: F401
    BinaryHierarchicalSoftmax, BlackOut, CRF1d, NegativeSampling)
from chainlet.links.model import (  # noqa: F401
    Classifier, GoogLeNet, ResNet50Layers, ResNet101Layers, ResNet152Layers, VGG16Layers,
    VGG19Layers)
from chainlet.links import rnn  # noqa: F401  (Chainer 7's links.rnn module layout)
from chainlet.links.normalization import (  # noqa: F401
    BatchNormalization, BatchRenormalization, DecorrelatedBatchNormalization, GroupNormalization,
    LayerNormalization)

__all__ = [
    'BatchNormalization', 'BatchRenormalization', 'Bias', 'Bilinear', 'BinaryHierarchicalSoftmax',
    'BlackOut', 'ChildSumTreeLSTM', 'Classifier', 'Convolution1D', 'Convolution2D',
    'Convolution3D', 'ConvolutionND', 'CRF1d', 'Deconvolution1D', 'Deconvolution2D',
    'Deconvolution3D', 'DeconvolutionND', 'DecorrelatedBatchNormalization',
    'DeformableConvolution2D', 'DepthwiseConvolution2D', 'DilatedConvolution2D', 'EmbedID',
    'GoogLeNet', 'GroupNormalization', 'GRU', 'Highway', 'Inception', 'InceptionBN',
    'LayerNormalization',
    'Linear', 'LocalConvolution2D', 'LSTM', 'Maxout', 'MLPConvolution2D', 'NaryTreeLSTM',
    'NegativeSampling', 'NStepBiGRU', 'NStepBiLSTM', 'NStepBiRNNReLU', 'NStepBiRNNTanh',
    'NStepGRU', 'NStepLSTM', 'NStepRNNReLU', 'NStepRNNTanh', 'Parameter', 'PReLU',
    'ResNet101Layers', 'ResNet152Layers', 'ResNet50Layers', 'Scale', 'SimplifiedDropconnect',
    'StatefulGRU', 'StatefulMGU', 'StatefulPeepholeLSTM', 'StatefulZoneoutLSTM', 'StatelessGRU',
    'StatelessLSTM', 'StatelessMGU', 'Swish', 'VGG16Layers', 'VGG19Layers'
]
