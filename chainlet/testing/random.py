"""``fix_random``: deterministic random numbers in a test, restored afterwards.

On a test method, or on a test case class (through its ``setUp``/``tearDown``), the decorator
saves the random states of Python, NumPy (and CuPy once imported), seeds NumPy and CuPy with a
fixed seed, and restores the saved states after the test. Nested setups (a ``condition.retry``
inside a fixed class) seed only in the outermost one. ``CHAINER_TEST_RANDOM_NONDETERMINISTIC=1``
(or ``CHAINLET_...``) seeds from the OS instead, to look for seed-dependent tests.

Example:
    >>> import numpy, unittest
    >>> from chainlet import testing
    >>> class T(unittest.TestCase):
    ...     @testing.fix_random()
    ...     def test_draw(self):
    ...         self.value = numpy.random.rand()
    >>> a, b = T('test_draw'), T('test_draw')
    >>> a.test_draw(); b.test_draw()
    >>> a.value == b.value
    True
"""
from __future__ import annotations

import functools
import os
import random
import sys
import types
from typing import Any, Callable

import numpy

from chainlet.testing import _bundle

_SEED = 100
_saved: list = []
_nest_count = 0


def _cupy() -> Any:
    # Only a CuPy the process already imported is seeded: importing it here would make every
    # CPU test pay for (or fail on) a CUDA initialisation.
    return sys.modules.get('cupy')


def do_setup(deterministic: bool = True) -> None:
    """Save the random states and seed NumPy (and CuPy) for a test."""
    cupy = _cupy()
    state: dict = {'python': random.getstate(), 'numpy': numpy.random.get_state()}
    if cupy is not None:
        generator = cupy.random._generator
        state['cupy'] = dict(generator._random_states)
        generator._random_states = {}
    _saved.append(state)
    seed = None if not deterministic else _SEED
    numpy.random.seed(seed)
    if cupy is not None:
        cupy.random.seed(seed)


def do_teardown() -> None:
    """Restore the random states saved by the matching :func:`do_setup`."""
    state = _saved.pop()
    random.setstate(state['python'])
    numpy.random.set_state(state['numpy'])
    cupy = _cupy()
    if 'cupy' in state and cupy is not None:
        cupy.random._generator._random_states = state['cupy']


def _setup_random() -> None:
    global _nest_count
    if _nest_count == 0:
        flag = os.environ.get('CHAINLET_TEST_RANDOM_NONDETERMINISTIC',
                              os.environ.get('CHAINER_TEST_RANDOM_NONDETERMINISTIC', '0'))
        do_setup(not bool(int(flag)))
    _nest_count += 1


def _teardown_random() -> None:
    global _nest_count
    assert _nest_count > 0, '_setup_random has not been called'
    _nest_count -= 1
    if _nest_count == 0:
        do_teardown()


def generate_seed() -> int:
    """A seed drawn from the fixed NumPy state (only inside a ``fix_random`` test)."""
    assert _nest_count > 0, 'random is not set up'
    return int(numpy.random.randint(0xffffffff))


def _fix_random(setup_method_name: str, teardown_method_name: str) -> Callable[[Any], Any]:
    def decorator(impl: Any) -> Any:
        if isinstance(impl, types.FunctionType) and impl.__name__.startswith('test_'):
            @functools.wraps(impl)
            def test_func(self: Any, *args: Any, **kwargs: Any) -> Any:
                _setup_random()
                try:
                    return impl(self, *args, **kwargs)
                finally:
                    _teardown_random()
            return test_func

        if isinstance(impl, _bundle._ParameterizedTestCaseBundle):
            cases = impl
        else:
            case = _bundle._TestCaseTuple(impl, None, None)
            cases = _bundle._ParameterizedTestCaseBundle([case])
        for klass, _, _ in cases.cases:
            prev_setup = getattr(klass, setup_method_name)
            prev_teardown = getattr(klass, teardown_method_name)
            setattr(klass, setup_method_name, _wrapped_setup(prev_setup))
            setattr(klass, teardown_method_name, _wrapped_teardown(prev_teardown))
        # A bare class stays a class (pytest collects it); a bundle stays a bundle.
        return impl

    return decorator


def _wrapped_setup(prev: Callable) -> Callable:
    @functools.wraps(prev)
    def setup(self: Any) -> None:
        _setup_random()
        prev(self)
    return setup


def _wrapped_teardown(prev: Callable) -> Callable:
    @functools.wraps(prev)
    def teardown(self: Any) -> None:
        try:
            prev(self)
        finally:
            _teardown_random()
    return teardown


def fix_random(*, setup_method: str = 'setUp',
               teardown_method: str = 'tearDown') -> Callable[[Any], Any]:
    """Decorator fixing the random numbers of a test method or of every test of a class.

    Args:
        setup_method: Name of the per-test setup method wrapped on a class.
        teardown_method: Name of the per-test teardown method wrapped on a class.

    Apply it outside ``condition.retry``/``repeat``, not inside: repeated trials with one
    seed would repeat the same draws.
    """
    return _fix_random(setup_method, teardown_method)
