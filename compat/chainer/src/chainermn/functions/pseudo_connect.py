"""``chainermn.functions.pseudo_connect``."""
from chainlet.distributed.functions import pseudo_connect, PseudoConnect  # noqa: F401
