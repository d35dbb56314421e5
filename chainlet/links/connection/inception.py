"""``Inception``: the GoogLeNet inception module (Szegedy et al., 2014).

Four branches on the same input, concatenated along the channels:

.. code-block:: none

    conv1 (1x1)                                  -> out1 channels
    proj3 (1x1) -> relu -> conv3 (3x3, pad 1)     -> out3
    proj5 (1x1) -> relu -> conv5 (5x5, pad 2)     -> out5
    max pool (3x3, stride 1, pad 1) -> projp (1x1) -> proj_pool

followed by a ReLU. Children keep Chainer's names, so saved GoogLeNet weights load unchanged.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.activation.relu import relu
from chainlet.functions.array.concat import concat
from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlet.link import Chain
from chainlet.links.connection.convolution_2d import Convolution2D
from chainlet.variable import Variable


class Inception(Chain):
    """Inception module of GoogLeNet.

    Args:
        in_channels: Input channels, or ``None`` to infer them on the first call.
        out1: Output channels of the 1x1 branch.
        proj3: Channels of the 1x1 projection before the 3x3 convolution.
        out3: Output channels of the 3x3 branch.
        proj5: Channels of the 1x1 projection before the 5x5 convolution.
        out5: Output channels of the 5x5 branch.
        proj_pool: Output channels of the 1x1 projection after max pooling.
        conv_init: Initializer of every convolution's ``W``; default ``LeCunNormal``.
        bias_init: Initializer of every bias; default 0.

    Shape:
        ``(N, in_channels, H, W)`` to ``(N, out1 + out3 + out5 + proj_pool, H, W)``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> block = L.Inception(3, 2, 2, 3, 2, 4, 5)
        >>> block(np.ones((1, 3, 6, 6), np.float32)).shape
        (1, 14, 6, 6)
    """

    def __init__(self, in_channels: Optional[int], out1: int, proj3: int, out3: int,
                 proj5: int, out5: int, proj_pool: int, conv_init: Any = None,
                 bias_init: Any = None) -> None:
        super().__init__()
        inits = {'initialW': conv_init, 'initial_bias': bias_init}
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, out1, 1, **inits)
            self.proj3 = Convolution2D(in_channels, proj3, 1, **inits)
            self.conv3 = Convolution2D(proj3, out3, 3, pad=1, **inits)
            self.proj5 = Convolution2D(in_channels, proj5, 1, **inits)
            self.conv5 = Convolution2D(proj5, out5, 5, pad=2, **inits)
            self.projp = Convolution2D(in_channels, proj_pool, 1, **inits)

    def forward(self, x: Any) -> Variable:
        """Apply the four branches to ``x`` and concatenate them (then ReLU)."""
        out1 = self.conv1(x)
        out3 = self.conv3(relu(self.proj3(x)))
        out5 = self.conv5(relu(self.proj5(x)))
        pool = self.projp(max_pooling_2d(x, 3, stride=1, pad=1))
        return relu(concat((out1, out3, out5, pool), axis=1))
