"""Fixtures for the tests of ``chainlet.testing``: a scratch module to publish classes in."""
from __future__ import annotations

import sys
import types
import unittest
from typing import Any, Iterator

import pytest


class Scratch:
    """A fresh module in ``sys.modules``; Chainer-style decorators publish classes into it."""

    def __init__(self) -> None:
        self.module = types.ModuleType('chainlet_testing_scratch')

    def case(self, name: str, body: dict | None = None, base: Any = unittest.TestCase) -> type:
        """A test case class that says it was defined in the scratch module."""
        namespace = dict(body or {})
        namespace['__module__'] = self.module.__name__
        return type(name, (base,), namespace)

    def generated(self) -> dict:
        """The test case classes currently published in the module, by name."""
        return {k: v for k, v in vars(self.module).items()
                if isinstance(v, type) and issubclass(v, unittest.TestCase)}

    @staticmethod
    def run(cls: type) -> unittest.TestResult:
        """Run every test of ``cls`` with unittest; return the result."""
        result = unittest.TestResult()
        unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
        return result


@pytest.fixture
def scratch() -> Iterator[Scratch]:
    s = Scratch()
    sys.modules[s.module.__name__] = s.module
    yield s
    del sys.modules[s.module.__name__]
