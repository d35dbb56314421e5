"""Chainer's ``chainer.warnings``: warning categories chainlet emits.

Example:
    >>> import warnings, chainlet.warnings
    >>> issubclass(chainlet.warnings.PerformanceWarning, RuntimeWarning)
    True
"""


class PerformanceWarning(RuntimeWarning):
    """Code runs correctly but slower than it could (e.g. a fallback path was taken)."""
