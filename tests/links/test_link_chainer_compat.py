"""Link, Chain, ChainList and Sequential behaviours taken from Chainer 7: registration, sorted
and depth-first traversal, copy modes, devices, serialization contract, str forms."""
import pickle
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import initializers, sequential


def _link(**params):
    link = chainlet.Link()
    with link.init_scope():
        for name, value in params.items():
            setattr(link, name, value)
    return link


def test_old_style_parameters_and_add_param():
    link = chainlet.Link(x=((2, np.int64(3)), 'd'), u=(None, 'd'), v=4)
    assert link.x.shape == (2, 3) and link.x.dtype == np.float64
    assert link.u.array is None and link.u.dtype == np.float64
    assert link.v.shape == (4,) and link.v.dtype == np.float32 and np.isnan(link.v.array).all()
    z = np.arange(6.0).reshape(2, 3)
    link.add_param('z', initializer=z)
    np.testing.assert_array_equal(link.z.array, z)
    link.add_persistent('tag', 'abc')
    with pytest.raises(AttributeError, match="'tag': the attribute exists"):
        link.add_param('tag', (1,))
    assert isinstance(link._params, set) and link._persistent == {'tag'}


def test_missing_super_init_is_reported():
    class NoInit(chainlet.Link):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match=r'^Link\.__init__\(\) has not been called\.$'):
        NoInit()(1)

    class AddsParam(chainlet.Link):
        def __init__(self):
            self.add_param('p', (2,))

    with pytest.raises(RuntimeError, match='has not been called'):
        AddsParam()


def test_traversal_is_sorted_and_depth_first():
    inner = chainlet.Chain()
    with inner.init_scope():
        inner.zeta = _link(b=chainlet.Parameter(np.zeros(1)), a=chainlet.Parameter(np.zeros(1)))
        inner.alpha = chainlet.Link()
    outer = chainlet.Chain()
    with outer.init_scope():
        outer.m = inner
        outer.b = chainlet.Link()
        outer.w = chainlet.Parameter()
    assert [n for n, _ in outer.namedlinks()] == ['/', '/b', '/m', '/m/alpha', '/m/zeta']
    assert [n for n, _ in outer.namedparams()] == ['/w', '/m/zeta/a', '/m/zeta/b']
    assert [n for n, _ in outer.namedparams(include_uninit=False)] == ['/m/zeta/a', '/m/zeta/b']
    assert list(outer.children()) == [outer.b, inner]


def test_chainlist_is_a_mutable_sequence():
    a, b, c, d = (chainlet.Link() for _ in range(4))
    cl = chainlet.ChainList(a, b)
    cl.append(c)
    cl[3:0:-1] = [d, b]  # a b d
    assert list(cl) == [a, b, d] and [x.name for x in cl] == ['0', '1', '2']
    cl[1] = c
    assert c.name == '1'
    del cl[0]
    assert [x.name for x in cl] == ['0', '1']
    cl += chainlet.ChainList(a)
    assert len(cl) == 3 and a.name == '2'
    with pytest.raises(TypeError, match='expected a Link'):
        cl.append(3)
    with pytest.raises(TypeError, match='indices must be integers or slices'):
        cl['x'] = a


def test_str_forms():
    class Spec(chainlet.Link):
        @property
        def printable_specs(self):
            yield 'n', 3

    chain = chainlet.Chain(b=Spec(), a=chainlet.Link())
    assert str(chainlet.Link()) == 'Link()'
    assert str(chain) == 'Chain(\n  (a): Link(),\n  (b): Spec(n=3),\n)'
    assert str(chainlet.ChainList(chainlet.ChainList())) == \
        'ChainList(\n  (0): ChainList(),\n)'


