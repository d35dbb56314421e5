"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.util.forget import forget  # noqa: F401
