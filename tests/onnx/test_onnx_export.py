"""chainlet.onnx.export checked by onnxruntime: the exported graph computes what chainlet computed
(within 1e-5 relative), for the traced batch size and for others, and passes onnx's checker."""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import keras

onnx = pytest.importorskip('onnx.checker').__name__ and __import__('onnx')  # the real package
ort = pytest.importorskip('onnxruntime')
chainlet_onnx = pytest.importorskip('chainlet.onnx')


def _session(proto):
    return ort.InferenceSession(proto.SerializeToString(), providers=['CPUExecutionProvider'])


def _close(got, ref):
    ref = np.asarray(ref)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(ref).max()))


def _check(model, x, *others, **kwargs):
    """Export ``model`` traced on ``x``; compare onnxruntime with chainlet on ``x`` and others."""
    proto = chainlet_onnx.export(model, x, **kwargs)
    onnx.checker.check_model(proto, full_check=True)
    sess = _session(proto)
    name = sess.get_inputs()[0].name
    for xx in (x,) + others:
        with chainlet.using_config('train', False):
            ref = model(chainlet.Variable(xx))
        _close(sess.run(None, {name: xx})[0], ref.array)
    return proto


RNG = np.random.default_rng(0)


def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


class CNN(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv = L.Convolution2D(3, 4, 3, pad=1)
            self.bn = L.BatchNormalization(4)
            self.deconv = L.Deconvolution2D(4, 3, 2, stride=2)
            self.fc = L.Linear(None, 5)
        # running statistics unlike a fresh layer's, so test mode is visible in the result
        self.bn.avg_mean[...] = RNG.standard_normal(4)
        self.bn.avg_var[...] = RNG.random(4) + 0.5

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn(self.conv(x))), 3, stride=2)
        h = F.average_pooling_2d(self.deconv(h), 2)
        return self.fc(F.dropout(h, 0.5))


