"""chainlet.exporters.caffe: export models, read them back with CaffeFunction, compare."""
import os

import numpy as np
import pytest

pytest.importorskip('google.protobuf')

from google.protobuf import text_format  # noqa: E402

import chainlet  # noqa: E402
import chainlet.functions as F  # noqa: E402
import chainlet.links as L  # noqa: E402
from chainlet.exporters import caffe  # noqa: E402
from chainlet.links.caffe import CaffeFunction  # noqa: E402
from chainlet.links.caffe.protobuf3 import caffe_pb2  # noqa: E402


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


class SmallCNN(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 8, 3, stride=1, pad=1)
            self.bn1 = L.BatchNormalization(8)
            self.conv2 = L.Convolution2D(8, 8, 3, stride=2, pad=1, groups=2, nobias=True)
            self.fc = L.Linear(None, 5)
        # Non-trivial running statistics, so BatchNorm's export is really checked.
        self.bn1.avg_mean[...] = _rand(8, seed=1)
        self.bn1.avg_var[...] = np.abs(_rand(8, seed=2)) + 0.5
        self.bn1.gamma.array[...] = _rand(8, seed=3)
        self.bn1.beta.array[...] = _rand(8, seed=4)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.max_pooling_2d(h, 3, stride=2, pad=1)
        h = F.local_response_normalization(F.leaky_relu(self.conv2(h), 0.2), n=3)
        return F.softmax(self.fc(h))


def _load_and_run(directory, x, output):
    func = CaffeFunction(os.path.join(directory, 'chainer_model.caffemodel'))
    with chainlet.using_config('train', False):
        y, = func(inputs={'data': x}, outputs=[output])
    return func, y.array


def _last_top(directory):
    net = caffe_pb2.NetParameter()
    text_format.Parse((directory / 'chainer_model.prototxt').read_text(), net)
    return net, net.layer[-1].top[0]


def _expected(model, x):
    with chainlet.using_config('train', False):
        return model(x).array


def test_export_small_cnn_and_load_it_back(tmp_path):
    model, x = SmallCNN(), _rand(2, 3, 11, 10)
    caffe.export(model, [chainlet.Variable(x)], str(tmp_path), graph_name='small')
    assert sorted(os.listdir(tmp_path)) == ['chainer_model.caffemodel', 'chainer_model.prototxt']
    net, top = _last_top(tmp_path)
    assert net.name == 'small'
    assert [layer.type for layer in net.layer] == [
        'Input', 'Convolution', 'BatchNorm', 'Scale', 'ReLU', 'Pooling', 'Convolution',
        'ReLU', 'LRN', 'Reshape', 'InnerProduct', 'Softmax']
    assert list(net.layer[0].input_param.shape[0].dim) == [2, 3, 11, 10]
    assert net.layer[1].name == 'Convolution2DFunction-0-1' and net.layer[1].bottom == ['data']
    assert all(not layer.blobs for layer in net.layer)  # weights only in the .caffemodel

    func, y = _load_and_run(tmp_path, x, top)
    np.testing.assert_allclose(y, _expected(model, x), rtol=1e-4, atol=1e-6)
    # The grouped convolution comes back in Chainer's block-diagonal layout.
    conv2 = func[net.layer[6].name]
    assert conv2.W.shape == (8, 8, 3, 3) and not conv2.W.array[:4, 4:].any()
    # The reshape before the InnerProduct copies the batch size (dim 0): other sizes run.
    x5 = _rand(5, 3, 11, 10, seed=7)
    _, y5 = _load_and_run(tmp_path, x5, top)
    np.testing.assert_allclose(y5, _expected(model, x5), rtol=1e-4, atol=1e-6)


