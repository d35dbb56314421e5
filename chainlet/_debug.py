"""What debug mode (``chainlet.config.debug``) adds to the core: NaN/Inf checks and call sites.

In debug mode ``FunctionNode.apply`` records where each function was applied (``func.stack``),
checks forward outputs and backward gradients for NaN and Inf, and errors raised inside a
backward get the forward call site appended, so a failure points at the user's line. A backward
that adds a gradient to one a previous backward left in a leaf's ``.grad`` warns (gradients
accumulate until ``cleargrads()``, as in Chainer: a forgotten ``cleargrads()`` doubles them, or
keeps applying a stale one after each optimizer update until the weights become NaN).

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

import os
import sys
import traceback
import warnings
import weakref
from types import FrameType
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


# Debug mode: by id of a leaf, the gradient it got from its last backward and the leaf's update
# count (its update rule's ``t``) then, as weak references (an entry goes when its leaf does).
# Kept only in debug mode, so the normal path pays nothing. Not a WeakKeyDictionary: it compares
# keys with ``==``, which is elementwise on Variables.
_backward_grads: dict = {}
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_stacklevel() -> int:
    # The stacklevel of the first frame outside chainlet (the user's ``loss.backward()``).
    frame: Optional[FrameType] = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _updates(var: Any) -> Optional[int]:
    rule = getattr(var, 'update_rule', None)
    return getattr(rule, 't', None)


def note_backward_grad(var: Any, grad: Any) -> None:
    """Remember that a backward (in debug mode) left ``grad`` in ``var.grad``."""
    if grad is not None:
        key = id(var)

        def forget(_: Any) -> None:
            _backward_grads.pop(key, None)

        _backward_grads[key] = (weakref.ref(var, forget), weakref.ref(grad), _updates(var))


def _kind(var: Any, old: Any) -> Optional[tuple]:
    # What adding to ``old`` means: ('nan',), ('stale', updates since) or ('again',); None for
    # a gradient no backward left (the user assigned it) or an all-zero one (zerograds()).
    entry = _backward_grads.get(id(var))
    data = old.array
    xp = backend.get_array_module(data)
    if entry is None or entry[0]() is not var or entry[1]() is not old:
        if data.dtype.kind == 'f' and data.size and bool(xp.isnan(data).all()):
            return ('nan',)
        return None
    if not bool(xp.any(data)):
        return None
    before, now = entry[2], _updates(var)
    if before is not None and now is not None and now != before:
        return ('stale', now - before)
    return ('again',)


def _names(variables: list) -> str:
    names = [v.summary() for v in variables[:4]]
    more = f' and {len(variables) - 4} more' if len(variables) > 4 else ''
    return ', '.join(names) + more


def warn_accumulation(leaves: list) -> None:
    """Warn where backward is about to add to a leaf's ``.grad`` that nobody cleared.

    Three cases, one warning each: the NaN gradient a new parameter starts with (as in
    Chainer, until ``cleargrads()``); a gradient a previous backward left that an optimizer has
    already applied (a stale gradient applied again at every update); a gradient a previous
    backward left (the sum may be gradient accumulation on purpose). A gradient the user
    assigned, or an all-zero one (``zerograds()``), is not warned about.

    Args:
        leaves: The leaf Variables whose gradients the backward is about to store.
    """
    found: dict = {}
    for var in leaves:
        old = var._grad_var
        kind = None if old is None else _kind(var, old)
        if kind is not None:
            found.setdefault(kind[0], []).append((var, kind))
    fix = 'Call model.cleargrads() before backward (debug mode)'
    messages = []
    if 'nan' in found:
        names = _names([v for v, _ in found['nan']])
        messages.append(f'backward: the gradients of {names} are added to the NaN gradient a '
                        f'new parameter starts with (as in Chainer), so they stay NaN and so '
                        f'will the weights after an update. {fix}')
    if 'stale' in found:
        names = _names([v for v, _ in found['stale']])
        n = found['stale'][0][1][1]
        messages.append(f'backward: the gradients of {names} are added to the ones a previous '
                        f'backward left in .grad, which an optimizer has already applied ({n} '
                        f'update(s) since): that stale gradient is applied again at every '
                        f'update (the weights may end as NaN). {fix}, or pass the loss function '
                        f'to optimizer.update(lossfun, ...), which does')
    if 'again' in found:
        names = _names([v for v, _ in found['again']])
        messages.append(f'backward: the gradients of {names} are added to the ones a previous '
                        f'backward left in .grad (gradients accumulate until cleargrads(), as '
                        f'in Chainer). If this is not gradient accumulation on purpose: {fix}')
    for message in messages:
        warnings.warn(message, RuntimeWarning, stacklevel=_user_stacklevel())
