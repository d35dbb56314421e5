"""Class generation shared by ``parameterize``, ``inject_backend_tests`` and ``fix_random``.

Chainer's test decorators do not parametrize methods: each one turns a ``unittest.TestCase``
class into several subclasses, named after the parameters, that are set on the class's module
for pytest to collect. The decorator then returns a *bundle* (not a class) that lists the
generated classes, so that a decorator stacked above can expand each of them again and remove
the intermediate ones from the module. The class names are the test IDs users and Chainer's
reference lists key on, so they follow Chainer's scheme exactly.

A generator passed to :func:`make_decorator` receives the base class and yields
``(class_name, members, method_generator)``: ``members`` go into the new class's namespace and
``method_generator`` maps every ``test_*`` method of the base to its replacement (``None``
hides the method from pytest).
"""
from __future__ import annotations

import collections
import inspect
import sys
import unittest
from typing import Any, Callable, Iterable

# One generated (or bare) test case: the class, and for generated ones the module and name
# under which it was published.
_TestCaseTuple = collections.namedtuple('_TestCaseTuple', ('klass', 'module_name', 'class_name'))


class _ParameterizedTestCaseBundle:
    """What a test-case decorator returns: the classes it generated, for the next decorator."""

    def __init__(self, cases: list) -> None:
        if not all(isinstance(case, _TestCaseTuple) for case in cases):
            raise TypeError('a test case bundle holds _TestCaseTuple entries only')
        self.cases = cases


Generator = Callable[[type], Iterable[tuple]]


def make_decorator(test_case_generator: Generator
                   ) -> Callable[[Any], _ParameterizedTestCaseBundle]:
    """Return a class decorator that expands a test case (or a bundle) with the generator."""

    def decorate(cases: Any) -> _ParameterizedTestCaseBundle:
        if isinstance(cases, _ParameterizedTestCaseBundle):
            cases = cases.cases
        else:
            if not (isinstance(cases, type) and issubclass(cases, unittest.TestCase)):
                raise TypeError('this decorator applies to a unittest.TestCase subclass, '
                                f'got {cases!r}')
            cases = [_TestCaseTuple(cases, None, None)]
        generated = []
        for klass, module_name, class_name in cases:
            if module_name is not None:
                # An intermediate class of a stacked decorator: only its expansions stay.
                delattr(sys.modules[module_name], class_name)
            else:
                module_name = klass.__module__
            generated += _generate_test_cases(module_name, klass, test_case_generator)
        return _ParameterizedTestCaseBundle(generated)

    return decorate


def _generate_case(base: type, module: Any, cls_name: str, members: dict,
                   method_generator: Callable[[Any], Any]) -> _TestCaseTuple:
    # The generated class belongs to the module it is published in (not to this one).
    namespace = {'__module__': module.__name__, **members}
    for name, method in inspect.getmembers(
            base, predicate=lambda m: inspect.ismethod(m) or inspect.isfunction(m)):
        if name.startswith('test_'):
            namespace[name] = method_generator(method)
    cls = type(cls_name, (base,), namespace)
    setattr(module, cls_name, cls)
    return _TestCaseTuple(cls, module.__name__, cls_name)


def _generate_test_cases(module_name: str, base: type,
                         test_case_generator: Generator) -> list:
    module = sys.modules[module_name]
    return [_generate_case(base, module, cls_name, members, method_generator)
            for cls_name, members, method_generator in test_case_generator(base)]
