"""Public functions of this family (and Chainer's node classes), re-exported by
``chainlet.functions``."""
from chainlet.functions.pooling.average_pooling_2d import (  # noqa: F401
    AveragePooling2D, average_pooling_2d)
from chainlet.functions.pooling.average_pooling_nd import (  # noqa: F401
    AveragePoolingND, average_pooling_1d, average_pooling_3d, average_pooling_nd)
from chainlet.functions.pooling.max_pooling_2d import MaxPooling2D, max_pooling_2d  # noqa: F401
from chainlet.functions.pooling.max_pooling_nd import (  # noqa: F401
    MaxPoolingND, max_pooling_1d, max_pooling_3d, max_pooling_nd)
from chainlet.functions.pooling.roi_average_align_2d import roi_average_align_2d  # noqa: F401
from chainlet.functions.pooling.roi_average_pooling_2d import (  # noqa: F401
    roi_average_pooling_2d)
from chainlet.functions.pooling.roi_max_align_2d import roi_max_align_2d  # noqa: F401
from chainlet.functions.pooling.roi_max_pooling_2d import roi_max_pooling_2d  # noqa: F401
from chainlet.functions.pooling.roi_pooling_2d import ROIPooling2D, roi_pooling_2d  # noqa: F401
from chainlet.functions.pooling.spatial_pyramid_pooling_2d import (  # noqa: F401
    spatial_pyramid_pooling_2d)
from chainlet.functions.pooling.unpooling_2d import Unpooling2D, unpooling_2d  # noqa: F401
from chainlet.functions.pooling.unpooling_nd import (  # noqa: F401
    UnpoolingND, unpooling_1d, unpooling_3d, unpooling_nd)
from chainlet.functions.pooling.upsampling_2d import Upsampling2D, upsampling_2d  # noqa: F401