def test_copy_modes_and_names():
    link = _link(w=chainlet.Parameter(initializers.Normal(), (2, 3)), lazy=chainlet.Parameter())
    link.add_persistent('p', np.arange(3.0))
    link.name = 'a'
    shared = link.copy('share')
    assert shared.name is None and shared.w is not link.w and shared.w.array is link.w.array
    assert shared.w.grad is None and shared.p is link.p
    deep = link.copy('copy')
    assert deep.name == 'a' and deep.w.array is not link.w.array and deep.p is not link.p
    np.testing.assert_array_equal(deep.w.array, link.w.array)
    fresh = link.copy('init')
    assert not np.array_equal(fresh.w.array, link.w.array) and fresh.lazy.array is None
    with pytest.raises(ValueError, match="expected 'init', 'copy' or 'share'"):
        link.copy('deep')


def test_count_params_warns_about_uninitialized():
    link = _link(w=chainlet.Parameter(np.zeros((2, 3))), lazy=chainlet.Parameter())
    with pytest.warns(UserWarning, match="'/lazy' has not been initialized"):
        assert link.count_params() == 6
    link.lazy.initialize((4,))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert link.count_params() == 10


def test_device_resident_overrides():
    with pytest.raises(TypeError, match='to_device of a DeviceResident cannot be overridden'):
        class Bad(chainlet.Link):
            def to_device(self, device):
                return self
    calls = []
    with pytest.warns(DeprecationWarning, match='overrides to_cpu'):
        class Old(chainlet.Link):
            def to_cpu(self):
                calls.append('to_cpu')
                with pytest.warns(DeprecationWarning):
                    return super().to_cpu()
    parent = chainlet.Chain(child=Old())
    parent.to_device('@numpy')  # the override runs for the child
    assert calls == ['to_cpu'] and parent.device.xp is np and parent.child.xp is np
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        parent.to_chx()
    assert parent.from_chx() is parent
    with pytest.warns(DeprecationWarning, match='to_intel64 is deprecated'):
        with pytest.raises(RuntimeError, match='iDeep is not available'):
            parent.to_intel64()


def test_serialize_contract():
    link = _link(w=chainlet.Parameter(np.zeros(2, np.float32)), lazy=chainlet.Parameter())
    link.add_persistent('n', 1)
    calls = []

    def deserializer(key, value):
        calls.append(key)
        if key == 'w':
            value[...] = 5  # a deserializer fills arrays in place
            return 'ignored for initialized parameters'
        return {'lazy': np.ones(3, np.float32), 'n': 7}[key]

    link.serialize(deserializer)
    assert calls == ['lazy', 'w', 'n']
    np.testing.assert_array_equal(link.w.array, 5)
    np.testing.assert_array_equal(link.lazy.array, np.ones(3))
    assert link.n == 7


def test_sequential_chainer_behaviours():
    s = sequential.Sequential(L.Linear(3, 2), F.relu)
    assert str(s).startswith('Sequential(\n  (0): Linear(in_size=3, out_size=2, nobias=False),\n'
                             '  (1): <function relu at ')
    for bad in (lambda: sequential.Sequential(0), lambda: s + 0):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(TypeError):  # also a TypeError, by chainlet's own convention
        s.append('relu')
    with pytest.raises(RuntimeError, match='does not have any layer'):
        sequential.Sequential()(np.zeros(1))
    with_lambda = sequential.Sequential(L.Linear(3, 2), lambda x: x)
    with pytest.raises(ValueError, match='lambda step cannot be pickled'):
        pickle.dumps(with_lambda)
    copied = with_lambda.copy('copy')
    assert copied[1] is with_lambda[1] and copied[0] is not with_lambda[0]
    restored = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(restored[0].W.array, s[0].W.array)
    rep = s.repeat(2, mode='share')
    assert len(rep) == 2 and rep[0][0].W.array is s[0].W.array


def test_sequential_setitem_out_of_range_is_index_and_value_error():
    # Chainer raises ValueError there; IndexError is Python's convention. Nothing changes.
    s = sequential.Sequential(L.Linear(3, 2), F.relu)
    for index in (2, 5, -3):
        for exc in (IndexError, ValueError):
            with pytest.raises(exc, match='out of range for 2 steps'):
                s[index] = F.sigmoid
    assert list(s)[1] is F.relu and len(s) == 2
    s[-1] = F.sigmoid
    assert s[1] is F.sigmoid
