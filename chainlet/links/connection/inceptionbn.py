"""``InceptionBN``: the inception module with batch normalization (Ioffe and Szegedy, 2015).

Like :class:`~chainlet.links.Inception` but every convolution (without bias) is followed by a
:class:`~chainlet.links.BatchNormalization` and a ReLU, the 5x5 branch is two 3x3 convolutions,
the pooling may be max or average, and ``stride`` applies to the last layer of each branch (a
grid-reducing module then has no 1x1 branch). The output is the concatenation of the branches
(no ReLU after it). Children keep Chainer's names: ``proj3``/``proj3n``, ``conv3``/``conv3n``,
``proj33``/``proj33n``, ``conv33a``/``conv33an``, ``conv33b``/``conv33bn``, and when present
``conv1``/``conv1n`` and ``poolp``/``poolpn``.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.activation.relu import relu
from chainlet.functions.array.concat import concat
from chainlet.functions.pooling.average_pooling_2d import average_pooling_2d
from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlet.link import Chain
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.links.normalization.batch_normalization import BatchNormalization
from chainlet.variable import Variable


class InceptionBNArchitectureError(ValueError, AssertionError):
    """An inconsistent InceptionBN configuration (a ``ValueError`` that is also the
    ``AssertionError`` Chainer raises)."""


class InceptionBNPoolTypeError(ValueError, NotImplementedError):
    """An unknown ``pooltype`` (a ``ValueError`` that is also the ``NotImplementedError``
    Chainer raises)."""


class InceptionBN(Chain):
    """Inception module of GoogLeNet with batch normalization.

    Args:
        in_channels: Input channels (``None``: inferred on the first call).
        out1: Output channels of the 1x1 branch; 0 to omit it (required when ``stride`` is
            not 1).
        proj3: Channels of the 1x1 projection before the 3x3 convolution.
        out3: Output channels of the 3x3 branch.
        proj33: Channels of the 1x1 projection before the two 3x3 convolutions.
        out33: Output channels of the double 3x3 branch.
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: Channels of the 1x1 projection after pooling, or ``None`` to pass the
            pooled input through (then ``out1`` must be 0).
        stride: Stride of the last layer of each branch.
        conv_init: Initializer of the convolutions' ``W``; default ``LeCunNormal``.
        dtype: dtype of the batch normalization layers (default ``chainlet.config.dtype``).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> block = L.InceptionBN(3, 2, 2, 3, 2, 3, 'max', 2)
        >>> block(np.ones((2, 3, 5, 5), np.float32)).shape
        (2, 10, 5, 5)
    """

    def __init__(self, in_channels: Optional[int], out1: int, proj3: int, out3: int,
                 proj33: int, out33: int, pooltype: str, proj_pool: Optional[int] = None,
                 stride: int = 1, conv_init: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if pooltype not in ('max', 'avg'):
            raise InceptionBNPoolTypeError(f"InceptionBN: argument pooltype: expected 'max' "
                                           f"or 'avg', got {pooltype!r}")
        if out1 > 0 and (stride != 1 or proj_pool is None):
            raise InceptionBNArchitectureError(
                'InceptionBN: a 1x1 branch (out1 > 0) needs stride 1 and proj_pool, got '
                f'stride {stride} and proj_pool {proj_pool}')
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype

        def conv(n_in: Optional[int], n_out: int, ksize: int, stride: int = 1) -> Convolution2D:
            return Convolution2D(n_in, n_out, ksize, stride=stride, pad=ksize // 2,
                                 nobias=True, initialW=conv_init)

        def bn(size: int) -> BatchNormalization:
            return BatchNormalization(size, dtype=dtype)

        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, stride)
            self.proj33 = conv(in_channels, proj33, 1)
            self.conv33a = conv(proj33, out33, 3)
            self.conv33b = conv(out33, out33, 3, stride)
            self.proj3n = bn(proj3)
            self.conv3n = bn(out3)
            self.proj33n = bn(proj33)
            self.conv33an = bn(out33)
            self.conv33bn = bn(out33)
            if out1 > 0:
                self.conv1 = conv(in_channels, out1, 1, stride)
                self.conv1n = bn(out1)
            if proj_pool is not None:
                self.poolp = conv(in_channels, proj_pool, 1)
                self.poolpn = bn(proj_pool)

    def forward(self, x: Any) -> Variable:
        """Apply the branches to ``x`` ``(N, C, H, W)`` and concatenate them."""
        outs = []
        if self.out1 > 0:
            outs.append(relu(self.conv1n(self.conv1(x))))
        h3 = relu(self.proj3n(self.proj3(x)))
        outs.append(relu(self.conv3n(self.conv3(h3))))
        h33 = relu(self.proj33n(self.proj33(x)))
        h33 = relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu(self.conv33bn(self.conv33b(h33))))
        p: Any  # max_pooling_2d may return a pair (with return_indices); here a Variable
        if self.pooltype == 'max':
            p = max_pooling_2d(x, 3, stride=self.stride, pad=1, cover_all=False)
        else:
            p = average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            p = relu(self.poolpn(self.poolp(p)))
        outs.append(p)
        return concat(outs, axis=1)
