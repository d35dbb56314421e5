"""Pooling functions: max and average pooling over 1, 2, 3 or N spatial axes, and the
unpooling/upsampling that invert 2-D pooling."""
from chainlet.functions.pooling.average_pooling_nd import (  # noqa: F401
    average_pooling_1d, average_pooling_2d, average_pooling_3d, average_pooling_nd)
from chainlet.functions.pooling.max_pooling_nd import (  # noqa: F401
    max_pooling_1d, max_pooling_2d, max_pooling_3d, max_pooling_nd)
from chainlet.functions.pooling.unpooling_2d import unpooling_2d  # noqa: F401
from chainlet.functions.pooling.upsampling_2d import upsampling_2d  # noqa: F401
