"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.normalization.batch_normalization import (  # noqa: F401
    batch_normalization, fixed_batch_normalization)
from chainlet.functions.normalization.group_normalization import group_normalization  # noqa: F401
from chainlet.functions.normalization.l2_normalization import normalize  # noqa: F401
from chainlet.functions.normalization.layer_normalization import layer_normalization  # noqa: F401
from chainlet.functions.normalization.local_response_normalization import (  # noqa: F401
    local_response_normalization)
from chainlet.functions.normalization.decorrelated_batch_normalization import (  # noqa: F401
    decorrelated_batch_normalization, fixed_decorrelated_batch_normalization)
from chainlet.functions.normalization.batch_renormalization import (  # noqa: F401
    batch_renormalization, fixed_batch_renormalization)
