"""``None`` or a list where an array belongs gives an error that names the function and the
argument, never a bare ``AttributeError`` / ``IndexError`` / ``KeyError`` from deep inside.

As in Chainer, a list is not taken as an array (Chainer raises ``TypeError``). The fuzz test
calls every public function of ``chainlet.functions`` with ``None`` and with a list in each
positional argument, the other required arguments being float32 arrays.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F

BARE = (AttributeError, IndexError, KeyError)


def _public_functions():
    for name in sorted(dir(F)):
        fn = getattr(F, name)
        if name.startswith('_') or inspect.isclass(fn) or inspect.ismodule(fn) or \
                not callable(fn):
            continue
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            continue
        params = [p for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if params:
            yield name, fn, params


def _calls(params):
    """``(index, bad value, args)``: ``None`` and a list in each required argument, a list in
    each optional one (``None`` is the default of most optional arguments)."""
    required = [p for p in params if p.default is p.empty]
    good = [np.ones((2, 3, 4, 4), np.float32) for _ in required]
    for i, p in enumerate(params):
        for bad in (None, [1, 2]):
            if i < len(required):
                args = list(good)
                args[i] = bad
            elif bad is not None:
                args = good + [q.default for q in params[len(required):i]] + [bad]
            else:
                continue
            yield i, bad, args


def _is_bare(name, error):
    """A bare error: one of BARE whose message does not say which function failed."""
    return isinstance(error, BARE) and name not in str(error)


def test_no_bare_errors_for_none_or_list_arguments():
    bare = []
    n_calls = 0
    for name, fn, params in _public_functions():
        for i, bad, args in _calls(params):
            n_calls += 1
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                try:
                    fn(*args)
                except Exception as e:  # noqa: BLE001 (any other error is fine here)
                    if _is_bare(name, e):
                        bare.append(f'{name}(argument {i} = {bad!r}): {type(e).__name__}: {e}')
    assert n_calls > 300  # the whole public list was walked
    assert bare == []


@pytest.mark.parametrize('call,words', [
    (lambda x: F.relu(None), ('relu', 'x', 'NoneType')),
    (lambda x: F.exp(None), ('Exp', 'input 0', 'NoneType')),
    (lambda x: F.tanh(None), ('input 0', 'NoneType')),
    (lambda x: F.sum([1, 2]), ('Sum', 'input 0', 'list')),
    (lambda x: F.linear(x, None), ('linear', 'W', 'NoneType')),
    (lambda x: F.arctan2(x, None), ('arctan2', 'x2', 'NoneType')),
    (lambda x: F.bias(x, None), ('bias', 'y', 'NoneType')),
    (lambda x: F.scale([1.0], x), ('scale', 'x', 'list')),
    (lambda x: F.black_out(x, None, x, x), ('black_out', 't', 'NoneType')),
    (lambda x: F.crf1d(None, [x], [x]), ('crf1d', 'cost', 'NoneType')),
    (lambda x: F.batch_renormalization(x, None, x, 1.0, 1.0), ('gamma', 'NoneType')),
    (lambda x: F.maximum(x, chainlet.Variable(None)), ('Maximum', 'input 1', 'no data')),
])
def test_messages_name_function_argument_and_type(call, words):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError) as info:
        call(x)
    for word in words:
        assert word in str(info.value)


def test_arrays_still_work_after_a_refused_call():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(TypeError):
        F.exp(None)
    np.testing.assert_allclose(F.exp(x).array, np.exp(x))
