"""Warning for code paths whose results may differ between runs (e.g. atomic adds on a GPU).

Example:
    >>> import chainlet
    >>> with chainlet.using_config('warn_nondeterministic', False):
    ...     nondeterministic('scatter_add')   # silent unless the flag is set
"""
from __future__ import annotations

import warnings

from chainlet._config import config


def nondeterministic(f_name: str) -> None:
    """Warn that ``f_name`` may be non-deterministic when ``config.warn_nondeterministic``.

    Args:
        f_name: Name of the function or kernel, shown in the warning.
    """
    if getattr(config, 'warn_nondeterministic', False):
        warnings.warn('Potentially non-deterministic code is being executed while '
                      'config.warn_nondeterministic set. Source: ' + f_name, stacklevel=2)
