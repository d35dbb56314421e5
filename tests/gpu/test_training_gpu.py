"""Links, optimizers and device transfer on the GPU, compared with the same run on the CPU.

Every test is marked ``gpu``; tests/conftest.py skips them (with the reason) when CuPy or a
CUDA device is missing.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import backend, optimizers
from chainlet.testing import assert_allclose

pytestmark = pytest.mark.gpu


@pytest.fixture
def cupy():
    import cupy
    return cupy


class _Net(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            # No bias before BN: its exact gradient is 0, so what reaches it is rounding noise,
            # which Adam and RMSprop scale up to full steps that differ between devices.
            self.conv = L.Convolution2D(1, 4, 3, pad=1, nobias=True)
            self.bn = L.BatchNormalization(4)
            self.fc = L.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return self.fc(F.dropout(h, 0.0))


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 1, 6, 6)).astype(np.float32)
    t = rng.integers(0, 5, 8).astype(np.int32)
    return x, t


OPTIMIZERS = {
    'SGD': lambda: optimizers.SGD(lr=0.1),
    'MomentumSGD': lambda: optimizers.MomentumSGD(lr=0.05),
    'Adam': lambda: optimizers.Adam(alpha=0.01),
    'AdamW': lambda: optimizers.AdamW(alpha=0.01, weight_decay_rate=0.1),
    'AMSGrad': lambda: optimizers.AMSGrad(alpha=0.01),
    'AdaBound': lambda: optimizers.AdaBound(alpha=0.01),
    'AMSBound': lambda: optimizers.AMSBound(alpha=0.01),
    'RMSprop': lambda: optimizers.RMSprop(lr=0.01),
    'RMSprop_inside': lambda: optimizers.RMSprop(lr=0.01, eps_inside_sqrt=True),
    'AdaGrad': lambda: optimizers.AdaGrad(lr=0.05),
}


@pytest.mark.parametrize('name', sorted(OPTIMIZERS))
def test_training_steps_match_cpu(cupy, name):
    x, t = _data()
    np.random.seed(0)
    cpu_net = _Net()
    gpu_net = copy.deepcopy(cpu_net).to_device('@cupy:0')
    results = []
    for net, conv in ((cpu_net, lambda a: a), (gpu_net, cupy.asarray)):
        opt = OPTIMIZERS[name]().setup(net)
        for _ in range(3):
            loss = F.softmax_cross_entropy(net(conv(x)), conv(t))
            net.cleargrads()
            loss.backward()
            opt.update()
        results.append({path: p.array for path, p in net.namedparams()})
        results[-1]['/bn/avg_mean'] = net.bn.avg_mean
    cpu, gpu = results
    for path in cpu:
        assert isinstance(gpu[path], cupy.ndarray), path
        assert_allclose(gpu[path], cpu[path], atol=1e-5, rtol=1e-4, err_msg=f'{path}: ')


def test_link_forward_and_gradients_match_cpu(cupy):
    x, _ = _data()
    np.random.seed(1)
    cpu_net = _Net()
    gpu_net = copy.deepcopy(cpu_net).to_device(backend.GpuDevice(0))
    assert gpu_net.device == '@cupy:0' and gpu_net.xp is cupy
    y_cpu = cpu_net(x)
    y_gpu = gpu_net(cupy.asarray(x))
    assert_allclose(y_gpu.array, y_cpu.array, atol=1e-5, rtol=1e-4)
    (y_cpu * y_cpu).sum().backward()
    (y_gpu * y_gpu).sum().backward()
    for (path, p), (_, q) in zip(cpu_net.namedparams(), gpu_net.namedparams()):
        assert_allclose(q.grad, p.grad, atol=1e-4, rtol=1e-3, err_msg=f'{path}: ')


def test_fp16_parameters_with_fp32_update(cupy):
    link = L.Linear(3, 2).to_device('@cupy:0')
    for p in link.params():
        p.array = p.array.astype(np.float16)
    opt = optimizers.Adam(alpha=0.01).setup(link)
    opt.use_fp32_update()
    x = cupy.ones((4, 3), np.float16)
    before = link.W.array.copy()
    for _ in range(2):
        link.cleargrads()
        F.sum(link(x)).backward()
        opt.update()
    assert link.W.array.dtype == np.float16
    assert float(abs(link.W.array - before).max()) > 0


def test_variable_round_trip(cupy):
    x = chainlet.Variable(np.arange(3, dtype=np.float32))
    x.grad = np.ones(3, np.float32)
    device = backend.get_device('@cupy:0')
    assert x.to_device(device) is x
    assert isinstance(x.array, cupy.ndarray) and isinstance(x.grad, cupy.ndarray)
    assert x.device == '@cupy:0' == device
    assert backend.get_device_from_array(x) == device
    x.to_device('@numpy')
    assert isinstance(x.array, np.ndarray) and x.device == '@numpy'
    np.testing.assert_array_equal(x.array, np.arange(3, dtype=np.float32))


def test_device_send_and_use(cupy):
    device = backend.GpuDevice(0)
    out = device.send({'a': np.zeros(2), 'b': [np.ones(1), None]})
    assert isinstance(out['a'], cupy.ndarray) and out['b'][1] is None
    assert device.send(out['a']) is out['a']
    with backend.using_device(device):
        assert cupy.cuda.Device().id == 0
    device.use()
    assert backend.CpuDevice().send(out['a']).__class__ is np.ndarray


def test_optimizer_state_follows_the_link(cupy):
    link = L.Linear(3, 2)
    opt = optimizers.MomentumSGD(lr=0.1).setup(link)
    x = np.ones((2, 3), np.float32)
    F.sum(link(x)).backward()
    opt.update()
    link.to_device('@cupy:0')
    link.cleargrads()
    F.sum(link(cupy.asarray(x))).backward()
    opt.update()
    assert isinstance(link.W.update_rule.state['v'], cupy.ndarray)
    link.to_device(-1)
    link.cleargrads()
    F.sum(link(x)).backward()
    opt.update()
    assert isinstance(link.W.update_rule.state['v'], np.ndarray)


@pytest.mark.parametrize('name', ['MomentumSGD', 'Adam'])
def test_training_on_the_second_gpu_while_the_first_is_current(cupy, name):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two GPUs')
    x, t = _data()
    np.random.seed(0)
    net = _Net().to_device('@cupy:1')
    device = backend.get_device('@cupy:1')
    opt = OPTIMIZERS[name]().setup(net)
    for _ in range(2):
        loss = F.softmax_cross_entropy(net(device.send(x)), device.send(t))
        net.cleargrads()
        loss.backward()
        opt.update()
    assert cupy.cuda.Device().id == 0  # the current GPU is left as it was
    for path, p in net.namedparams():
        assert p.array.device.id == 1 and p.grad.device.id == 1, path
        for key, state in p.update_rule.state.items():
            assert state.device.id == 1, (path, key)
    assert net.bn.avg_mean.device.id == 1


@pytest.mark.parametrize('name', ['MomentumSGD', 'Adam'])
def test_optimizer_state_follows_the_link_between_gpus(cupy, name):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two GPUs')
    x, t = _data()
    net = _Net().to_device('@cupy:0')
    opt = OPTIMIZERS[name]().setup(net)
    for device_id in (0, 1):
        device = backend.get_device(f'@cupy:{device_id}')
        net.to_device(device)
        with device.device:
            loss = F.softmax_cross_entropy(net(device.send(x)), device.send(t))
            net.cleargrads()
            loss.backward()
            opt.update()
    for path, p in net.namedparams():
        for key, state in p.update_rule.state.items():
            assert state.device.id == 1, (path, key)


def test_to_gpu_is_sticky_and_deprecated(cupy):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two GPUs')
    link = L.Linear(3, 2)
    with pytest.warns(DeprecationWarning, match='to_gpu is deprecated'):
        link.to_gpu(0)
    with pytest.warns(RuntimeWarning, match='stays there'):
        with pytest.warns(DeprecationWarning):
            link.to_gpu(1)
    assert link.W.array.device.id == 0 and link.device == backend.get_device('@cupy:1')
    link.to_device('@cupy:1')
    assert link.W.array.device.id == 1
