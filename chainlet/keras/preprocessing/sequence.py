"""``keras.preprocessing.sequence``: ``pad_sequences`` (the same function as
``keras.utils.pad_sequences``)."""
from chainlet.keras.utils import pad_sequences  # noqa: F401

__all__ = ['pad_sequences']
