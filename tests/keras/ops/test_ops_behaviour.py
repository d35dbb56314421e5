"""keras.ops beyond values: gradients, dtypes, edge shapes, symbolic use in models, errors."""
import numpy as np
import pytest

import chainlet
from chainlet import gradient_check, keras
from chainlet.keras import ops

R = np.random.RandomState(1)


def sym(*shape):
    return R.uniform(-1, 1, shape)


def distinct(*shape):
    """Well separated values (no ties for max, sort, top_k)."""
    return (R.permutation(int(np.prod(shape))).reshape(shape) * 0.1 - 0.5).astype('float64')


def spd(n, batch=()):
    a = R.uniform(-1, 1, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# -- gradients --------------------------------------------------------------------------------

GRADIENT_CASES = [
    ('sum', lambda x: ops.sum(x, axis=1), [sym(3, 4)]),
    ('mean', lambda x: ops.mean(x, axis=(0, 1)), [sym(2, 3, 4)]),
    ('var', lambda x: ops.var(x, axis=0), [sym(3, 4)]),
    ('max', lambda x: ops.max(x, axis=1), [distinct(3, 4)]),
    ('matmul', ops.matmul, [sym(2, 3, 4), sym(4, 5)]),
    ('dot_nd', ops.dot, [sym(2, 3, 4), sym(3, 4, 2)]),
    ('einsum', lambda a, b: ops.einsum('ij,jk->ik', a, b), [sym(3, 4), sym(4, 2)]),
    ('divide_no_nan', lambda a: ops.divide_no_nan(a, np.where(np.arange(4) % 2, 1.5, 0.0)),
     [sym(3, 4)]),
    ('where', lambda a, b: ops.where(a > 0, a, b), [sym(3, 4), sym(3, 4)]),
    ('take', lambda x: ops.take(x, np.array([2, 0, 2]), axis=1), [sym(3, 4)]),
    ('take_along_axis', lambda x: ops.take_along_axis(x, np.array([[0, 3], [1, 1]]), axis=1),
     [sym(2, 4)]),
    ('sort', lambda x: ops.sort(x, axis=0), [distinct(3, 4)]),
    ('top_k', lambda x: ops.top_k(x, 2)[0], [distinct(3, 4)]),
    ('quantile', lambda x: ops.quantile(x, 0.3, axis=1), [distinct(3, 5)]),
    ('roll', lambda x: ops.roll(x, 1, axis=0), [sym(3, 4)]),
    ('diag', lambda x: ops.diag(x, k=-1), [sym(3)]),
    ('tril', ops.tril, [sym(3, 3)]),
    ('segment_sum', lambda x: ops.segment_sum(x, np.array([0, 1, 0]), 2), [sym(3, 2)]),
    ('segment_max', lambda x: ops.segment_max(x, np.array([0, 1, 0]), 2), [distinct(3, 2)]),
    ('scatter', lambda v: ops.scatter(np.array([[0, 1], [1, 0], [0, 1]]), v, (2, 2)),
     [sym(3)]),
    ('slice_update', lambda x, u: ops.slice_update(x, (1, 0), u), [sym(3, 3), sym(2, 2)]),
    ('softmax', lambda x: ops.softmax(x, axis=0), [sym(3, 4)]),
    ('log_softmax', ops.log_softmax, [sym(3, 4)]),
    ('gelu', ops.gelu, [sym(3, 4)]),
    ('glu', ops.glu, [sym(3, 4)]),
    ('logaddexp', ops.logaddexp, [sym(3, 4), sym(3, 4)]),
    ('categorical_crossentropy',
     lambda y: ops.categorical_crossentropy(np.eye(4)[[0, 2, 3]], y, from_logits=True),
     [sym(3, 4)]),
    ('sparse_categorical_crossentropy',
     lambda y: ops.sparse_categorical_crossentropy(np.array([0, 2, 3]), y),
     [R.uniform(0.2, 1, (3, 4))]),
    ('binary_crossentropy',
     lambda y: ops.binary_crossentropy(np.array([0.0, 1.0, 1.0]), y, from_logits=True),
     [sym(3)]),
    ('batch_normalization', lambda x, m, v: ops.batch_normalization(x, m, v, axis=1),
     [sym(3, 4), sym(4), R.uniform(0.5, 1, 4)]),
    ('moments', lambda x: ops.moments(x, axes=(0,))[1], [sym(3, 4)]),
    ('normalize', ops.normalize, [sym(3, 4)]),
    ('conv', lambda x, w: ops.conv(x, w, padding='same', strides=2),
     [sym(1, 5, 5, 2), sym(3, 3, 2, 3)]),
    ('depthwise_conv', ops.depthwise_conv, [sym(1, 4, 4, 2), sym(2, 2, 2, 2)]),
    ('conv_transpose', lambda x, w: ops.conv_transpose(x, w, 2, 'same'),
     [sym(1, 3, 3, 2), sym(3, 3, 2, 2)]),
    ('max_pool', lambda x: ops.max_pool(x, 2, padding='same'), [distinct(1, 3, 3, 2)]),
    ('average_pool', lambda x: ops.average_pool(x, 2, strides=1, padding='same'),
     [sym(1, 3, 3, 2)]),
    ('dot_product_attention', lambda q, k, v: ops.dot_product_attention(q, k, v,
                                                                        is_causal=True),
     [sym(1, 3, 2, 2), sym(1, 3, 2, 2), sym(1, 3, 2, 2)]),
    ('inv', ops.inv, [spd(3, (2,))]),
    ('det', ops.det, [spd(3)]),
    ('solve', ops.solve, [spd(3), sym(3, 2)]),
    ('cholesky', lambda a: ops.cholesky((a + ops.swapaxes(a, -1, -2)) / 2), [spd(3, (2,))]),
    ('norm', lambda x: ops.norm(x, axis=1), [sym(3, 4)]),
    ('norm_fro', lambda x: ops.norm(x, axis=(0, 1)), [sym(3, 4)]),
    ('image_resize', lambda x: ops.image.resize(x, (5, 3)), [sym(1, 3, 4, 2)]),
    ('gaussian_blur', lambda x: ops.image.gaussian_blur(x, 3, 0.8), [sym(1, 4, 4, 2)]),
    ('map_coordinates', lambda x: ops.image.map_coordinates(
        x, np.array([[0.3, 2.6, -0.4], [1.2, 0.5, 3.7]]), 1), [sym(3, 4)]),
    ('affine_transform', lambda x: ops.image.affine_transform(
        x, np.array([0.9, 0.2, 0.3, -0.1, 1.1, -0.5, 0.01, 0.0]), fill_mode='reflect'),
     [sym(1, 4, 5, 2)]),
    ('sparsemax', ops.sparsemax, [np.array([[0.3, 1.1, -0.4, 0.9], [2.0, 0.1, 0.25, -1.0]])]),
    ('layer_normalization', lambda x, g: ops.layer_normalization(x, g, None),
     [sym(3, 4), sym(4)]),
    ('rms_normalization', ops.rms_normalization, [sym(3, 4), sym(4)]),
    ('depth_to_space', lambda x: ops.depth_to_space(x, 2), [sym(1, 2, 2, 4)]),
    ('adaptive_max_pool', lambda x: ops.adaptive_max_pool(x, (2, 2)), [distinct(1, 3, 5, 1)]),
    ('ctc_loss', lambda y: ops.ctc_loss(np.array([[1, 2]]), y, np.array([2]), np.array([4])),
     [sym(1, 4, 3)]),
    ('rfft', lambda x: ops.rfft(x)[1], [sym(2, 6)]),
    ('irfft', lambda r, i: ops.irfft((r, i)), [sym(2, 4), sym(2, 4)]),
    ('fft2', lambda r, i: ops.fft2((r, i))[0], [sym(3, 4), sym(3, 4)]),
    ('kron', ops.kron, [sym(2, 2), sym(2, 3)]),
    ('stft', lambda x: ops.stft(x, 4, 2, 6)[0], [sym(2, 10)]),
    ('istft', lambda r, i: ops.istft((r, i), 4, 2, 6), [sym(1, 4, 4), sym(1, 4, 4)]),
    ('correlate', lambda a, v: ops.correlate(a, v, mode='full'), [sym(5), sym(3)]),
    ('corrcoef', ops.corrcoef, [sym(3, 5)]),
    ('trapezoid', ops.trapezoid, [sym(3, 4)]),
    ('nanmean', ops.nanmean, [sym(3, 4)]),
    ('vander', lambda x: ops.vander(x, 3), [sym(4)]),
    ('slogdet', lambda x: ops.slogdet(x)[1], [spd(3)]),
    ('cholesky_inverse', ops.cholesky_inverse, [np.linalg.cholesky(spd(3))]),
    ('extract_patches', lambda x: ops.image.extract_patches(x, 2), [sym(1, 4, 4, 2)]),
]


@pytest.mark.parametrize('fn, inputs', [c[1:] for c in GRADIENT_CASES],
                         ids=[c[0] for c in GRADIENT_CASES])
def test_gradient(fn, inputs):
    out = fn(*[chainlet.Variable(x) for x in inputs])
    grad = R.uniform(-1, 1, out.shape)
    gradient_check.check_backward(fn, tuple(inputs), grad, atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize('fn, inputs', [
    (lambda x: ops.sum(ops.square(x), axis=1), [sym(3, 4)]),
    (ops.matmul, [sym(3, 4), sym(4, 2)]),
    (lambda x: ops.softmax(x), [sym(2, 3)]),
], ids=['sum_square', 'matmul', 'softmax'])
def test_double_gradient(fn, inputs):
    out = fn(*[chainlet.Variable(x) for x in inputs])
    gy = R.uniform(-1, 1, out.shape)
    ggx = [R.uniform(-1, 1, x.shape) for x in inputs]
    gradient_check.check_double_backward(fn, tuple(inputs), gy, tuple(ggx))


def test_gradient_flows_from_ops_to_a_parameter():
    w = chainlet.Parameter(np.array([1.0, -2.0, 3.0], 'f'))
    loss = ops.sum(ops.square(ops.multiply(w, 2.0)))
    assert isinstance(loss, chainlet.Variable)
    loss.backward()
    np.testing.assert_allclose(w.grad, 8 * w.array)


def test_stop_gradient_cuts_the_graph():
    x = chainlet.Variable(np.array([1.0, 2.0], 'f'))
    y = ops.sum(x * ops.stop_gradient(x))
    y.backward()
    np.testing.assert_allclose(x.grad, [1.0, 2.0])


def test_arrays_build_no_graph():
    out = ops.add(np.ones(3, 'f'), np.ones(3, 'f'))
    assert type(out) is np.ndarray


# -- dtypes -----------------------------------------------------------------------------------

@pytest.mark.parametrize('fn, args, dtype', [
    (ops.add, (np.ones(2, 'int32'), np.ones(2, 'float32')), 'float32'),
    (ops.add, (np.ones(2, 'int32'), 2.5), 'float32'),
    (ops.add, (np.ones(2, 'int32'), 2), 'int32'),
    (ops.add, (np.ones(2, 'float16'), 1.0), 'float16'),
    (ops.add, (np.ones(2, 'float16'), np.ones(2, 'float32')), 'float32'),
    (ops.multiply, (np.ones(2, 'float64'), np.float32(2)), 'float64'),
    (ops.divide, (np.ones(2, 'int32'), np.ones(2, 'int32')), 'float32'),
    (ops.mean, (np.ones(3, 'int32'),), 'float32'),
    (ops.sqrt, (np.ones(3, 'int64'),), 'float32'),
    (ops.exp, (np.ones(3, 'float16'),), 'float16'),
    (ops.sum, (np.ones(3, 'int8'),), 'int32'),
    (ops.sum, (np.ones(3, 'float64'),), 'float64'),
    (ops.argmax, (np.ones(3, 'float32'),), 'int32'),
    (ops.argsort, (np.ones(3, 'float32'),), 'int32'),
    (ops.equal, (np.ones(3, 'float32'), 1.0), 'bool'),
    (ops.one_hot, (np.array([1, 2]), 3), 'float32'),
    (ops.convert_to_tensor, ([1.0, 2.0],), 'float32'),
    (ops.convert_to_tensor, ([1, 2],), 'int32'),
    (ops.convert_to_tensor, (np.ones(2, 'float64'),), 'float64'),
    (ops.zeros, ((2,),), 'float32'),
    (ops.arange, (3,), 'int32'),
    (ops.arange, (0.0, 1.0, 0.25), 'float32'),
    (ops.cast, (np.ones(2, 'float32'), 'float16'), 'float16'),
    (ops.matmul, (np.ones((2, 2), 'int32'), np.ones((2, 2), 'int32')), 'int32'),
    (ops.maximum, (np.ones(2, 'int32'), np.ones(2, 'float64')), 'float64'),
])
def test_result_dtype(fn, args, dtype):
    assert np.asarray(fn(*args)).dtype == np.dtype(dtype)


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
@pytest.mark.parametrize('fn', [ops.exp, ops.relu, lambda x: ops.sum(x, axis=0), ops.softmax,
                                lambda x: ops.matmul(x, ops.transpose(x))],
                         ids=['exp', 'relu', 'sum', 'softmax', 'matmul'])
def test_float_dtypes_are_kept(fn, dtype):
    x = chainlet.Variable(sym(2, 3).astype(dtype))
    y = fn(x)
    assert y.dtype == np.dtype(dtype)
    ref = fn(sym(2, 3).astype('float64') * 0 + x.array.astype('float64'))
    tol = 1e-2 if dtype == 'float16' else 1e-5
    np.testing.assert_allclose(y.array.astype('float64'), ref, rtol=tol, atol=tol)


# -- shapes: 0-d and empty --------------------------------------------------------------------

@pytest.mark.parametrize('fn', [ops.exp, ops.square, ops.negative, ops.sum, ops.mean,
                                lambda x: ops.add(x, 1.0), lambda x: ops.where(x > 0, x, 0.0)],
                         ids=['exp', 'square', 'negative', 'sum', 'mean', 'add', 'where'])
def test_zero_dim(fn):
    x = np.float32(0.5) * np.ones((), 'float32')
    out = fn(x)
    assert np.asarray(out).shape == ()
    assert isinstance(out, np.ndarray)


@pytest.mark.parametrize('fn, shape', [
    (ops.exp, (0, 3)), (lambda x: ops.sum(x, axis=0), (3,)),
    (lambda x: ops.concatenate([x, x], axis=0), (0, 3)), (ops.relu, (0, 3)),
    (lambda x: ops.matmul(x, np.ones((3, 2), 'f')), (0, 2)),
])
def test_empty(fn, shape):
    assert np.asarray(fn(np.zeros((0, 3), 'float32'))).shape == shape


def test_inputs_are_not_modified():
    x = sym(3, 4).astype('f')
    before = x.copy()
    for fn in (ops.sort, ops.relu, lambda v: ops.slice_update(v, (0, 0), np.ones((1, 1), 'f')),
               lambda v: ops.scatter_update(v, np.array([[0, 0]]), np.ones(1, 'f'))):
        fn(x)
        fn(chainlet.Variable(x))
    np.testing.assert_array_equal(x, before)


# -- conversion ----------------------------------------------------------------------------

def test_convert_to_numpy_and_tensor():
    v = chainlet.Variable(np.ones(2, 'f'))
    assert ops.convert_to_tensor(v) is v
    assert isinstance(ops.convert_to_numpy(v), np.ndarray)
    assert isinstance(ops.convert_to_numpy([1, 2]), np.ndarray)
    assert ops.is_tensor(v) and ops.is_tensor(np.ones(2)) and not ops.is_tensor([1])
    assert ops.shape(np.ones((2, 3))) == (2, 3)
    assert ops.dtype(v) == 'float32'
    with pytest.raises(TypeError, match='symbolic'):
        ops.convert_to_numpy(keras.Input((3,)))


def test_results_of_arrays_work_with_numpy():
    out = ops.softmax(np.ones((2, 3), 'f'))
    np.testing.assert_allclose(np.asarray(out), np.full((2, 3), 1 / 3), rtol=1e-6)


# -- control flow -----------------------------------------------------------------------------

def test_control_flow():
    assert ops.cond(np.array(True), lambda: 1, lambda: 2) == 1
    assert ops.cond(False, lambda: 1, lambda: 2) == 2
    assert ops.switch(5, [lambda x: x + 1, lambda x: x * 10], 2) == 20
    assert ops.while_loop(lambda i: i < 5, lambda i: i + 2, 0) == 6
    assert ops.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + i), (0, 0)) == (3, 3)
    assert ops.while_loop(lambda i: True, lambda i: i + 1, 0, maximum_iterations=4) == 4
    assert ops.fori_loop(0, 4, lambda i, s: s + i, 0) == 6
    np.testing.assert_array_equal(ops.map(lambda r: r * 2, np.arange(6).reshape(3, 2)),
                                  np.arange(6).reshape(3, 2) * 2)
    carry, ys = ops.scan(lambda c, x: (c + x, c * x), 0.0, np.array([1.0, 2.0, 3.0]))
    assert carry == 6.0
    np.testing.assert_array_equal(ys, [0.0, 2.0, 9.0])
    np.testing.assert_array_equal(
        ops.associative_scan(lambda a, b: a + b, np.array([1.0, 2.0, 3.0])), [1.0, 3.0, 6.0])


