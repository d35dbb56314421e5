"""Test helpers: Chainer's ``chainer.testing`` API, and chainlet's pytest function tests.

Chainer's helpers, so that Chainer-style test suites run after replacing ``chainer`` with
``chainlet``: :func:`parameterize`, :func:`product`, :func:`product_dict`,
:func:`inject_backend_tests` / :class:`BackendConfig`, :class:`FunctionTestCase`,
:class:`LinkTestCase`, :func:`unary_math_function_unittest`, :func:`fix_random`,
``attr`` (pytest marks), ``condition`` (repeated trials), :func:`assert_allclose`,
:func:`with_requires`, :func:`assert_warns`, :func:`patch`, :func:`run_module`, ...
chainlet's own declarative pytest class is :class:`PytestFunctionTestCase`.

Example:
    >>> import numpy as np
    >>> from chainlet import testing
    >>> testing.assert_allclose(np.float32([1.0]), np.float32([1.0 + 1e-7]))
    >>> len(testing.product({'shape': [(2,), (3, 4)], 'dtype': [np.float16, np.float32]}))
    4
"""
from __future__ import annotations

import importlib
from typing import Any

from chainlet.testing import array  # noqa: F401
from chainlet.testing import attr  # noqa: F401
from chainlet.testing import condition  # noqa: F401
from chainlet.testing import parameterized  # noqa: F401
from chainlet.testing.array import assert_allclose  # noqa: F401
from chainlet.testing.backend import BackendConfig, inject_backend_tests  # noqa: F401
from chainlet.testing.function_link import (  # noqa: F401
    FunctionTestCase, FunctionTestError, InitializerArgument, LinkInitializersTestCase,
    LinkTestCase, LinkTestError)
from chainlet.testing.function_test_case import (  # noqa: F401
    PytestFunctionTestCase, default_tolerances, gpu_skip_reason)
from chainlet.testing.helper import (  # noqa: F401
    assert_warns, patch, with_requires, without_requires)
from chainlet.testing.parameterized import (  # noqa: F401
    from_pytest_parameterize, parameterize, parameterize_pytest, product, product_dict)
from chainlet.testing.random import fix_random, generate_seed  # noqa: F401

# Helpers that pull in more of chainlet (links, serializers, training) load on first use.
_LAZY = {
    'unary_math_function_unittest': 'chainlet.testing.unary_math_function_test',
    'save_and_load': 'chainlet.testing.serializer',
    'save_and_load_npz': 'chainlet.testing.serializer',
    'save_and_load_hdf5': 'chainlet.testing.serializer',
    'get_trainer_with_mock_updater': 'chainlet.testing.training',
    'generate_matrix': 'chainlet.testing.matrix',
    'distribution_unittest': 'chainlet.testing.distribution_test',
}
_SUBMODULES = ('serializer', 'training', 'matrix', 'unary_math_function_test',
               'distribution_test')


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f'chainlet.testing.{name}')
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chainlet.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def run_module(name: str, file: str) -> None:
    """Run the tests of ``file`` with pytest when it is executed as a script.

    Chainer's test modules end with ``testing.run_module(__name__, __file__)``; imported by
    pytest (``name != '__main__'``) it does nothing.

    Args:
        name: The module's ``__name__``.
        file: The module's ``__file__``.
    """
    if name == '__main__':
        import pytest
        pytest.main([file, '-vvs', '-x', '--pdb'])
