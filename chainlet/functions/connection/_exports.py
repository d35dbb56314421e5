"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.connection.convolution_2d import convolution_2d  # noqa: F401
from chainlet.functions.connection.convolution_nd import (  # noqa: F401
    convolution_1d, convolution_3d, convolution_nd)
from chainlet.functions.connection.deconvolution_2d import deconvolution_2d  # noqa: F401
from chainlet.functions.connection.deconvolution_nd import (  # noqa: F401
    deconvolution_1d, deconvolution_3d, deconvolution_nd)
from chainlet.functions.connection.depthwise_convolution_2d import (  # noqa: F401
    depthwise_convolution_2d)
from chainlet.functions.connection.bilinear import bilinear  # noqa: F401
from chainlet.functions.connection.embed_id import embed_id  # noqa: F401
from chainlet.functions.connection.linear import linear  # noqa: F401
from chainlet.functions.connection.shift import shift  # noqa: F401
from chainlet.functions.connection.local_convolution_2d import (  # noqa: F401
    local_convolution_2d)
from chainlet.functions.connection.dilated_convolution_2d import (  # noqa: F401
    dilated_convolution_2d)
from chainlet.functions.connection.deformable_convolution_2d_sampler import (  # noqa: F401
    deformable_convolution_2d_sampler)