def test_control_flow_keeps_gradients():
    x = chainlet.Variable(np.array([1.0, 2.0]))
    y = ops.fori_loop(0, 3, lambda i, v: v * x, ops.ones_like(x))
    ops.sum(y).backward()
    np.testing.assert_allclose(x.grad, 3 * x.array ** 2)


# -- image ----------------------------------------------------------------------------------

def _bilinear_half_pixel(x, out_h, out_w):
    n, h, w, c = x.shape

    def weights(n_in, n_out):
        m = np.zeros((n_out, n_in))
        for i in range(n_out):
            src = min(max((i + 0.5) * n_in / n_out - 0.5, 0), n_in - 1)
            lo = int(np.floor(src))
            hi = min(lo + 1, n_in - 1)
            m[i, lo] += 1 - (src - lo)
            m[i, hi] += src - lo
        return m
    return np.einsum('ih,jw,nhwc->nijc', weights(h, out_h), weights(w, out_w), x)


@pytest.mark.parametrize('size', [(8, 6), (2, 3), (4, 4)])
def test_image_resize_bilinear(size):
    x = sym(2, 4, 4, 3)
    np.testing.assert_allclose(ops.image.resize(x, size), _bilinear_half_pixel(x, *size),
                               rtol=1e-5, atol=1e-6)


