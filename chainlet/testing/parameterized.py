"""``parameterize`` and the parameter-list builders ``product`` and ``product_dict``.

``@parameterize(p0, p1, ...)`` on a ``unittest.TestCase`` publishes one subclass per dict,
named ``<Base>_param_<i>_{k0=v0, k1=v1}`` (keys sorted, a type shown by its name, anything
else by its ``repr``, long values shortened in the middle), whose class attributes are the
dict's entries. Decorators stack: each generated class is expanded again by the next one.

Example:
    >>> import unittest
    >>> from chainlet import testing
    >>> testing.product({'a': [1, 2], 'b': ['x']})
    [{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'x'}]
    >>> testing.product_dict([{'a': 1}, {'a': 2}], [{'b': 3}])
    [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]
    >>> testing.parameterized._make_class_name('TestF', 0, {'shape': (3,), 'dtype': float})
    'TestF_param_0_{dtype=float, shape=(3,)}'
"""
from __future__ import annotations

import functools
import io
import itertools
import types
import unittest
from typing import Any, Callable, Iterator, Sequence, cast

import numpy

from chainlet.testing import _bundle


def _param_to_str(obj: Any) -> str:
    # Classes, functions and methods show their name (``dtype=float32``, ``f=<lambda>``).
    if isinstance(obj, type):
        return obj.__name__
    name = getattr(obj, '__name__', None)
    if isinstance(name, str):
        return name
    return repr(obj)


def _shorten(s: str, maxlen: int) -> str:
    # Keep both ends of a long value: the middle is replaced by '...'.
    if len(s) <= maxlen:
        return s
    head = (maxlen - 3) // 2
    tail = maxlen - 3 - head
    return s[:head] + '...' + s[len(s) - tail:]


def _make_class_name(base_class_name: str, i_param: int, param: dict) -> str:
    """Name of the class generated for the ``i_param``-th parameter dict ``param``."""
    items = ', '.join(f'{k}={_shorten(_param_to_str(v), 100)}'
                      for k, v in sorted(param.items()))
    return f'{base_class_name}_param_{i_param}_{{{_shorten(items, 5000)}}}'


def _raise_with_context(exc: Exception, message: str) -> None:
    # Re-raise as the same exception type with the parameters prepended, so that pytest's
    # report says which combination failed; keep the original when its type cannot be rebuilt.
    try:
        new = type(exc)(f'{message}\n(caused by)\n{type(exc).__name__}: {exc}')
    except Exception:
        raise exc
    raise new.with_traceback(exc.__traceback__) from None


