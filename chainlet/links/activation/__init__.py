"""Activation links with parameters: PReLU, Maxout and Swish."""
from chainlet.links.activation.maxout import Maxout  # noqa: F401
from chainlet.links.activation.prelu import PReLU  # noqa: F401
from chainlet.links.activation.swish import Swish  # noqa: F401