def test_image_resize_nearest_and_layouts():
    x = np.arange(16, dtype='f').reshape(1, 4, 4, 1)
    out = ops.image.resize(x, (2, 2), interpolation='nearest')
    np.testing.assert_array_equal(out[0, :, :, 0], [[5, 7], [13, 15]])
    first = ops.image.resize(np.moveaxis(x, -1, 1), (2, 2), interpolation='nearest',
                             data_format='channels_first')
    np.testing.assert_array_equal(first[:, 0], out[..., 0])
    assert ops.image.resize(x[0], (8, 8)).shape == (8, 8, 1)


def test_image_extract_patches_and_grayscale():
    x = sym(1, 4, 6, 2)
    patches = ops.image.extract_patches(x, (2, 3))
    assert patches.shape == (1, 2, 2, 12)
    np.testing.assert_allclose(patches[0, 1, 0], x[0, 2:4, 0:3].reshape(-1))
    same = ops.image.extract_patches(x, 3, strides=2, padding='same')
    assert same.shape == (1, 2, 3, 18)
    gray = ops.image.rgb_to_grayscale(np.ones((2, 3, 3, 3), 'f'))
    np.testing.assert_allclose(gray, np.full((2, 3, 3, 1), 0.9999), rtol=1e-4)


def test_image_pad_and_crop():
    x = sym(1, 2, 3, 1)
    padded = ops.image.pad_images(x, 1, 2, target_height=5, target_width=6)
    assert padded.shape == (1, 5, 6, 1)
    np.testing.assert_array_equal(padded[0, 1:3, 2:5], x[0])
    cropped = ops.image.crop_images(padded, 1, 2, target_height=2, target_width=3)
    np.testing.assert_array_equal(cropped, x)


