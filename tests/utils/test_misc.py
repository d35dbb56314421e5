"""chainlet.utils: experimental, meta.final, nondeterministic and precision."""
import warnings

import numpy as np
import pytest

import chainlet
from chainlet import utils
from chainlet.function_node import FunctionNode
from chainlet.utils import meta, precision


@pytest.fixture
def experimental_warnings(monkeypatch):
    monkeypatch.setattr(chainlet, 'disable_experimental_feature_warning', False)


class C:
    @staticmethod
    def static_method():
        utils.experimental('static_method')

    def __init__(self):
        utils.experimental('C')


def _record(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        fn()
    return w


def test_experimental_warns_future_warning(experimental_warnings):
    for fn, name in [(lambda: utils.experimental('f'), 'f'), (C, 'C'),
                     (C.static_method, 'static_method')]:
        w = _record(fn)
        assert len(w) == 1 and w[0].category is FutureWarning
        assert str(w[0].message) == (f'{name} is experimental. The interface can change in the '
                                     f'future.')
    assert w[0].filename == __file__  # points at the caller of experimental()


def test_experimental_disabled(monkeypatch):
    monkeypatch.setattr(chainlet, 'disable_experimental_feature_warning', True)
    assert _record(lambda: utils.experimental('f')) == []


def test_final_error_and_deprecation():
    class Base(meta.enable_final()):
        @meta.final
        def a(self):
            pass

        @meta.final(action=DeprecationWarning)
        def b(self):
            pass

        def c(self):
            pass

    with pytest.raises(TypeError, match="method 'a' is final."):
        class Child(Base):
            def a(self):
                pass

    with pytest.warns(DeprecationWarning, match="Overriding method 'b' is deprecated."):
        class Child2(Base):
            def b(self):
                pass

    class Child3(Base):  # overriding an ordinary method is fine
        def c(self):
            return 3
    assert Child3().c() == 3


def test_enable_final_with_bases_and_metaclass():
    import abc

    class Mixin:
        def m(self):
            return 'm'
    Base = meta.enable_final(base=Mixin, meta_base=abc.ABCMeta)

    class Abstract(Base):
        @abc.abstractmethod
        def f(self):
            pass
    with pytest.raises(TypeError):
        Abstract()
    assert issubclass(Base, Mixin)


def test_final_bad_action():
    with pytest.raises(ValueError, match='argument action'):
        meta.final(action='warn')(lambda self: None)


def test_nondeterministic():
    assert _record(lambda: utils.nondeterministic('f')) == []
    with chainlet.using_config('warn_nondeterministic', True):
        w = _record(lambda: utils.nondeterministic('scatter'))
    assert len(w) == 1 and str(w[0].message).endswith('Source: scatter')


class _Identity(FunctionNode):
    @precision._fp16_mixed_precision_helper
    def forward(self, inputs):
        self.seen = inputs
        return inputs


class _NoneOut(FunctionNode):
    @precision._fp16_mixed_precision_helper
    def forward(self, inputs):
        return None,


@pytest.mark.parametrize('dtypes,seen,out', [
    ((np.float16, np.float16), (np.float32, np.float32), (np.float16, np.float16)),
    ((np.float32, np.float32), (np.float32, np.float32), (np.float32, np.float32)),
    ((np.float64, np.float64), (np.float64, np.float64), (np.float64, np.float64)),
    ((np.float16, np.int8), (np.float32, np.int8), (np.float16, np.int8)),
    ((np.float16, np.float32), (np.float32, np.float32), (np.float32, np.float32)),
])
def test_fp16_mixed_precision(dtypes, seen, out):
    x = tuple(np.zeros((1, 2, 3), dtype=d) for d in dtypes)
    f = _Identity()
    y = f.apply(x)
    assert tuple(a.dtype for a in f.seen) == seen
    assert tuple(v.dtype for v in y) == out
    for a, b, d in zip(f.seen, x, dtypes):
        if d != np.float16:
            assert a is b  # passed through without a copy


def test_fp16_mixed_precision_wraps_and_none_outputs():
    assert _Identity.forward.__name__ == 'forward'
    out = precision._fp16_mixed_precision_helper(lambda self, x: (None,))(None, (np.zeros(1),))
    assert out == (None,)
