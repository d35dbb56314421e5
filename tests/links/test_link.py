import copy

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import Chain, ChainList, Link, Parameter, Sequential, initializers


class Affine(Link):
    def __init__(self, n_in, n_out):
        super().__init__()
        with self.init_scope():
            self.W = Parameter(initializers.Normal(1.0), (n_in, n_out))
            self.b = Parameter(initializers.Zero(), (n_out,))
        self.add_persistent('count', 0)

    def forward(self, x):
        self.count += 1
        return x @ self.W + self.b

    def _repr_args(self):
        return {'shape': self.W.shape}


class Net(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = Affine(3, 4)
            self.b = Affine(4, 2)

    def forward(self, x):
        return self.b(F.tanh(self.a(x)))


def test_registration_and_traversal():
    net = Net()
    assert [n for n, _ in net.namedparams()] == ['/a/W', '/a/b', '/b/W', '/b/b']
    assert [n for n, _ in net.namedlinks()] == ['/', '/a', '/b']
    assert [n for n, _ in net.namedlinks(skipself=True)] == ['/a', '/b']
    assert list(net.children()) == [net.a, net.b]
    assert net.count_params() == 3 * 4 + 4 + 4 * 2 + 2
    assert net.a.name == 'a' and net.a.W.name == 'W'
    assert net['a'] is net.a


def test_attributes_outside_init_scope_are_not_registered():
    net = Net()
    net.extra = Affine(1, 1)
    net.p = Parameter(initializers.Zero(), (2,))
    assert [n for n, _ in net.namedlinks(skipself=True)] == ['/a', '/b']
    assert len(list(net.params())) == 4
    del net.a
    assert [n for n, _ in net.namedlinks(skipself=True)] == ['/b']


def test_params_follow_namedparams_order():
    # params() walks the tree without building paths; the order and the sharing must match.
    net = Net()
    with net.init_scope():
        net.z = ChainList(Affine(2, 2), Net())
        net.c = net.a  # a shared child: its parameters come once, under the first path
        net.p = Parameter(initializers.Zero(), (2,))
        net.q = Parameter()  # uninitialized
    for include_uninit in (True, False):
        named = [p for _, p in net.namedparams(include_uninit)]
        assert [id(p) for p in net.params(include_uninit)] == [id(p) for p in named]
    assert len(named) == 1 + 4 + 2 + 4 and len(list(net.params())) == len(named) + 1


def test_shared_parameters_listed_once():
    net = Net()
    with net.init_scope():
        net.c = net.a
    assert len(list(net.params())) == 4


def test_cleargrads_zerograds_addgrads_copyparams():
    net, other = Net(), Net()
    x = np.ones((2, 3), np.float32)
    F.sum(net(x)).backward()
    assert all(p.grad is not None for p in net.params())
    with pytest.warns(DeprecationWarning, match='zerograds is deprecated'):
        other.zerograds()
    other.addgrads(net)
    np.testing.assert_array_equal(other.a.W.grad, net.a.W.grad)
    net.cleargrads()
    assert all(p.grad is None for p in net.params())
    other.copyparams(net)
    np.testing.assert_array_equal(other.b.W.array, net.b.W.array)
    assert other.a.count == net.a.count == 1


def test_copy_modes():
    net = Net()
    shared = net.copy('share')
    assert shared.a.W is not net.a.W and shared.a.W.array is net.a.W.array
    deep = net.copy('copy')
    assert deep.a.W.array is not net.a.W.array
    np.testing.assert_array_equal(deep.a.W.array, net.a.W.array)
    fresh = net.copy('init')
    assert not np.array_equal(fresh.a.W.array, net.a.W.array)
    with pytest.raises(ValueError, match="expected 'init', 'copy' or 'share'"):
        net.copy('deep')


def test_update_flags():
    net = Net()
    assert net.update_enabled
    net.a.disable_update()
    assert not net.a.update_enabled and net.b.update_enabled
    net.enable_update()
    assert net.a.update_enabled


def test_chainlist_and_sequential():
    cl = ChainList(Affine(2, 3), Affine(3, 1))
    assert len(cl) == 2 and [n for n, _ in cl.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']
    with pytest.raises(TypeError, match='cannot register a new link within'):
        with cl.init_scope():
            cl.x = Affine(1, 1)
    seq = Sequential(Affine(2, 3), F.tanh, Affine(3, 1))
    y = seq(np.ones((4, 2), np.float32))
    assert y.shape == (4, 1) and len(seq) == 3 and len(list(seq.params())) == 4
    assert isinstance(seq[:2], Sequential) and seq[1] is F.tanh
    seq.pop(1)
    assert len(seq) == 2
    rep = Affine(2, 2).repeat(3)
    assert len(rep) == 3 and rep[0].W.array is not rep[1].W.array
    with pytest.raises(TypeError, match='expected a Link or a callable'):
        Sequential(3)


def test_sequential_list_api():
    # Chainer's Sequential documents list-like use: model_a + model_b, extend, del, flatten...
    a = Sequential(Affine(2, 3), F.tanh)
    b = Sequential(Affine(3, 1), F.sigmoid)
    c = a + b
    assert isinstance(c, Sequential) and len(c) == 4 and c[2] is b[0]
    assert [n for n, _ in c.namedparams()] == ['/0/W', '/0/b', '/1/W', '/1/b']
    assert c(np.ones((4, 2), np.float32)).shape == (4, 1)
    a += Sequential(F.relu)
    assert len(a) == 3 and a[2] is F.relu
    a.extend([F.tanh])
    assert a.count(F.tanh) == 2 and a.index(F.relu) == 2 and F.relu in a
    del a[0]
    assert len(a) == 3 and len(list(a.params())) == 0
    a[0] = Affine(2, 2)
    assert len(list(a.params())) == 2 and a[0].name == '0'
    nested = Sequential(Affine(2, 2), Sequential(F.relu, Affine(2, 2)))
    flat = nested.flatten()
    assert len(flat) == 3 and flat[1] is F.relu
    assert flat.count_by_layer_type('Affine') == 2
    flat.remove_by_layer_type('relu')
    assert len(flat) == 2 and list(reversed(flat))[0] is flat[1]
    flat.clear()
    assert len(flat) == 0 and list(flat.params()) == []
    with pytest.raises(TypeError):
        a + F.relu


def test_repr_lists_children():
    text = repr(Net())
    assert text.splitlines()[0] == 'Net('
    assert '  (a): Affine(shape=(3, 4)),' in text


def test_serialize_protocol_with_a_dict_serializer():
    net = Net()
    saved = {}

    class Saver:
        def __init__(self, prefix=''):
            self.prefix = prefix

        def __getitem__(self, key):
            return Saver(f'{self.prefix}{key}/')

        def __call__(self, key, value):
            saved[self.prefix + key] = copy.deepcopy(value)
            return value
    net.serialize(Saver())
    assert set(saved) == {'a/W', 'a/b', 'a/count', 'b/W', 'b/b', 'b/count'}


def test_init_scope_requires_super_init():
    class Broken(Link):
        def __init__(self):
            with self.init_scope():
                pass
    with pytest.raises(RuntimeError, match='^Link\\.__init__\\(\\) has not been called\\.$'):
        Broken()


def test_devices_cpu():
    net = Net()
    assert net.xp is np and net.device == '@numpy'
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated. Please use to_device"):
        assert net.to_cpu() is net
    assert net.to_device('@numpy') is net


def test_a_shared_copy_shares_the_array_slot_as_in_chainer():
    # ChainerRL copies models before their lazy parameters exist; Chainer's copies share the
    # slot holding the array, so the copy sees the original's later initialization and moves.
    import gc
    import numpy as np
    import chainlet.links as L

    link = L.Linear(None, 3)
    copy = link.copy()
    assert not copy.W.is_initialized
    link(np.ones((2, 4), np.float32))
    assert copy.W.array is link.W.array and copy.W.shape == (3, 4)
    assert copy.W.node.shape == (3, 4)
    copy.W.array = np.zeros((3, 4), np.float32)        # and the other way round
    assert link.W.array is copy.W.array
    assert copy.W.grad is None
    deep = link.copy('copy')
    link.W.array = np.ones((3, 4), np.float32)
    assert deep.W.array.sum() == 0                      # a deep copy owns its array
    del copy
    gc.collect()
    link.W.array = np.full((3, 4), 2, np.float32)       # a dropped copy is simply gone
    assert link.W.array.sum() == 24