# -- linalg decompositions (no gradient) ---------------------------------------------------

def test_decompositions_reconstruct():
    a = sym(4, 3)
    q, r = ops.qr(a)
    np.testing.assert_allclose(q @ r, a, atol=1e-10)
    u, s, vh = ops.svd(a, full_matrices=False)
    np.testing.assert_allclose(u * s @ vh, a, atol=1e-10)
    m = spd(3)
    w, v = ops.eigh(m)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, m, atol=1e-10)
    w, v = ops.eig(m)
    np.testing.assert_allclose(m @ v, v * w, atol=1e-10)
    lu, piv = ops.lu_factor(m)
    scipy_linalg = pytest.importorskip('scipy.linalg')
    ref_lu, ref_piv = scipy_linalg.lu_factor(m)
    np.testing.assert_allclose(lu, ref_lu, atol=1e-10)
    np.testing.assert_array_equal(piv, ref_piv)


# -- symbolic use ---------------------------------------------------------------------------

def test_symbolic_shapes_and_dtypes():
    x = keras.Input(shape=(6,))
    assert ops.reshape(x, (-1, 2, 3)).shape == (None, 2, 3)
    assert ops.sum(x, axis=0).shape == (6,)
    assert ops.mean(x).shape == ()
    assert ops.argmax(x, axis=-1).dtype == 'int32'
    assert ops.cast(x, 'float16').dtype == 'float16'
    assert ops.shape(x) == (None, 6)
    values, indices = ops.top_k(x, 2)
    assert values.shape == indices.shape == (None, 2)
    parts = ops.split(x, 3, axis=-1)
    assert [p.shape for p in parts] == [(None, 2)] * 3
    assert ops.log(x).shape == (None, 6)  # inferred on positive samples: no warnings
    assert ops.inv(ops.reshape(ops.concatenate([x, x, x[:, :4]], axis=-1), (-1, 4, 4))).shape \
        == (None, 4, 4)
    positive = x > 0
    assert positive.dtype == 'bool' and positive.shape == (None, 6)
    assert ((x // 2) % 3).shape == (None, 6)
    assert (~positive & (x < 1) | (x >= 2)).dtype == 'bool'
    with pytest.raises(TypeError, match='symbolic'):
        ops.cond(ops.sum(x) > 0, lambda: 1, lambda: 2)


def _data(n=128, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (n, 4)).astype('f')
    return x, (x[:, 0] - 2 * x[:, 1] + 0.5 * x[:, 2]).astype('f')


def test_functional_model_with_ops_trains():
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(4,))
    hidden = keras.layers.Dense(8)(inputs)
    hidden = ops.concatenate([ops.tanh(hidden), inputs], axis=-1)
    outputs = ops.sum(keras.layers.Dense(3)(hidden), axis=-1)
    model = keras.Model(inputs, outputs)
    assert model.output_shape == (None,)
    model.compile(keras.optimizers.Adam(0.01), 'mse')
    x, y = _data()
    history = model.fit(x, y, epochs=30, batch_size=32, verbose=0)
    assert history.history['loss'][-1] < 0.2 * history.history['loss'][0]


def test_model_with_ops_saves_and_loads(tmp_path):
    inputs = keras.Input(shape=(4,))
    values, _ = ops.top_k(keras.layers.Dense(5)(inputs), 3)
    outputs = ops.mean(ops.clip(values, -0.5, 0.5), axis=-1, keepdims=True)
    model = keras.Model(inputs, outputs)
    x, _ = _data(8)
    path = str(tmp_path / 'ops.keras')
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert any(isinstance(layer, ops.OpLayer) for layer in loaded.layers)


class OpsDense(keras.layers.Layer):
    """A custom layer written with keras.ops only."""

    def __init__(self, units, leaky=True, **kwargs):
        super().__init__(**kwargs)
        self.units, self.leaky = units, leaky

    def build(self, input_shape):
        self.w = self.add_weight(name='w', shape=(input_shape[-1], self.units),
                                 initializer='glorot_uniform')
        self.b = self.add_weight(name='b', shape=(self.units,), initializer='zeros')

    def call(self, x):
        h = ops.add(ops.matmul(x, self.w), self.b)
        return ops.where(h > 0, h, ops.multiply(h, 0.1)) if self.leaky else h


def test_custom_layer_using_ops_trains_with_fit():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input(shape=(4,)), OpsDense(16), OpsDense(1, leaky=False)])
    model.compile(keras.optimizers.Adam(0.01), 'mse')
    x, y = _data()
    history = model.fit(x, y[:, None], epochs=30, batch_size=32, verbose=0)
    assert history.history['loss'][-1] < 0.2 * history.history['loss'][0]


