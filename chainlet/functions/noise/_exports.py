"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.noise.dropout import dropout  # noqa: F401
from chainlet.functions.noise.gaussian import gaussian  # noqa: F401
from chainlet.functions.noise.gumbel_softmax import gumbel_softmax  # noqa: F401
from chainlet.functions.noise.simplified_dropconnect import simplified_dropconnect  # noqa: F401
from chainlet.functions.noise.zoneout import zoneout  # noqa: F401
