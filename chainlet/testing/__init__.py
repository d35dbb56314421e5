"""Test helpers: ``FunctionTestCase``, ``assert_allclose`` and array generators.

Example:
    >>> import numpy as np
    >>> from chainlet import testing
    >>> testing.assert_allclose(np.float32([1.0]), np.float32([1.0 + 1e-7]))
"""
from chainlet.testing.array import assert_allclose, make_noncontiguous  # noqa: F401
from chainlet.testing.function_test_case import (  # noqa: F401
    FunctionTestCase, default_tolerances, gpu_skip_reason)