# -- the rest of the inventory ---------------------------------------------------------------

def test_ctc_loss_matches_a_sum_over_alignments():
    import itertools
    logits = sym(1, 3, 3)
    logp = logits[0] - np.log(np.exp(logits[0]).sum(-1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(3), repeat=3):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or path[i - 1] != c)]
        if collapsed == [1, 2]:
            total += np.exp(sum(logp[t, c] for t, c in enumerate(path)))
    loss = ops.ctc_loss(np.array([[1, 2]]), logits, np.array([2]), np.array([3]))
    np.testing.assert_allclose(loss, [-np.log(total)], rtol=1e-6)


def test_ctc_decode_greedy():
    probs = np.array([[[0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8],
                       [0.1, 0.1, 0.8]],
                      [[0.1, 0.1, 0.8], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8], [0.1, 0.8, 0.1],
                       [0.1, 0.8, 0.1]]])
    decoded, scores = ops.ctc_decode(np.log(probs), np.array([5, 3]))
    np.testing.assert_array_equal(decoded, [[[1, 2, -1, -1, -1], [2, 2, -1, -1, -1]]])
    np.testing.assert_allclose(scores, [[-5 * np.log(0.8)], [-3 * np.log(0.8)]])
    unmerged, _ = ops.ctc_decode(np.log(probs), np.array([5, 5]), merge_repeated=False)
    np.testing.assert_array_equal(unmerged[0, 0], [1, 1, 2, 2, -1])
    with pytest.raises(ValueError, match='greedy'):
        ops.ctc_decode(np.log(probs), np.array([5, 5]), strategy='beam_search')


