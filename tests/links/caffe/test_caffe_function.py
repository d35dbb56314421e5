"""CaffeFunction on hand-written Caffe models, checked against NumPy versions of Caffe's layers."""
import copy
import warnings

import numpy as np
import pytest

pytest.importorskip('google.protobuf')

import chainlet  # noqa: E402
from chainlet.links.caffe import CaffeFunction  # noqa: E402
from chainlet.links.caffe.protobuf3 import caffe_pb2  # noqa: E402
from chainlet.serializers import load_npz, save_npz  # noqa: E402

RNG = np.random.RandomState(0)


def _rand(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def _blob(layer, array, legacy=False):
    blob = layer.blobs.add()
    if legacy:  # Caffe's first format: num, channels, height, width
        blob.num, blob.channels, blob.height, blob.width = (1,) * (4 - array.ndim) + array.shape
    else:
        blob.shape.dim.extend(array.shape)
    blob.data.extend(array.ravel().tolist())


def _write(tmp_path, net, name='model.caffemodel'):
    path = tmp_path / name
    path.write_bytes(net.SerializeToString())
    return str(path)


def _net(*layers):
    """A NetParameter from (name, type, bottoms, tops, setup) tuples; setup(layer) fills it."""
    net = caffe_pb2.NetParameter(name='test')
    for name, type_name, bottoms, tops, setup in layers:
        layer = net.layer.add(name=name, type=type_name, bottom=bottoms, top=tops)
        if setup is not None:
            setup(layer)
    return net


def _run(tmp_path, net, inputs, outputs):
    func = CaffeFunction(_write(tmp_path, net))
    with chainlet.using_config('train', False):
        ys = func(inputs=inputs, outputs=outputs)
    return func, [y.array for y in ys]


# -- NumPy versions of Caffe's layers --

def _conv_ref(x, W, b, stride, pad, dilate=(1, 1), group=1):
    n, c, h, w = x.shape
    o, cg, kh, kw = W.shape
    (sy, sx), (ph, pw), (dy, dx) = stride, pad, dilate
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - dy * (kh - 1) - 1) // sy + 1
    ow = (w + 2 * pw - dx * (kw - 1) - 1) // sx + 1
    y = np.zeros((n, o, oh, ow))
    og = o // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dy:i * dy + sy * (oh - 1) + 1:sy,
                           j * dx:j * dx + sx * (ow - 1) + 1:sx]
                y[:, g * og:(g + 1) * og] += np.einsum('nchw,oc->nohw', patch,
                                                       W[g * og:(g + 1) * og, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def _deconv_ref(x, W, b, stride, pad, group=1):
    n, c, h, w = x.shape
    _, og, kh, kw = W.shape
    (sy, sx), (ph, pw) = stride, pad
    full = np.zeros((n, og * group, sy * (h - 1) + kh, sx * (w - 1) + kw))
    cg = c // group
    for g in range(group):
        for i in range(kh):
            for j in range(kw):
                full[:, g * og:(g + 1) * og, i:i + sy * (h - 1) + 1:sy,
                     j:j + sx * (w - 1) + 1:sx] += np.einsum(
                         'nchw,co->nohw', x[:, g * cg:(g + 1) * cg],
                         W[g * cg:(g + 1) * cg, :, i, j])
    y = full[:, :, ph:full.shape[2] - ph, pw:full.shape[3] - pw]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def _pool_ref(x, k, s, p, op, ceil):
    n, c, h, w = x.shape
    size = [(d + 2 * p - k + (s - 1 if ceil else 0)) // s + 1 for d in (h, w)]
    y = np.zeros((n, c) + tuple(size))
    for i in range(size[0]):
        for j in range(size[1]):
            top, left = i * s - p, j * s - p
            if op == 'max':
                win = x[:, :, max(top, 0):top + k, max(left, 0):left + k]
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:  # Caffe and chainlet both divide by the whole (padded) window
                win = x[:, :, max(top, 0):top + k, max(left, 0):left + k]
                y[:, :, i, j] = win.sum(axis=(2, 3)) / (k * k)
    return y


def _lrn_ref(x, size, alpha, beta, k):
    sq = np.pad(x ** 2, ((0, 0), (size // 2, size // 2), (0, 0), (0, 0)))
    window = sum(sq[:, i:i + x.shape[1]] for i in range(size))
    return x / (k + alpha / size * window) ** beta


# -- layers --

@pytest.mark.parametrize('group,stride,pad,dilation', [
    (1, 1, 0, 1), (2, 2, 1, 1), (1, 1, 2, 2), (3, 1, 1, 1)])
def test_convolution(tmp_path, group, stride, pad, dilation):
    x, W, b = _rand(2, 6, 9, 8), _rand(6, 6 // group, 3, 3), _rand(6)

    def setup(layer):
        p = layer.convolution_param
        p.num_output, p.group = 6, group
        p.kernel_size.append(3)
        p.stride.append(stride)
        p.pad.append(pad)
        if dilation != 1:
            p.dilation.append(dilation)
        _blob(layer, W)
        _blob(layer, b)

    func, (y,) = _run(tmp_path, _net(('conv', 'Convolution', ['data'], ['conv'], setup)),
                      {'data': x}, ['conv'])
    expected = _conv_ref(x, W, b, (stride,) * 2, (pad,) * 2, (dilation,) * 2, group)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    # Chainer's layout: one convolution over all channels, zero between groups.
    assert func.conv.W.shape == (6, 6, 3, 3)


def test_convolution_hw_fields_and_no_bias(tmp_path):
    x, W = _rand(1, 2, 7, 9), _rand(3, 2, 2, 3)

    def setup(layer):
        p = layer.convolution_param
        p.num_output, p.bias_term = 3, False
        p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w = 2, 3, 2, 1, 1, 0
        _blob(layer, W)

    func, (y,) = _run(tmp_path, _net(('c', 'Convolution', ['data'], ['c'], setup)),
                      {'data': x}, ['c'])
    np.testing.assert_allclose(y, _conv_ref(x, W, None, (2, 1), (1, 0)), rtol=1e-5, atol=1e-5)
    assert func.c.b is None


@pytest.mark.parametrize('group', [1, 2])
def test_deconvolution(tmp_path, group):
    x, W, b = _rand(2, 4, 3, 4), _rand(4, 6 // group, 3, 3), _rand(6)

    def setup(layer):
        p = layer.convolution_param
        p.num_output, p.group = 6, group
        p.kernel_size.append(3)
        p.stride.append(2)
        p.pad.append(1)
        _blob(layer, W)
        _blob(layer, b)

    _, (y,) = _run(tmp_path, _net(('up', 'Deconvolution', ['data'], ['up'], setup)),
                   {'data': x}, ['up'])
    np.testing.assert_allclose(y, _deconv_ref(x, W, b, (2, 2), (1, 1), group),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('shape,transpose,legacy', [
    ((5, 12), False, False), ((12, 5), True, False), ((5, 12), False, True)])
def test_inner_product(tmp_path, shape, transpose, legacy):
    x, W, b = _rand(2, 3, 2, 2), _rand(*shape), _rand(5)

    def setup(layer):
        layer.inner_product_param.num_output = 5
        layer.inner_product_param.transpose = transpose
        _blob(layer, W, legacy)
        _blob(layer, b, legacy)

    _, (y,) = _run(tmp_path, _net(('fc', 'InnerProduct', ['data'], ['fc'], setup)),
                   {'data': x}, ['fc'])
    weight = W.T if transpose else W
    np.testing.assert_allclose(y, x.reshape(2, -1) @ weight.T + b, rtol=1e-5, atol=1e-5)


def test_inner_product_axis(tmp_path):
    x, W = _rand(2, 3, 4), _rand(5, 4)

    def setup(layer):
        p = layer.inner_product_param
        p.num_output, p.bias_term, p.axis = 5, False, 2
        _blob(layer, W)

    _, (y,) = _run(tmp_path, _net(('fc', 'InnerProduct', ['data'], ['fc'], setup)),
                   {'data': x}, ['fc'])
    np.testing.assert_allclose(y, x @ W.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('pool,round_mode', [('max', 'CEIL'), ('max', 'FLOOR'), ('ave', None)])
def test_pooling(tmp_path, pool, round_mode):
    x = _rand(2, 3, 8, 7)

    def setup(layer):
        p = layer.pooling_param
        p.pool = p.MAX if pool == 'max' else p.AVE
        p.kernel_size, p.stride, p.pad = 3, 2, 1
        if round_mode is not None:
            p.round_mode = getattr(p, round_mode)

    _, (y,) = _run(tmp_path, _net(('pool', 'Pooling', ['data'], ['pool'], setup)),
                   {'data': x}, ['pool'])
    # Caffe rounds the output size up (CEIL) unless told to floor; average pooling follows
    # Chainer's CaffeFunction, which floors.
    expected = _pool_ref(x, 3, 2, 1, pool, ceil=round_mode == 'CEIL')
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_global_pooling(tmp_path):
    x = _rand(2, 3, 5, 4)

    def setup(layer):
        layer.pooling_param.pool = layer.pooling_param.AVE
        layer.pooling_param.global_pooling = True

    _, (y,) = _run(tmp_path, _net(('gap', 'Pooling', ['data'], ['gap'], setup)),
                   {'data': x}, ['gap'])
    np.testing.assert_allclose(y, x.mean(axis=(2, 3), keepdims=True), rtol=1e-5)


def test_lrn(tmp_path):
    x = _rand(2, 7, 3, 3)

    def setup(layer):
        p = layer.lrn_param
        p.local_size, p.alpha, p.beta, p.k = 5, 0.3, 0.75, 2.0

    _, (y,) = _run(tmp_path, _net(('norm', 'LRN', ['data'], ['norm'], setup)),
                   {'data': x}, ['norm'])
    np.testing.assert_allclose(y, _lrn_ref(x, 5, 0.3, 0.75, 2.0), rtol=1e-5)


def test_pointwise_layers(tmp_path):
    x = _rand(2, 3, 4)

    def leaky(layer):
        layer.relu_param.negative_slope = 0.1

    def power(layer):
        layer.power_param.power, layer.power_param.scale, layer.power_param.shift = 2, 0.5, 3

    def softmax_axis2(layer):
        layer.softmax_param.axis = 2

    net = _net(('relu', 'ReLU', ['data'], ['relu'], None),
               ('leaky', 'ReLU', ['data'], ['leaky'], leaky),
               ('sig', 'Sigmoid', ['data'], ['sig'], None),
               ('tanh', 'TanH', ['data'], ['tanh'], None),
               ('pow', 'Power', ['data'], ['pow'], power),
               ('prob', 'Softmax', ['data'], ['prob'], None),
               ('prob2', 'Softmax', ['data'], ['prob2'], softmax_axis2),
               ('drop', 'Dropout', ['data'], ['drop'], None))
    names = ['relu', 'leaky', 'sig', 'tanh', 'pow', 'prob', 'prob2', 'drop']
    _, ys = _run(tmp_path, net, {'data': x}, names)
    e1, e2 = np.exp(x - x.max(1, keepdims=True)), np.exp(x - x.max(2, keepdims=True))
    expected = [np.maximum(x, 0), np.where(x > 0, x, 0.1 * x), 1 / (1 + np.exp(-x)),
                np.tanh(x), (3 + 0.5 * x) ** 2, e1 / e1.sum(1, keepdims=True),
                e2 / e2.sum(2, keepdims=True), x]
    for name, y, e in zip(names, ys, expected):
        np.testing.assert_allclose(y, e, rtol=1e-5, atol=1e-6, err_msg=name)


def test_in_place_layers_and_split(tmp_path):
    # Caffe runs ReLU in place (top == bottom) and inserts Split layers to fan a blob out.
    x = _rand(2, 3)

    def split(layer):
        pass

    net = _net(('relu', 'ReLU', ['data'], ['data'], None),
               ('split', 'Split', ['data'], ['a', 'b'], split),
               ('sum', 'Eltwise', ['a', 'b'], ['sum'], None))
    func, (y,) = _run(tmp_path, net, {'data': x}, ['sum'])
    np.testing.assert_allclose(y, 2 * np.maximum(x, 0), rtol=1e-6)
    assert func.split_map == {'a': 'data', 'b': 'data'}


@pytest.mark.parametrize('operation,coeff', [('PROD', ()), ('SUM', ()), ('SUM', (2.0, -0.5)),
                                             ('MAX', ())])
def test_eltwise(tmp_path, operation, coeff):
    a, b = _rand(2, 3), _rand(2, 3)

    def setup(layer):
        p = layer.eltwise_param
        p.operation = getattr(p, operation)
        p.coeff.extend(coeff)

    _, (y,) = _run(tmp_path, _net(('e', 'Eltwise', ['a', 'b'], ['e'], setup)),
                   {'a': a, 'b': b}, ['e'])
    expected = {'PROD': a * b, 'MAX': np.maximum(a, b)}.get(
        operation, a * coeff[0] + b * coeff[1] if coeff else a + b)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_concat_and_slice(tmp_path):
    a, b = _rand(2, 3, 2), _rand(2, 1, 2)

    def slice_points(layer):
        layer.slice_param.axis = 1
        layer.slice_param.slice_point.extend([1, 3])

    def concat_dim(layer):
        layer.concat_param.concat_dim = 2  # the deprecated field

    net = _net(('cat', 'Concat', ['a', 'b'], ['cat'], None),
               ('slice', 'Slice', ['cat'], ['s0', 's1', 's2'], slice_points),
               ('cat2', 'Concat', ['a', 'a'], ['cat2'], concat_dim),
               ('halves', 'Slice', ['a'], ['h0', 'h1'],
                lambda layer: setattr(layer.slice_param, 'axis', 2)))
    _, (cat, s0, s1, s2, cat2, h0) = _run(tmp_path, net, {'a': a, 'b': b},
                                          ['cat', 's0', 's1', 's2', 'cat2', 'h0'])
    full = np.concatenate([a, b], axis=1)
    np.testing.assert_array_equal(cat, full)
    for got, want in zip((s0, s1, s2), np.split(full, [1, 3], axis=1)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(cat2, np.concatenate([a, a], axis=2))
    np.testing.assert_array_equal(h0, a[:, :, :1])


@pytest.mark.parametrize('in_shape,dims,axis,num_axes,expected', [
    ((2, 3, 4), (0, -1), 0, -1, (2, 12)),
    ((2, 3, 4), (0, 2, 6), 0, -1, (2, 2, 6)),
    ((2, 4, 4), (2, 2), 1, 1, (2, 2, 2, 4)),
    ((2, 3, 4), (1,), 1, 0, (2, 1, 3, 4)),
    ((2, 3, 4), (2, -1), -2, -1, (2, 3, 2, 2)),
])
def test_reshape(tmp_path, in_shape, dims, axis, num_axes, expected):
    x = _rand(*in_shape)

    def setup(layer):
        p = layer.reshape_param
        p.shape.dim.extend(dims)
        p.axis, p.num_axes = axis, num_axes

    _, (y,) = _run(tmp_path, _net(('r', 'Reshape', ['data'], ['r'], setup)), {'data': x}, ['r'])
    assert y.shape == expected
    np.testing.assert_array_equal(y.ravel(), x.ravel())


@pytest.mark.parametrize('use_global_stats', [True, False])
def test_batchnorm_and_scale(tmp_path, use_global_stats):
    x = _rand(4, 3, 2, 2)
    mean, var, gamma, beta = _rand(3), np.abs(_rand(3)) + 0.5, _rand(3), _rand(3)

    def bn(layer):
        layer.batch_norm_param.use_global_stats = use_global_stats
        layer.batch_norm_param.eps = 1e-3
        # Caffe stores sums weighted by a factor kept in a third blob.
        _blob(layer, mean * 4)
        _blob(layer, var * 4)
        _blob(layer, np.array([4.0], np.float32))

    def scale(layer):
        layer.scale_param.bias_term = True
        _blob(layer, gamma)
        _blob(layer, beta)

    net = _net(('bn', 'BatchNorm', ['data'], ['bn'], bn),
               ('scale', 'Scale', ['bn'], ['scale'], scale))
    func = CaffeFunction(_write(tmp_path, net))
    np.testing.assert_allclose(func.bn.avg_mean, mean, rtol=1e-6)
    np.testing.assert_allclose(func.bn.avg_var, var, rtol=1e-6)
    with chainlet.using_config('train', True):
        y, = func(inputs={'data': x}, outputs=['scale'])
    if use_global_stats:  # always the stored statistics
        m, v = mean.reshape(1, 3, 1, 1), var.reshape(1, 3, 1, 1)
    else:  # training mode normalizes with the batch statistics
        m, v = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    expected = (x - m) / np.sqrt(v + 1e-3) * gamma.reshape(1, 3, 1, 1) + beta.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-5)


def test_batchnorm_zero_scale_factor_means_no_statistics(tmp_path):
    def bn(layer):
        _blob(layer, np.ones(2, np.float32))
        _blob(layer, np.ones(2, np.float32))
        _blob(layer, np.zeros(1, np.float32))

    func = CaffeFunction(_write(tmp_path, _net(('bn', 'BatchNorm', ['data'], ['bn'], bn))))
    np.testing.assert_array_equal(func.bn.avg_mean, [0, 0])


def test_scale_with_two_bottoms(tmp_path):
    x, w, bias = _rand(2, 3, 4), _rand(3), _rand(3)

    def setup(layer):
        layer.scale_param.bias_term = True
        _blob(layer, bias)

    _, (y,) = _run(tmp_path, _net(('s', 'Scale', ['x', 'w'], ['s'], setup)),
                   {'x': x, 'w': w}, ['s'])
    np.testing.assert_allclose(y, x * w.reshape(1, 3, 1) + bias.reshape(1, 3, 1), rtol=1e-6)


@pytest.mark.parametrize('mode,ignore', [(None, None), ('VALID', 1), ('BATCH_SIZE', 1),
                                         ('FULL', 1), ('NONE', None)])
def test_softmax_with_loss(tmp_path, mode, ignore):
    x, t = _rand(4, 3), np.array([0, 1, 2, 1], np.int32)

    def setup(layer):
        if mode is not None:
            layer.loss_param.normalization = getattr(layer.loss_param, mode)
        if ignore is not None:
            layer.loss_param.ignore_label = ignore

    _, (loss,) = _run(tmp_path, _net(('loss', 'SoftmaxWithLoss', ['x', 't'], ['loss'], setup)),
                      {'x': x, 't': t}, ['loss'])
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    each = -logp[np.arange(4), t] * (t != (-1 if ignore is None else ignore))
    divisor = {None: (t != -1).sum(), 'VALID': (t != ignore).sum(), 'BATCH_SIZE': 4,
               'FULL': 4, 'NONE': 1}[mode]
    np.testing.assert_allclose(loss, each.sum() / divisor, rtol=1e-5)


def test_v1_format(tmp_path):
    # Caffe's first file format: ``layers`` with enum types and 4-D legacy blobs.
    x, W, b, W2 = _rand(1, 2, 4, 4), _rand(3, 2, 3, 3), _rand(3), _rand(2, 12)
    net = caffe_pb2.NetParameter()
    V1 = caffe_pb2.V1LayerParameter
    conv = net.layers.add(name='conv', type=V1.CONVOLUTION, bottom=['data'], top=['conv'])
    conv.convolution_param.num_output = 3
    conv.convolution_param.kernel_size.append(3)
    _blob(conv, W, legacy=True)
    _blob(conv, b, legacy=True)
    net.layers.add(name='relu', type=V1.RELU, bottom=['conv'], top=['conv'])
    fc = net.layers.add(name='fc', type=V1.INNER_PRODUCT, bottom=['conv'], top=['fc'])
    fc.inner_product_param.num_output, fc.inner_product_param.bias_term = 2, False
    _blob(fc, W2, legacy=True)
    net.layers.add(name='data', type=V1.DATA, top=['data'])
    _, (y,) = _run(tmp_path, net, {'data': x}, ['fc'])
    h = np.maximum(_conv_ref(x, W, b, (1, 1), (0, 0)), 0)
    np.testing.assert_allclose(y, h.reshape(1, -1) @ W2.T, rtol=1e-5, atol=1e-5)


# -- the interpreter --

def _small_net():
    def fc(layer):
        layer.inner_product_param.num_output = 2
        _blob(layer, np.eye(2, 3, dtype=np.float32))
        _blob(layer, np.zeros(2, np.float32))
    return _net(('input', 'Input', [], ['data'], None),
                ('fc', 'InnerProduct', ['data'], ['fc'], fc),
                ('relu', 'ReLU', ['fc'], ['relu'], None))


def test_unsupported_layer_is_skipped_with_a_warning(tmp_path):
    net = _small_net()
    net.layer.add(name='mystery', type='Mystery', bottom=['relu'], top=['m'])
    with pytest.warns(UserWarning, match='Skip the layer "mystery".*Mystery'):
        func = CaffeFunction(_write(tmp_path, net))
    assert [name for name, _, _ in func.layers] == ['fc', 'relu']
    with pytest.raises(KeyError, match="'m'"):
        func(inputs={'data': np.ones((1, 3), np.float32)}, outputs=['m'])


def test_v1_unsupported_layer_warning_names_the_type(tmp_path):
    net = caffe_pb2.NetParameter()
    net.layers.add(name='acc', type=caffe_pb2.V1LayerParameter.ACCURACY)
    with pytest.warns(UserWarning, match='"acc".*ACCURACY'):
        CaffeFunction(_write(tmp_path, net))


def test_forward_disable_and_intermediate_inputs(tmp_path):
    func = CaffeFunction(_write(tmp_path, _small_net()))
    x = np.array([[-1, 2, 5]], np.float32)
    fc, = func(inputs={'data': x}, outputs=['fc'], disable=['relu'])
    np.testing.assert_array_equal(fc.array, [[-1, 2]])
    assert 'relu' not in func.variables and func.variables['fc'] is fc
    with pytest.raises(KeyError, match='relu'):
        func(inputs={'data': x}, outputs=['relu'], disable=['relu'])
    # Any blob can be given: the layers that produce it are then not needed.
    y, = func(inputs={'fc': np.array([[-3, 4]], np.float32)}, outputs=['relu'])
    np.testing.assert_array_equal(y.array, [[0, 4]])


def test_forward_rejects_train_argument(tmp_path):
    func = CaffeFunction(_write(tmp_path, _small_net()))
    with pytest.raises(ValueError, match='using_config'):
        func(inputs={'data': np.ones((1, 3), np.float32)}, outputs=['fc'], train=False)
    with pytest.raises(TypeError):
        func(inputs={'data': np.ones((1, 3), np.float32)}, outputs=['fc'], bogus=1)


def test_backprop_save_load_and_copy(tmp_path):
    func = CaffeFunction(_write(tmp_path, _small_net()))
    x = chainlet.Variable(np.array([[1, 2, 3]], np.float32))
    y, = func(inputs={'data': x}, outputs=['relu'])
    func.cleargrads()
    y.grad = np.ones_like(y.array)
    y.backward()
    np.testing.assert_array_equal(func.fc.W.grad, [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(x.grad, [[1, 1, 0]])
    assert sorted(name for name, _ in func.namedparams()) == ['/fc/W', '/fc/b']

    save_npz(str(tmp_path / 'weights.npz'), func)
    other = CaffeFunction(_write(tmp_path, _small_net(), 'other.caffemodel'))
    other.fc.W.array[...] = 0
    load_npz(str(tmp_path / 'weights.npz'), other)
    np.testing.assert_array_equal(other.fc.W.array, func.fc.W.array)

    clone = copy.deepcopy(func)
    clone.fc.W.array[...] = 0
    out, = clone(inputs={'data': x.array}, outputs=['fc'])
    np.testing.assert_array_equal(out.array, [[0, 0]])  # the copy calls its own child
    out, = func(inputs={'data': x.array}, outputs=['fc'])
    np.testing.assert_array_equal(out.array, [[1, 2]])


def test_layer_names_with_slashes(tmp_path):
    net = _small_net()
    net.layer[1].name = 'fc/1x1'
    func = CaffeFunction(_write(tmp_path, net))
    assert func['fc/1x1'].W.shape == (2, 3)
    y, = func(inputs={'data': np.ones((1, 3), np.float32)}, outputs=['fc'])
    np.testing.assert_array_equal(y.array, [[1, 1]])


# -- errors --

def test_not_a_caffemodel(tmp_path):
    path = tmp_path / 'deploy.prototxt'
    path.write_text('name: "net"\nlayer { name: "data" type: "Input" top: "data" }\n')
    with pytest.raises(ValueError, match='deploy.prototxt.*not a binary Caffe model.*prototxt'):
        CaffeFunction(str(path))
    path = tmp_path / 'noise.caffemodel'
    path.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match='noise.caffemodel'):
        CaffeFunction(str(path))


def test_truncated_caffemodel(tmp_path):
    data = _small_net().SerializeToString()
    path = tmp_path / 'cut.caffemodel'
    path.write_bytes(data[:len(data) - 5])
    with pytest.raises(ValueError, match='cut.caffemodel'):
        CaffeFunction(str(path))


def test_empty_file_and_missing_file(tmp_path):
    path = tmp_path / 'empty.caffemodel'
    path.write_bytes(b'')
    with pytest.raises(ValueError, match='empty.caffemodel.*no layers'):
        CaffeFunction(str(path))
    with pytest.raises(FileNotFoundError):
        CaffeFunction(str(tmp_path / 'missing.caffemodel'))


def test_blob_size_mismatch_names_file_and_layer(tmp_path):
    net = _small_net()
    del net.layer[1].blobs[1].data[:]
    with pytest.raises(ValueError, match=r'model.caffemodel.*layer "fc".*blob 1 holds 0 values'):
        CaffeFunction(_write(tmp_path, net))
    net = _small_net()
    del net.layer[1].blobs[:]
    with pytest.raises(ValueError, match='layer "fc".*at least 1 blobs'):
        CaffeFunction(_write(tmp_path, net))


def test_kernel_size_must_match_the_filter(tmp_path):
    def setup(layer):
        layer.convolution_param.kernel_size.append(5)
        _blob(layer, _rand(2, 1, 3, 3))
        _blob(layer, _rand(2))

    with pytest.raises(ValueError, match='layer "c".*kernel size 5'):
        CaffeFunction(_write(tmp_path, _net(('c', 'Convolution', ['data'], ['c'], setup))))


@pytest.mark.parametrize('type_name,setup,match', [
    ('Pooling', lambda layer: setattr(layer.pooling_param, 'pool', 2), 'Stochastic pooling'),
    ('LRN', lambda layer: setattr(layer.lrn_param, 'norm_region', 1), 'Within-channel LRN'),
    ('SoftmaxWithLoss', lambda layer: setattr(layer.softmax_param, 'axis', 2),
     'non-channel axis'),
    ('Convolution', lambda layer: (layer.convolution_param.kernel_size.extend([1, 1, 1]),
                                   _blob(layer, _rand(1, 1, 1, 1, 1))), 'only 2-D'),
])
def test_unsupported_configurations(tmp_path, type_name, setup, match):
    with pytest.raises(RuntimeError, match=f'layer "x".*{match}'):
        CaffeFunction(_write(tmp_path, _net(('x', type_name, ['data'], ['x'], setup))))


def test_eltwise_coefficients_must_match_bottoms(tmp_path):
    def setup(layer):
        layer.eltwise_param.coeff.extend([1.0, 2.0, 3.0])

    with pytest.raises(ValueError, match='3 coefficients for 2 bottom'):
        CaffeFunction(_write(tmp_path, _net(('e', 'Eltwise', ['a', 'b'], ['e'], setup))))


def test_layer_name_clashing_with_an_attribute(tmp_path):
    net = _small_net()
    net.layer[1].name = 'forward'
    with pytest.raises(ValueError, match='"forward".*already an attribute'):
        CaffeFunction(_write(tmp_path, net))


def test_no_warning_for_data_layers(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        func = CaffeFunction(_write(tmp_path, _small_net()))
    assert 'input' not in func.forwards
