import io

import numpy as np
import pytest

import chainlet
import chainlet.links as L


class _Dict:
    """A minimal serializer: records every (path, value) the links hand over."""

    def __init__(self, target, path=''):
        self.target, self.path = target, path

    def __getitem__(self, name):
        return _Dict(self.target, f'{self.path}/{name}')

    def __call__(self, key, value):
        self.target[f'{self.path}/{key}'] = value
        return value


class _Load(_Dict):
    def __getitem__(self, name):
        return _Load(self.target, f'{self.path}/{name}')

    def __call__(self, key, value):
        stored = self.target[f'{self.path}/{key}']
        if isinstance(value, np.ndarray):  # Chainer's contract: arrays are filled in place
            value[...] = stored
            return value
        return stored


class Net(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(2, 3, 3)
            self.bn = L.BatchNormalization(3)
            self.fc = L.Linear(None, 2)
            self.rnn = L.NStepLSTM(1, 2, 2, 0.0)

    def forward(self, x):
        return self.fc(self.bn(self.conv(x)))


def test_names_and_round_trip():
    np.random.seed(0)
    net = Net()
    x = np.random.randn(2, 2, 4, 4).astype(np.float32)
    y = net(x)
    saved = {}
    net.serialize(_Dict(saved))
    assert {'/conv/W', '/conv/b', '/bn/gamma', '/bn/beta', '/bn/avg_mean', '/bn/avg_var',
            '/bn/N', '/fc/W', '/fc/b', '/rnn/0/w0', '/rnn/0/b7'} <= set(saved)
    saved = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in saved.items()}
    other = Net()
    other.serialize(_Load(saved))  # fills the lazy fc.W too
    assert other.fc.W.shape == (2, 12)
    np.testing.assert_array_equal(other.bn.avg_mean, net.bn.avg_mean)
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(other(x).array, net(x).array, rtol=1e-6)
    assert y.shape == (2, 2)


def test_save_and_load_npz():
    serializers = pytest.importorskip('chainlet.serializers')
    np.random.seed(1)
    net = Net()
    x = np.random.randn(2, 2, 4, 4).astype(np.float32)
    net(x)
    buf = io.BytesIO()
    serializers.save_npz(buf, net)
    buf.seek(0)
    other = Net()
    other(x)
    serializers.load_npz(buf, other)
    for (name, p), (_, q) in zip(net.namedparams(), other.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=name)
    np.testing.assert_array_equal(other.bn.avg_var, net.bn.avg_var)


def test_copyparams_and_device():
    np.random.seed(2)
    a, b = Net(), Net()
    x = np.random.randn(1, 2, 4, 4).astype(np.float32)
    a(x)
    b.copyparams(a)
    np.testing.assert_array_equal(b.fc.W.array, a.fc.W.array)
    np.testing.assert_array_equal(b.rnn[0].w3.array, a.rnn[0].w3.array)
    b.to_device('@numpy')
    assert b.xp is np
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(b(x).array, a(x).array, rtol=1e-6)