def test_creation_ops():
    np.testing.assert_array_equal(ops.zeros((2, 3)), np.zeros((2, 3), 'f'))
    np.testing.assert_array_equal(ops.ones(2, dtype='int32'), [1, 1])
    np.testing.assert_array_equal(ops.full((2,), 7), [7, 7])
    assert ops.full((2,), 7).dtype == np.int32 and ops.full((2,), 0.5).dtype == np.float32
    np.testing.assert_array_equal(ops.eye(3, 4, k=1), np.eye(3, 4, k=1))
    np.testing.assert_array_equal(ops.identity(2), np.eye(2))
    np.testing.assert_array_equal(ops.tri(3), np.tri(3))
    np.testing.assert_allclose(ops.linspace(0, 1, 5), np.linspace(0, 1, 5))
    np.testing.assert_allclose(ops.logspace(0, 2, 3), [1, 10, 100])
    np.testing.assert_array_equal(ops.arange(1, 7, 2), [1, 3, 5])
    np.testing.assert_array_equal(ops.empty((2,)), [0, 0])
    for name in ('bartlett', 'blackman', 'hamming', 'hanning'):
        np.testing.assert_allclose(getattr(ops, name)(6), getattr(np, name)(6), rtol=1e-6,
                                   atol=1e-7)
    np.testing.assert_allclose(ops.kaiser(6, 2.0), np.kaiser(6, 2.0), rtol=1e-6)
    xs, ys = ops.meshgrid(np.arange(3), np.arange(2))
    assert xs.shape == ys.shape == (2, 3)


