"""What debug mode (``chainlet.config.debug``) adds to the core: NaN/Inf checks and call sites.

In debug mode ``FunctionNode.apply`` records where each function was applied (``func.stack``),
checks forward outputs and backward gradients for NaN and Inf, and errors raised inside a
backward get the forward call site appended, so a failure points at the user's line.

Example:
    >>> import numpy as np, chainlet
    >>> import chainlet.functions as F
    >>> with chainlet.using_config('debug', True):
    ...     F.tanh(chainlet.Variable(np.array([np.nan])))
    Traceback (most recent call last):
    ...
    RuntimeError: NaN is detected on forward computation of Tanh: forward output 0 (debug mode)...
"""
from __future__ import annotations

import traceback
from typing import Any, Iterable, Optional

from chainlet import backend


def call_site(func: Any) -> str:
    """Where ``func`` was applied, as traceback lines (empty outside debug mode)."""
    return ''.join(traceback.format_list(func.stack)) if func.stack else ''


def check_finite(arrays: Iterable[Any], what: str, func: Any,
                 index: Optional[int] = None) -> None:
    """Raise ``RuntimeError`` naming ``func`` if a float array of ``arrays`` has NaN or Inf.

    Args:
        arrays: The arrays to check (``None`` and non-float ones are skipped).
        what: ``'forward output'`` or ``'gradient of input'``, for the message.
        func: The FunctionNode that produced them.
        index: The input index to report (for a single gradient), else the position.
    """
    for i, a in enumerate(arrays):
        if index is not None:
            i = index
        if a is None or a.dtype.kind not in 'fc':
            continue
        xp = backend.get_array_module(a)
        if not bool(xp.isfinite(a).all()):
            kind = 'NaN' if bool(xp.isnan(a).any()) else 'Inf'
            site = call_site(func)
            where = f'\nThe function was applied at (most recent call last):\n{site}' \
                if site else ''
            stage = 'forward' if what == 'forward output' else 'backward'
            raise RuntimeError(f'{kind} is detected on {stage} computation of {func.label}: '
                               f'{what} {i} (debug mode){where}')


def add_call_site(error: Exception, func: Any) -> None:
    """Append where ``func`` was applied to the message of ``error`` (raised in its backward)."""
    text = f'{error.args[0] if error.args else ""}\nStacktrace of {func.label}, applied at ' \
        f'(most recent call last):\n{call_site(func)}'
    error.args = (text,) + tuple(error.args[1:])
