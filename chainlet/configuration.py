"""Chainer's ``chainer.configuration`` module: the configuration objects chainlet itself uses.

``configuration.config`` *is* ``chainlet.config`` and ``configuration.global_config`` *is*
``chainlet.global_config``; the implementation lives in ``chainlet._config``.

Example:
    >>> from chainlet import configuration
    >>> local = configuration.LocalConfig(configuration.GlobalConfig())
    >>> local.x = 1
    >>> local.x
    1
"""
from __future__ import annotations

from chainlet._config import (  # noqa: F401
    GlobalConfig, LocalConfig, config, get_dtype, global_config, mixed16, using_config)

__all__ = ['GlobalConfig', 'LocalConfig', 'config', 'global_config', 'using_config']
