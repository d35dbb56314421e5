"""Small test helpers: ``with_requires``, ``without_requires``, ``assert_warns``, ``patch``.

Requirements are checked against the installed distributions with :mod:`importlib.metadata`
(``packaging`` evaluates version specifiers when it is installed; without it only ``==``,
``!=``, ``<``, ``<=``, ``>``, ``>=`` on dotted numeric versions are understood).

Example:
    >>> import warnings
    >>> from chainlet import testing
    >>> with testing.assert_warns(UserWarning):
    ...     warnings.warn('careful')
    >>> testing.with_requires('numpy>=1.0')(lambda: 'ran')()
    'ran'
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import re
import sys
import unittest
import warnings
from typing import Any, Callable, Iterator, Optional

_REQUIREMENT = re.compile(r'^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)$')


def _version_tuple(version: str) -> tuple:
    parts = []
    for piece in version.split('.'):
        match = re.match(r'\d+', piece)
        if match is None:
            break
        parts.append(int(match.group()))
    return tuple(parts)


def _installed_version(name: str) -> Optional[str]:
    """The version a requirement on ``name`` is checked against, or ``None`` if not installed.

    ``chainlet`` is the distribution ``chainlet-dl``. ``chainer`` is the installed ``chainer``
    distribution (``compat/chainer``) if any; otherwise chainlet itself stands for Chainer (a
    Chainer test run with ``chainer`` imported as chainlet), so it is the Chainer API version
    chainlet implements.
    """
    key = re.sub(r'[-_.]+', '-', name).lower()
    try:
        return importlib.metadata.version('chainlet-dl' if key == 'chainlet' else name)
    except importlib.metadata.PackageNotFoundError:
        pass
    if key == 'chainer':
        import chainlet
        return chainlet._CHAINER_API_VERSION
    return None


def _satisfied(requirement: str) -> bool:
    match = _REQUIREMENT.match(requirement)
    if match is None:
        raise ValueError(f'with_requires: cannot parse requirement {requirement!r}')
    name, spec = match.group(1), match.group(2).strip()
    installed = _installed_version(name)
    if installed is None:
        return False
    if not spec:
        return True
    try:
        from packaging.specifiers import SpecifierSet
    except ImportError:
        return _simple_spec_satisfied(spec, installed)
    return SpecifierSet(spec).contains(installed, prereleases=True)


def _simple_spec_satisfied(spec: str, installed: str) -> bool:
    have = _version_tuple(installed)
    ops = {'==': lambda a, b: a == b, '!=': lambda a, b: a != b, '<=': lambda a, b: a <= b,
           '>=': lambda a, b: a >= b, '<': lambda a, b: a < b, '>': lambda a, b: a > b}
    for clause in spec.split(','):
        m = re.match(r'\s*(==|!=|<=|>=|<|>)\s*([\w.]+)\s*$', clause)
        if m is None:
            raise ValueError(f'with_requires: unsupported version specifier {clause!r}')
        want = _version_tuple(m.group(2))
        n = max(len(have), len(want))
        if not ops[m.group(1)](have + (0,) * (n - len(have)), want + (0,) * (n - len(want))):
            return False
    return True


def with_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skip a test (method or class) unless every requirement, e.g. ``'numpy>=1.17'``, holds."""
    skip = not all(_satisfied(r) for r in requirements)
    return unittest.skipIf(skip, f'requires: {",".join(requirements)}')


def without_requires(*requirements: str) -> Callable[[Any], Any]:
    """Skip a test when all requirements hold (it tests the fallback for older packages)."""
    skip = all(_satisfied(r) for r in requirements)
    return unittest.skipIf(skip, f'requires: {",".join(requirements)}')


@contextlib.contextmanager
def assert_warns(expected: type) -> Iterator[None]:
    """Assert that the block issues a warning of category ``expected`` (or a subclass)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        yield
    if not any(isinstance(w.message, expected) for w in caught):
        name = getattr(expected, '__name__', str(expected))
        raise AssertionError(f'{name} not triggerred')


def _import_object_from_name(fullname: str) -> Any:
    comps = fullname.split('.')
    obj = sys.modules.get(comps[0])
    if obj is None:
        raise RuntimeError(f"Can't import {comps[0]}")
    for i, comp in enumerate(comps[1:]):
        obj = getattr(obj, comp)
        if obj is None:
            raise RuntimeError(f"Can't find object {'.'.join(comps[:i + 2])}")
    return obj


def patch(target: str, *args: Any, **kwargs: Any) -> Any:
    """``mock.patch`` that wraps the patched object by default (calls still go through).

    Args:
        target: Dotted name of the object to patch; its top-level module must be imported.
        wraps: The object the mock wraps; by default the object ``target`` names.
        *args: Passed to ``mock.patch``.
        **kwargs: Passed to ``mock.patch``.
    """
    try:
        import mock
    except ImportError:
        from unittest import mock
    wraps = kwargs.pop('wraps') if 'wraps' in kwargs else _import_object_from_name(target)
    return mock.patch(target, *args, wraps=wraps, **kwargs)
