"""``chainermn.testing``."""
from chainermn.testing.device import get_device  # noqa: F401