def test_sizes_and_aliases():
    x = np.ones((3, 4), 'f')
    assert ops.ndim(x) == 2 and ops.size(x) == 12
    assert ops.bitwise_not is ops.bitwise_invert and ops.conjugate is ops.conj
    assert ops.bitwise_left_shift is ops.left_shift and ops.bitwise_right_shift is ops.right_shift
    assert ops.hard_swish is ops.hard_silu and ops.swish is ops.silu
    assert ops.vectorized_map is ops.map and ops.abs is ops.absolute


def test_argpartition_view_vectorize():
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0], 'f')
    idx = ops.argpartition(x, 2)
    assert idx.dtype == np.int32 and x[idx[2]] == 3.0
    assert set(x[idx[:2]]) == {1.0, 2.0}
    assert ops.view(x, 'int32').dtype == np.int32
    doubled = ops.vectorize(lambda a, b: a * 2 + b)(np.arange(3.0), np.ones(3))
    np.testing.assert_array_equal(doubled, [1.0, 3.0, 5.0])


def test_custom_gradient():
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))
        return ops.log(1 + e), grad
    x = chainlet.Variable(np.array([0.0, 100.0]))
    y = log1pexp(x)
    np.testing.assert_allclose(y.array, [np.log(2.0), 100.0])
    ops.sum(y).backward()
    np.testing.assert_allclose(x.grad, [0.5, 1.0])  # finite where autodiff overflows
    np.testing.assert_allclose(log1pexp(np.array([0.0])), [np.log(2.0)])


@pytest.mark.parametrize('window, center', [('hann', True), ('hamming', False), (None, True)])
def test_istft_inverts_stft(window, center):
    x = sym(2, 64)
    real, imag = ops.stft(x, 8, 2, 16, window=window, center=center)
    y = ops.istft((real, imag), 8, 2, 16, window=window, center=center)
    covered = y.shape[-1] if center else y.shape[-1] - 4  # edges without full overlap
    start = 0 if center else 4
    np.testing.assert_allclose(y[:, start:covered], x[:, start:covered], atol=1e-10)
    assert ops.istft((real, imag), 8, 2, 16, length=64, window=window,
                     center=center).shape == (2, 64)


@pytest.mark.parametrize('mode, scipy_mode', [
    ('constant', 'grid-constant'), ('nearest', 'nearest'), ('wrap', 'grid-wrap'),
    ('mirror', 'mirror'), ('reflect', 'reflect')])
@pytest.mark.parametrize('order', [0, 1])
def test_map_coordinates_matches_scipy(mode, scipy_mode, order):
    ndimage = pytest.importorskip('scipy.ndimage')
    x = sym(5, 6)
    coords = R.uniform(-3, 8, (2, 4, 3))
    np.testing.assert_allclose(
        ops.image.map_coordinates(x, coords, order, fill_mode=mode, fill_value=0.5),
        ndimage.map_coordinates(x, coords, order=order, mode=scipy_mode, cval=0.5),
        atol=1e-12)


def test_affine_transform():
    img = sym(2, 5, 5, 3)
    identity = np.array([1, 0, 0, 0, 1, 0, 0, 0], float)
    np.testing.assert_allclose(ops.image.affine_transform(img, identity), img)
    shift = np.array([1, 0, 2, 0, 1, -1, 0, 0], float)  # output (x, y) reads (x + 2, y - 1)
    out = ops.image.affine_transform(img, shift, fill_value=7.0)
    np.testing.assert_allclose(out[:, 1:, :3], img[:, :4, 2:])
    assert (out[:, 0] == 7.0).all() and (out[:, :, 3:] == 7.0).all()
    rotate = np.array([0, 1, 0, -1, 0, 4, 0, 0], float)
    np.testing.assert_allclose(ops.image.affine_transform(img, rotate, interpolation='nearest'),
                               np.rot90(img, k=-1, axes=(1, 2)))
    per_image = np.stack([identity, rotate])
    out = ops.image.affine_transform(np.moveaxis(img, -1, 1), per_image,
                                     data_format='channels_first')
    np.testing.assert_allclose(np.moveaxis(out, 1, -1)[0], img[0])
    ndimage = pytest.importorskip('scipy.ndimage')
    t = np.array([0.9, 0.2, 0.3, -0.1, 1.1, -0.5, 0, 0])
    ref = np.stack([ndimage.affine_transform(img[0, :, :, c], [[t[4], t[3]], [t[1], t[0]]],
                                             [t[5], t[2]], order=1, mode='grid-constant')
                    for c in range(3)], -1)
    np.testing.assert_allclose(ops.image.affine_transform(img[0], t), ref, atol=1e-12)


