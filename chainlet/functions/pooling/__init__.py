"""Pooling functions: max and average pooling over 1, 2, 3 or N spatial axes, their inverses
(unpooling, upsampling), spatial pyramid pooling and the region-of-interest poolings.

As in Chainer, the attributes of this package are its modules:
``chainlet.functions.pooling.max_pooling_nd`` is the module that defines ``max_pooling_nd`` and
its FunctionNode classes (``F.pooling.average_pooling_2d.AveragePooling2D``). The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``), so ``F.max_pooling_2d(...)`` is
unchanged. ``max_pooling_2d`` is also a module here (Chainer 7 defines that function in
``max_pooling_nd``; earlier versions had the module).
"""
from chainlet.functions.pooling import average_pooling_2d  # noqa: F401
from chainlet.functions.pooling import average_pooling_nd  # noqa: F401
from chainlet.functions.pooling import average_pooling_nd_kernel  # noqa: F401
from chainlet.functions.pooling import max_pooling_2d  # noqa: F401
from chainlet.functions.pooling import max_pooling_nd  # noqa: F401
from chainlet.functions.pooling import max_pooling_nd_kernel  # noqa: F401
from chainlet.functions.pooling import pooling_nd_kernel  # noqa: F401
from chainlet.functions.pooling import roi_average_align_2d  # noqa: F401
from chainlet.functions.pooling import roi_average_pooling_2d  # noqa: F401
from chainlet.functions.pooling import roi_max_align_2d  # noqa: F401
from chainlet.functions.pooling import roi_max_pooling_2d  # noqa: F401
from chainlet.functions.pooling import roi_pooling_2d  # noqa: F401
from chainlet.functions.pooling import spatial_pyramid_pooling_2d  # noqa: F401
from chainlet.functions.pooling import unpooling_2d  # noqa: F401
from chainlet.functions.pooling import unpooling_nd  # noqa: F401
from chainlet.functions.pooling import upsampling_2d  # noqa: F401
