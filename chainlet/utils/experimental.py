"""Marking an API as experimental: a ``FutureWarning`` when it is used.

The warning is silenced by setting ``chainlet.disable_experimental_feature_warning = True``
(at import time it is read from the environment variable
``CHAINLET_DISABLE_EXPERIMENTAL_FEATURE_WARNING``, or Chainer's
``CHAINER_DISABLE_EXPERIMENTAL_FEATURE_WARNING``). The flag lives on the top-level package, as
in Chainer, and is read on every call so that changing it takes effect at once.

Example:
    >>> import warnings
    >>> def new_api():
    ...     experimental('mylib.new_api')
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter('always')
    ...     new_api()
    >>> print(w[0].category.__name__, w[0].message)
    FutureWarning mylib.new_api is experimental. The interface can change in the future.
"""
from __future__ import annotations

import sys
import warnings


def experimental(api_name: str) -> None:
    """Warn (``FutureWarning``) that ``api_name`` is experimental and may change.

    Call it at the start of the experimental function, or in ``__init__`` to mark a class.

    Args:
        api_name: The name shown in the warning, e.g. ``'chainlet.foo.bar'``.
    """
    # The package is always imported before its submodules, so it is in sys.modules here.
    package = sys.modules.get('chainlet')
    if getattr(package, 'disable_experimental_feature_warning', False):
        return
    warnings.warn(f'{api_name} is experimental. The interface can change in the future.',
                  FutureWarning, stacklevel=2)
