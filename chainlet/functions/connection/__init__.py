"""Connection functions."""
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