def _parameterize_test_case(base: type, i: int, param: dict) -> tuple:
    cls_name = _make_class_name(base.__name__, i, param)

    def __str__(self: Any) -> str:
        # The base class's own (unbound) ``__str__`` applied to the instance; the ``cast``
        # because the type checker reads ``base.__str__`` as ``__str__`` bound to ``base``.
        return f'{cast(Any, base).__str__(self)}  parameter: {param}'

    members: dict = {'__str__': __str__}
    for k, v in sorted(param.items()):
        if isinstance(v, types.FunctionType):
            # A plain function stays callable as ``self.k(...)`` instead of becoming a method.
            members[k] = staticmethod(v)
        else:
            members[k] = v

    def method_generator(base_method: Callable) -> Callable:
        @functools.wraps(base_method)
        def new_method(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return base_method(self, *args, **kwargs)
            except unittest.SkipTest:
                raise
            except Exception as e:
                s = io.StringIO()
                s.write('Parameterized test failed.\n\n')
                s.write(f'Base test method: {base.__name__}.{base_method.__name__}\n')
                s.write('Test parameters:\n')
                for key, value in sorted(param.items()):
                    s.write(f'  {key}: {value}\n')
                _raise_with_context(e, s.getvalue())
        return new_method

    return cls_name, members, method_generator


def parameterize(*params: dict) -> Callable[[Any], Any]:
    """Class decorator: one generated test case per parameter dict.

    Args:
        *params: Dicts; each entry becomes a class attribute of its generated test case.

    Returns:
        A decorator for ``unittest.TestCase`` subclasses (or for what another test-case
        decorator returned).
    """
    return _bundle.make_decorator(
        lambda base: (_parameterize_test_case(base, i, p) for i, p in enumerate(params)))


def _values_to_dicts(names: str, values: Sequence) -> list:
    if not isinstance(names, str):
        raise TypeError(f'parameter names must be a str, got {type(names).__name__}')
    if not isinstance(values, (tuple, list)):
        raise TypeError(f'parameter values must be a tuple or list, got {type(values).__name__}')
    keys = names.split(',')

    def pairs(value: Any) -> Any:
        if len(keys) == 1:
            return [(keys[0], value)]
        if not (isinstance(value, (tuple, list)) and len(value) == len(keys)):
            raise ValueError(f'{names!r} needs {len(keys)} values per entry, got {value!r}')
        return zip(keys, value)

    return [dict(pairs(value)) for value in values]


def from_pytest_parameterize(names: str, values: Sequence) -> list:
    """Turn pytest-style ``('a,b', [(1, 2), (3, 4)])`` into a list of parameter dicts."""
    return _values_to_dicts(names, values)


def parameterize_pytest(names: str, values: Sequence) -> Callable[[Any], Any]:
    """``parameterize`` with pytest's ``parametrize(names, values)`` arguments."""
    return parameterize(*from_pytest_parameterize(names, values))


def product(parameter: dict | list) -> list:
    """Cartesian product of parameter values.

    Args:
        parameter: Either a dict mapping names (``'a'``, or ``'a,b'`` with tuple values) to
            lists of values, taken in sorted key order; or a list of lists of dicts, whose
            product merges one dict from each list.

    Returns:
        A list of parameter dicts.
    """
    if isinstance(parameter, dict):
        return product_dict(*[_values_to_dicts(names, values)
                              for names, values in sorted(parameter.items())])
    if isinstance(parameter, list):
        if not all(isinstance(lst, list) for lst in parameter) or \
                not all(isinstance(d, dict) for lst in parameter for d in lst):
            raise TypeError('parameter must be list of lists of dicts')
        return product_dict(*parameter)
    raise TypeError(f'parameter must be either dict or list. Actual: {type(parameter)}')


def product_dict(*parameters: Sequence[dict]) -> list:
    """Merge one dict from each list, for every combination (later dicts win on a clash)."""
    return [{k: v for dic in dicts for k, v in dic.items()}
            for dicts in itertools.product(*parameters)]


# Chainer's conftest may swap ``product_dict`` for the pairwise variant while collecting;
# the original stays reachable under this name (its tests check the identity).
_product_dict_orig = product_dict


def _pairwise_product_dict(*parameters: Sequence[dict]) -> list:
    """Combinations that cover every pair of values of any two lists (not every tuple)."""
    if len(parameters) <= 2:
        return _product_dict_orig(*parameters)
    lists = [list(dicts) for dicts in parameters]
    return [{k: v for i, dicts in zip(index, lists) for k, v in dicts[i].items()}
            for index in sorted(_nd_indices_to_cover_each_2d([len(d) for d in lists]))]


def _nd_indices_to_cover_each_2d(shape: Sequence[int]) -> Iterator[tuple]:
    rs = numpy.random.RandomState(seed=0)
    n = len(shape)
    uncovered = {(i, j): set(itertools.product(range(shape[i]), range(shape[j])))
                 for i, j in itertools.combinations(range(n), 2)}
    indices = list(itertools.product(*[range(s) for s in shape]))
    rs.shuffle(indices)
    for index in indices:
        newly = 0
        for i, j in itertools.combinations(range(n), 2):
            pair = (index[i], index[j])
            if pair in uncovered[(i, j)]:
                uncovered[(i, j)].remove(pair)
                newly += 1
        if newly:
            yield index
