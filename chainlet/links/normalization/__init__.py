"""Normalization links: batch, layer and group normalization."""
from chainlet.links.normalization.batch_normalization import BatchNormalization  # noqa: F401
from chainlet.links.normalization.group_normalization import GroupNormalization  # noqa: F401
from chainlet.links.normalization.layer_normalization import LayerNormalization  # noqa: F401
