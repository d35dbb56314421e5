"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.activation.sigmoid import sigmoid  # noqa: F401
from chainlet.functions.activation.tanh import tanh  # noqa: F401
from chainlet.functions.activation.log_softmax import log_softmax  # noqa: F401
from chainlet.functions.activation.softmax import softmax  # noqa: F401
from chainlet.functions.activation.relu import relu  # noqa: F401
from chainlet.functions.activation.leaky_relu import leaky_relu  # noqa: F401
from chainlet.functions.activation.elu import elu  # noqa: F401
from chainlet.functions.activation.selu import selu  # noqa: F401
from chainlet.functions.activation.celu import celu  # noqa: F401
from chainlet.functions.activation.gelu import gelu  # noqa: F401
from chainlet.functions.activation.swish import silu, swish  # noqa: F401
from chainlet.functions.activation.softplus import softplus  # noqa: F401
from chainlet.functions.activation.hard_sigmoid import hard_sigmoid  # noqa: F401
from chainlet.functions.activation.clipped_relu import clipped_relu  # noqa: F401
from chainlet.functions.activation.relu6 import relu6  # noqa: F401
from chainlet.functions.activation.prelu import prelu  # noqa: F401
from chainlet.functions.activation.maxout import maxout  # noqa: F401
from chainlet.functions.activation.crelu import crelu  # noqa: F401
from chainlet.functions.activation.rrelu import rrelu  # noqa: F401
