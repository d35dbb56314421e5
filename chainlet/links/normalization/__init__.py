"""Normalization links: batch (and renormalized, decorrelated), layer and group normalization."""
from chainlet.links.normalization.batch_normalization import BatchNormalization  # noqa: F401
from chainlet.links.normalization.batch_renormalization import (  # noqa: F401
    BatchRenormalization)
from chainlet.links.normalization.decorrelated_batch_normalization import (  # noqa: F401
    DecorrelatedBatchNormalization)
from chainlet.links.normalization.group_normalization import GroupNormalization  # noqa: F401
from chainlet.links.normalization.layer_normalization import LayerNormalization  # noqa: F401
