"""Activation links with parameters: PReLU and Maxout."""
from chainlet.links.activation.maxout import Maxout  # noqa: F401
from chainlet.links.activation.prelu import PReLU  # noqa: F401
