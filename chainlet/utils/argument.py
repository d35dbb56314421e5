"""Keyword-argument parsing for functions that accept Chainer's ``**kwargs`` options.

Chainer functions take some options only through ``**kwargs`` (``train=`` was removed in v2 and
now raises with a hint). :func:`parse_kwargs` pops the known names with their defaults and
rejects whatever is left with the ``TypeError`` Python itself raises for an unexpected keyword,
naming the calling function.

Example:
    >>> def f(**kwargs):
    ...     return parse_kwargs(kwargs, ('foo', 1), ('bar', 2))
    >>> f(bar=3)
    (1, 3)
    >>> f(baz=0)
    Traceback (most recent call last):
    ...
    TypeError: f() got unexpected keyword argument(s) 'baz'
"""
from __future__ import annotations

import sys


def check_unexpected_kwargs(kwargs: dict, **unexpected: str) -> None:
    """Raise ``ValueError(message)`` for the first key of ``unexpected`` found in ``kwargs``.

    Args:
        kwargs: The keyword arguments a function received.
        **unexpected: ``name=message`` pairs: names that are no longer accepted, with the
            message that tells the user what to do instead.
    """
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict, *name_and_values: tuple, **unexpected: str) -> tuple:
    """Pop the named options from ``kwargs`` and return their values in order.

    Args:
        kwargs: The keyword arguments a function received; the parsed entries are removed.
        *name_and_values: ``(name, default)`` pairs.
        **unexpected: As in :func:`check_unexpected_kwargs`, checked only when unknown keys
            remain.

    Returns:
        A tuple with one value per pair (the given one, or the default).

    Raises:
        ValueError: A key listed in ``unexpected`` was given.
        TypeError: Other unknown keys were given; the message names the calling function and
            the keys in sorted order.
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        raise _unexpected(kwargs, sys._getframe(1).f_code.co_name)
    return values


def assert_kwargs_empty(kwargs: dict) -> None:
    """Raise ``TypeError`` naming the caller when ``kwargs`` is not empty."""
    if kwargs:
        raise _unexpected(kwargs, sys._getframe(1).f_code.co_name)


def _unexpected(kwargs: dict, caller: str) -> TypeError:
    # The message Python gives for one unknown keyword, extended to several.
    names = ', '.join(repr(k) for k in sorted(kwargs))
    return TypeError(f'{caller}() got unexpected keyword argument(s) {names}')