class LSTMTagger(chainlet.Chain):
    """Embedding, an LSTM unrolled over the time axis, a classifier on the last state."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(10, 4)
            self.lstm = L.LSTM(4, 6)
            self.out = L.Linear(6, 3)

    def forward(self, x):
        self.lstm.reset_state()
        for t in range(x.shape[1]):
            h = self.lstm(self.embed(x[:, t]))
        return F.log_softmax(self.out(h))


def test_mlp_sequential_with_other_batch_sizes():
    model = chainlet.Sequential(L.Linear(6, 16), F.relu, L.Linear(16, 3), F.softmax)
    proto = _check(model, _normal(4, 6), _normal(7, 6), _normal(1, 6))
    assert [n.op_type for n in proto.graph.node] == ['Gemm', 'Relu', 'Gemm', 'Softmax']
    assert sorted(i.name for i in proto.graph.initializer) == ['0_W', '0_b', '1_W', '1_b']
    dim = proto.graph.input[0].type.tensor_type.shape.dim
    assert dim[0].dim_param == 'batch' and dim[1].dim_value == 6


def test_cnn_conv_batchnorm_pooling():
    proto = _check(CNN(), _normal(2, 3, 9, 9), _normal(5, 3, 9, 9))
    ops = {n.op_type for n in proto.graph.node}
    assert {'Conv', 'BatchNormalization', 'MaxPool', 'ConvTranspose', 'AveragePool',
            'Gemm'} <= ops
    assert 'Dropout' not in ops


def test_lstm_unrolled_with_embedding():
    x = RNG.integers(0, 10, (3, 5)).astype(np.int32)
    proto = _check(LSTMTagger(), x, RNG.integers(0, 10, (8, 5)).astype(np.int32))
    assert 'Gather' in {n.op_type for n in proto.graph.node}


def test_gru_link():
    gru = L.StatefulGRU(3, 4)

    def model(x):
        gru.reset_state()
        for t in range(x.shape[1]):
            h = gru(x[:, t])
        return h
    _check(model, _normal(2, 4, 3), _normal(5, 4, 3))


def _keras_functional():
    inp = keras.Input((8, 8, 3))
    h = keras.layers.Conv2D(4, 3, padding='same', activation='relu')(inp)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.Flatten()(h)
    a = keras.layers.Dense(5)(h)
    b = keras.layers.Dense(5, activation='softmax')(h)
    out = keras.layers.Dropout(0.5)(keras.layers.Add()([a, b]))
    return keras.Model(inp, out)


def test_keras_functional_model_export_method(tmp_path, capsys):
    model = _keras_functional()
    path = tmp_path / 'model.onnx'
    model.export(str(path), format='onnx')
    assert 'model.onnx' in capsys.readouterr().out
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto, full_check=True)
    sess = _session(proto)
    name = model.inputs[0].name
    for n in (3, 1):
        x = _normal(n, 8, 8, 3)
        _close(sess.run(None, {name: x})[0], model.predict(x, verbose=0))


def test_keras_functional_model_through_chainlet_onnx():
    model = _keras_functional()
    _check(model, _normal(2, 8, 8, 3), _normal(6, 8, 8, 3))


@pytest.mark.parametrize('layer', ['LSTM', 'GRU', 'SimpleRNN'])
def test_keras_recurrent_layers(layer, tmp_path):
    inp = keras.Input((5, 3))
    model = keras.Model(inp, keras.layers.Dense(2)(getattr(keras.layers, layer)(6)(inp)))
    model.export(str(tmp_path / 'rnn.onnx'), format='onnx', verbose=False)
    sess = ort.InferenceSession(str(tmp_path / 'rnn.onnx'), providers=['CPUExecutionProvider'])
    x = _normal(4, 5, 3)
    _close(sess.run(None, {inp.name: x})[0], model.predict(x, verbose=0))


def test_keras_export_needs_onnx_format_and_inputs(tmp_path):
    model = _keras_functional()
    with pytest.raises(ValueError, match="format='onnx'"):
        model.export(str(tmp_path / 'm'), format='tf_saved_model')
    seq = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match='input_signature'):
        seq.export(str(tmp_path / 'm.onnx'), format='onnx')
    seq.export(str(tmp_path / 'm.onnx'), format='onnx', verbose=False,
               input_signature=[keras.Input((3,))], input_names=['Input_0'])
    x = _normal(4, 3)
    got = _session(onnx.load(str(tmp_path / 'm.onnx'))).run(None, {'Input_0': x})[0]
    _close(got, seq.predict(x, verbose=0))


def _example(name):
    """Import ``examples/<name>.py`` as a module (its models are what users export)."""
    path = pathlib.Path(__file__).resolve().parents[2] / 'examples' / f'{name}.py'
    spec = importlib.util.spec_from_file_location(f'_onnx_example_{name}', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_models_mlp_and_convnet():
    _check(_example('train_digits').MLP(20, 10), _normal(4, 64), _normal(9, 64))
    _check(_example('convnet').ConvNet(), _normal(3, 1, 8, 8), _normal(5, 1, 8, 8))


def test_example_keras_functional_two_inputs_two_outputs(tmp_path):
    model = _example('keras_functional').build_model()
    model.export(str(tmp_path / 'two.onnx'), format='onnx', verbose=False)
    sess = ort.InferenceSession(str(tmp_path / 'two.onnx'), providers=['CPUExecutionProvider'])
    assert [i.name for i in sess.get_inputs()] == ['left', 'right']
    a, b = _normal(6, 3), _normal(6, 3)
    got = sess.run(None, {'left': a, 'right': b})
    for g, r in zip(got, model.predict([a, b], verbose=0)):
        _close(g, r)


_LAYER_NORM = L.LayerNormalization(5)
_PRELU = L.PReLU((5,))

# (name, function of one (batch, 5) float32 Variable); every one runs on batches 3 and 6
_OPS = [
    ('leaky_relu', lambda x: F.leaky_relu(x, 0.1)),
    ('sigmoid_tanh', lambda x: F.sigmoid(x) * F.tanh(x)),
    ('elu', lambda x: F.elu(x, 0.7)),
    ('selu', F.selu),
    ('celu', lambda x: F.celu(x, 2.0)),
    ('softplus', F.softplus),
    ('softplus_beta', lambda x: F.softplus(x, beta=2.0)),
    ('gelu', F.gelu),
    ('clipped_relu', lambda x: F.clipped_relu(x, 0.5)),
    ('hard_sigmoid', F.hard_sigmoid),
    ('swish', lambda x: F.swish(x, np.full(5, 0.7, np.float32))),
    ('prelu', lambda x: _PRELU(x)),
    ('log_softmax', F.log_softmax),
    ('softmax_axis0', lambda x: F.softmax(F.transpose(x), axis=0)),
    ('layer_normalization', lambda x: _LAYER_NORM(x)),
    ('constants', lambda x: (2 * x + 1 - x / 3) / (x * x + 2) - 1 / (x * x + 1) + 3 - x),
    ('pow_exp_log_sqrt', lambda x: x ** 2 + 2 ** x + F.exp(x) + F.log(x * x + 1)
     + F.sqrt(x * x) + F.rsqrt(x * x + 1) + F.square(x) + abs(x) + (-x)),
    ('broadcasting', lambda x: x + np.arange(5, dtype=np.float32) * x[:, :1]
     - F.broadcast_to(F.sum(x, axis=1, keepdims=True), x.shape)),
    ('matmul', lambda x: F.matmul(x, np.ones((5, 2), np.float32))),
    ('matmul_transposed', lambda x: F.matmul(x, x, transb=True)),
    ('sum_mean_max', lambda x: F.sum(x, axis=1) + F.mean(x, axis=1) + F.max(x, axis=1)
     - F.min(x, axis=-1)),
    ('reshape_transpose', lambda x: F.transpose(F.reshape(x, (-1, 1, 5)), (0, 2, 1))),
    ('concat_split', lambda x: F.concat(F.split_axis(x, [1, 3], axis=1)[::-1], axis=1)),
    ('stack', lambda x: F.stack([x, 2 * x], axis=1)),
    ('get_item', lambda x: x[:, 1:4][:, ::-1] + x[..., 0:1] + x[:, None, 2][:, 0, None]),
    ('get_item_step', lambda x: x[:, ::2]),
    ('expand_squeeze', lambda x: F.squeeze(F.expand_dims(x, 1), 1)),
    ('flatten_like', lambda x: F.reshape(F.stack([x, x], axis=2), (x.shape[0], -1))),
    ('clip_max_min', lambda x: F.clip(x, -0.5, 0.5) + F.maximum(x, 0 * x + 0.1)
     + F.minimum(x, np.full(5, 0.2, np.float32))),
    ('trigonometric', lambda x: F.sin(x) + F.cos(x) + F.arctan(x)),
    ('cast', lambda x: F.cast(F.cast(x, np.float64) * 2, np.float32)),
    ('zeros_state', lambda x: x + chainlet.Variable(np.zeros(x.shape, np.float32))),
]


@pytest.mark.parametrize('name,fn', _OPS, ids=[n for n, _ in _OPS])
def test_functions_match_onnxruntime(name, fn):
    _check(fn, _normal(3, 5), _normal(6, 5))


def test_image_functions_other_settings():
    def model(x):
        y = F.convolution_2d(x, np.ones((4, 1, 3, 3), np.float32) / 9, stride=2, pad=1,
                             groups=2, dilate=1, cover_all=True)
        y = F.max_pooling_2d(y, 2, stride=2, pad=1, cover_all=False)
        z = F.average_pooling_2d(x, 3, stride=1, pad=1)
        z = F.deconvolution_2d(z, np.ones((2, 3, 3, 3), np.float32), stride=2, pad=1,
                               outsize=(14, 14))
        return F.sum(y, axis=(1, 2, 3)) + F.sum(z, axis=(1, 2, 3))
    _check(model, _normal(2, 2, 7, 7), _normal(4, 2, 7, 7))


def test_embed_id_ignore_label():
    embed = L.EmbedID(5, 3, ignore_label=-1)
    x = np.array([0, -1, 4, 2], np.int32)
    _check(embed, x, np.array([-1, 3], np.int32))


def test_channels_last_batch_normalization():
    gamma, beta = _normal(4), _normal(4)
    mean, var = _normal(4), RNG.random(4).astype(np.float32) + 0.5

    def model(x):
        return F.fixed_batch_normalization(x, gamma, beta, mean, var, axis=(0, 1, 2))
    _check(model, _normal(2, 3, 3, 4), _normal(3, 3, 3, 4))


def test_unsupported_function_names_it_and_where():
    model = chainlet.Sequential(L.Linear(3, 4), F.cumsum)
    with pytest.raises(chainlet_onnx.UnsupportedFunctionError) as info:
        chainlet_onnx.export(model, _normal(2, 3))
    message = str(info.value)
    assert 'Cumsum' in message and '(2, 4)' in message and 'LinearFunction' in message
    assert 'function 2 of 2' in message and 'external_converters' in message


def test_advanced_indexing_is_refused_clearly():
    with pytest.raises(chainlet_onnx.UnsupportedFunctionError, match='basic indexing'):
        chainlet_onnx.export(lambda x: x[np.array([0, 1])], _normal(3, 2))


def test_external_converter():
    def cumsum(g, f, ins, outs):
        g.op('CumSum', [ins[0], g.const(np.asarray(f.axis, np.int64))], outs[0])
    _check(lambda x: F.cumsum(x, axis=1), _normal(2, 4), _normal(5, 4),
           external_converters={'Cumsum': cumsum})


def test_files_names_and_options(tmp_path):
    model = chainlet.Sequential(L.Linear(3, 2))
    path = tmp_path / 'm.onnx'
    proto, inputs, outputs = chainlet_onnx.export(
        model, _normal(2, 3), str(path), save_text=True, input_names=['x'],
        output_names=['y'], graph_name='G', return_named_inout=True)
    assert list(inputs) == ['x'] and list(outputs) == ['y']
    assert onnx.load(str(path)) == proto and proto.graph.name == 'G'
    assert 'Gemm' in (tmp_path / 'm.onnx.txt').read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ['m.onnx', 'm.onnx.txt']
    no_params = chainlet_onnx.export(model, _normal(2, 3), export_params=False)
    assert not no_params.graph.initializer
    assert [i.name for i in no_params.graph.input] == ['Input_0', '0_W', '0_b']
    assert chainlet_onnx.export(model, _normal(2, 3), opset_version=18).opset_import[0].version \
        == 18
    with pytest.raises(ValueError, match='opset_version'):
        chainlet_onnx.export(model, _normal(2, 3), opset_version=11)
    with pytest.raises(ValueError, match='input_names'):
        chainlet_onnx.export(model, _normal(2, 3), input_names=['a', 'b'])


def test_layer_normalization_opset_18_reduce_axes_as_input():
    proto = _check(_LAYER_NORM, _normal(3, 5), _normal(4, 5), opset_version=18)
    assert proto.opset_import[0].version == 18


def test_dict_inputs_and_outputs():
    def model(a, b):
        return {'sum': a + b, 'prod': a * b}
    x, y = _normal(2, 3), _normal(2, 3)
    proto = chainlet_onnx.export(model, {'a': x, 'b': y})
    got = _session(proto).run(['sum', 'prod'], {'a': x, 'b': y})
    _close(got[0], x + y)
    _close(got[1], x * y)


def test_train_false_is_the_default_and_train_true_traces_training():
    model = chainlet.Sequential(L.Linear(3, 3), lambda h: F.dropout(h, 0.5))
    ops = {n.op_type for n in chainlet_onnx.export(model, _normal(2, 3)).graph.node}
    assert ops == {'Gemm'}
    with pytest.raises(chainlet_onnx.UnsupportedFunctionError, match='Dropout'):
        chainlet_onnx.export(model, _normal(2, 3), train=True)