def test_hsv_round_trip():
    x = R.uniform(0, 1, (2, 4, 4, 3)).astype('f')
    hsv = ops.image.rgb_to_hsv(x)
    np.testing.assert_allclose(ops.image.hsv_to_rgb(hsv), x, atol=1e-6)
    first = ops.image.rgb_to_hsv(np.moveaxis(x, -1, 1), data_format='channels_first')
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), hsv, atol=1e-6)


def test_integer_only_ops_reject_floats():
    with pytest.raises(TypeError, match='gcd.*integer'):
        ops.gcd(np.ones(2), np.ones(2))


# -- errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize('call, error, match', [
    (lambda: ops.split(np.ones(5), 2), ValueError, 'split.*equal parts'),
    (lambda: ops.glu(np.ones((2, 3))), ValueError, 'glu.*even'),
    (lambda: ops.one_hot(np.ones(2, 'int32'), 3, sparse=True), ValueError, 'sparse'),
    (lambda: ops.image.resize(np.ones((1, 2, 2, 1)), (3, 3), interpolation='bicubic'),
     ValueError, 'interpolation'),
    (lambda: ops.image.resize(np.ones((2, 2)), (3, 3)), ValueError, 'rank 3 or 4'),
    (lambda: ops.conv(np.ones((1, 4, 4, 3)), np.ones((2, 2, 2, 1))), ValueError, 'channels'),
    (lambda: ops.conv(np.ones((1, 4, 4, 3)), np.ones((2, 2, 3, 1)), padding='full'),
     ValueError, 'padding'),
    (lambda: ops.inv(np.ones((2, 3))), ValueError, 'square'),
    (lambda: ops.norm(np.ones((2, 2)), ord='nuc'), ValueError, 'ord'),
    (lambda: ops.sparse_categorical_crossentropy(np.array([0, 3]), np.ones((2, 3))),
     ValueError, 'labels'),
    (lambda: ops.binary_crossentropy(np.ones(3), np.ones(2)), ValueError, 'same shape'),
    (lambda: ops.top_k(np.ones(3), 4), ValueError, 'k must be'),
    (lambda: ops.where(np.ones(2) > 0, np.ones(2)), ValueError, 'both'),
    (lambda: ops.sum(np.ones(2), axis=0, bogus=1), TypeError, 'keras.ops.sum'),
    (lambda: ops.exp(object()), TypeError, 'expected a tensor'),
    (lambda: ops.quantile(np.ones(3), 0.5, method='nearest'), ValueError, 'method'),
    (lambda: ops.unstack(np.ones((2, 3)), num=3), ValueError, 'num'),
    (lambda: ops.rearrange(np.ones((2, 6)), 'a (b c) -> a b c'), ValueError, 'infer'),
    (lambda: ops.rearrange(np.ones((2, 6)), 'a b -> a c'), ValueError, 'same axes'),
    (lambda: ops.rearrange(np.ones((2, 6)), 'a b c -> a b c'), ValueError, 'names 3'),
    (lambda: ops.rearrange(np.ones((2, 6)), 'a ... -> a ...'), ValueError, 'unsupported'),
    (lambda: ops.rearrange(np.ones((2, 6)), 'a (b c) -> a b c', b=4), ValueError, 'split'),
    (lambda: ops.stft(np.ones(20), 8, 2, 4), ValueError, 'sequence_length'),
    (lambda: ops.image.map_coordinates(np.ones((2, 2)), np.zeros((2, 1)), 3), ValueError,
     'order'),
    (lambda: ops.image.map_coordinates(np.ones((2, 2)), np.zeros((2, 1)), 1, 'edge'),
     ValueError, 'fill_mode'),
    (lambda: ops.image.affine_transform(np.ones((1, 2, 2, 1)), np.zeros(6)), ValueError,
     'transform'),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_convert_to_numpy_is_a_snapshot_of_a_weight():
    # Keras's NumPy/JAX/TensorFlow backends copy: a value read before training keeps its value.
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    snapshot = keras.ops.convert_to_numpy(layer.kernel)
    before = snapshot.copy()
    layer.kernel.array[...] += 1
    np.testing.assert_array_equal(snapshot, before)