class Branches(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = L.Convolution2D(2, 4, (3, 2), pad=(1, 0), dilate=(1, 4))
            self.b = L.Deconvolution2D(2, 4, 3, stride=2, pad=1, groups=2)

    def forward(self, x):
        a = F.sigmoid(self.a(x))                                          # (n, 4, 5, 4)
        b = F.tanh(F.max_pooling_2d(self.b(x), 2))                        # (n, 4, 5, 8)
        b = F.average_pooling_2d(b, (1, 3), stride=(1, 2), pad=(0, 1))    # (n, 4, 5, 4)
        b = F.max_pooling_2d(b, 3, stride=1, pad=1, cover_all=False)      # (n, 4, 5, 4)
        h = F.concat([a + b, a - b, a * b, F.maximum(a, b)], axis=1)
        h = (h * 2.0 + 1.0) / 4.0 - 0.5
        h = 1.0 - h ** 2
        return F.softmax(F.reshape(h, (h.shape[0], 16, -1)), axis=2)


def test_export_branches_constants_and_deconvolution(tmp_path):
    model, x = Branches(), _rand(3, 2, 5, 8)
    caffe.export(model, [x], str(tmp_path))
    net, top = _last_top(tmp_path)
    types = [layer.type for layer in net.layer]
    assert types.count('Eltwise') == 4 and types.count('Power') == 6
    assert types.count('Deconvolution') == 1 and types.count('TanH') == 1
    pools = [layer.pooling_param for layer in net.layer if layer.type == 'Pooling']
    # Caffe rounds pooled sizes up; the file says FLOOR where chainlet's size is the floor.
    P = caffe_pb2.PoolingParameter
    assert [p.round_mode for p in pools] == [P.CEIL, P.FLOOR, P.CEIL]
    assert [p.HasField('round_mode') for p in pools] == [False, True, False]
    conv = [layer for layer in net.layer if layer.type == 'Convolution'][0]
    assert list(conv.convolution_param.dilation) == [1, 4]
    _, y = _load_and_run(tmp_path, x, top)
    np.testing.assert_allclose(y, _expected(model, x), rtol=1e-4, atol=1e-6)


def test_export_without_params_and_without_directory(tmp_path):
    model, x = SmallCNN(), _rand(1, 3, 6, 6)
    caffe.export(model, [x], str(tmp_path / 'out'), export_params=False)
    assert os.listdir(tmp_path / 'out') == ['chainer_model.prototxt']
    assert caffe.export(model, [x], None) is None
    assert sorted(os.listdir(tmp_path)) == ['out']


def test_export_several_inputs_and_outputs(tmp_path):
    class TwoInputs(chainlet.Chain):
        def forward(self, x, y):
            return F.relu(x + y), F.sigmoid(x)

    x, y = _rand(2, 3), _rand(2, 3, seed=1)
    caffe.export(TwoInputs(), [x, y], str(tmp_path))
    net, _ = _last_top(tmp_path)
    assert list(net.layer[0].top) == ['data0', 'data1']
    func = CaffeFunction(str(tmp_path / 'chainer_model.caffemodel'))
    add = [layer for layer in net.layer if layer.type == 'Eltwise'][0]
    assert list(add.bottom) == ['data0', 'data1']
    tops = {layer.type: layer.top[0] for layer in net.layer}
    relu, sig = tops['ReLU'], tops['Sigmoid']
    got = func(inputs={'data0': x, 'data1': y}, outputs=[relu, sig])
    np.testing.assert_allclose(got[0].array, np.maximum(x + y, 0), rtol=1e-6)
    np.testing.assert_allclose(got[1].array, 1 / (1 + np.exp(-x)), rtol=1e-6)


def test_failed_export_keeps_previous_files(tmp_path):
    model, x = SmallCNN(), _rand(1, 3, 6, 6)
    caffe.export(model, [x], str(tmp_path))
    before = {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)}
    with pytest.raises(ValueError, match=r'cannot convert Exp .*layer Exp-'):
        caffe.export(lambda v: F.exp(model(v)), [x], str(tmp_path))
    assert {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)} == before


def test_unsupported_function_is_named(tmp_path):
    with pytest.raises(ValueError, match=r'cannot convert Pad.*supported: .*convolution_2d'):
        caffe.export(lambda x: F.pad(x, 1, 'constant'), [_rand(1, 3)], str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_bad_arguments():
    x = _rand(1, 3)
    with pytest.raises(TypeError, match='list or tuple'):
        caffe.export(F.relu, x, None)
    with pytest.raises(ValueError, match='empty'):
        caffe.export(F.relu, [], None)
    with pytest.raises(TypeError, match='Variable'):
        caffe.export(lambda v: v.array, [x], None)


@pytest.mark.parametrize('forward,match', [
    (lambda x: x + chainlet.Variable(np.ones((1, 3), np.float32)), 'input 1 of _ \\+ _'),
    (lambda x: x + np.ones((1, 1), np.float32), 'one shape'),
    (lambda x: F.local_response_normalization(F.reshape(x, (1, 3, 1, 1)), n=4), 'odd window'),
    (lambda x: F.convolution_2d(F.reshape(x, (1, 1, 1, 3)), np.ones((1, 1, 1, 2), np.float32),
                                stride=2, cover_all=True), 'cover_all'),
    (lambda x: x + np.ones((1, 3), np.float32), 'input 1 of _ \\+ _'),
])
def test_unconvertible_graphs(forward, match):
    with pytest.raises(ValueError, match=match):
        caffe.export(forward, [_rand(1, 3)], None)
