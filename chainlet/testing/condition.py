"""Repeat flaky (random) tests: ``repeat``, ``retry``, ``repeat_with_success_at_least``.

Each trial runs on a fresh instance of the test case, with its own ``setUp``/``tearDown``.
A trial that skips skips the whole test with the same reason; a failure reports the counts
and the first failing trial's traceback.

Example:
    >>> import io, unittest
    >>> from chainlet.testing import condition
    >>> class T(unittest.TestCase):
    ...     calls = 0
    ...     @condition.retry(3)
    ...     def test_flaky(self):
    ...         T.calls += 1
    ...         self.assertGreater(T.calls, 1)
    >>> runner = unittest.TextTestRunner(stream=io.StringIO())
    >>> runner.run(T('test_flaky')).wasSuccessful()
    True
"""
from __future__ import annotations

import functools
import sys
import traceback
import unittest
from typing import Any, Callable


class QuietTestRunner:
    """Run a ``unittest`` suite into a fresh ``TestResult`` without printing anything."""

    def run(self, suite: Any) -> unittest.TestResult:
        """Run ``suite`` (a ``TestSuite`` or ``TestCase``) and return its result."""
        result = unittest.TestResult()
        suite(result)
        return result


def _skip_reason(exc: BaseException) -> str | None:
    # unittest's SkipTest and pytest's skip outcome (a BaseException) both mean "skipped".
    if isinstance(exc, unittest.SkipTest):
        return str(exc)
    outcomes = sys.modules.get('_pytest.outcomes')  # only a running pytest can raise it
    if outcomes is not None and isinstance(exc, outcomes.Skipped):
        return exc.msg or str(exc)
    return None


def _run_trial(instance: unittest.TestCase, f: Callable, args: tuple,
               kwargs: dict) -> tuple[str, str]:
    """Run one trial on a fresh instance; return ``('ok'|'skip'|'fail', detail)``."""
    trial = type(instance)(instance._testMethodName)
    try:
        trial.setUp()
        try:
            f(trial, *args, **kwargs)
        finally:
            trial.tearDown()
    except BaseException as e:
        reason = _skip_reason(e)
        if reason is not None:
            return 'skip', reason
        if not isinstance(e, Exception):
            raise
        return 'fail', ''.join(traceback.format_exception(type(e), e, e.__traceback__))
    return 'ok', ''


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Callable], Callable]:
    """Run a test up to ``times`` times; it passes once ``min_success`` trials succeeded.

    Args:
        times: Maximum number of trials.
        min_success: Number of successful trials needed (``<= times``).
    """
    assert times >= min_success, f'min_success ({min_success}) exceeds times ({times})'

    def decorator(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            assert args and isinstance(args[0], unittest.TestCase), \
                'condition decorators apply to methods of unittest.TestCase'
            instance = args[0]
            successes = failures = 0
            first_error = None
            for _ in range(times):
                if successes >= min_success:
                    return
                if failures > times - min_success:
                    break
                outcome, detail = _run_trial(instance, f, args[1:], kwargs)
                if outcome == 'skip':
                    instance.skipTest(detail)
                elif outcome == 'ok':
                    successes += 1
                else:
                    failures += 1
                    if first_error is None:
                        first_error = detail
            if successes >= min_success:
                return
            msg = f'\nFail: {failures}, Success: {successes}'
            if first_error is not None:
                msg += '\n\nThe first error message:\n' + first_error
            instance.fail(msg)
        return wrapper

    return decorator


def repeat(times: int) -> Callable[[Callable], Callable]:
    """The test must succeed ``times`` times in a row."""
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Callable], Callable]:
    """The test must succeed at least once in ``times`` trials."""
    return repeat_with_success_at_least(times, 1)
