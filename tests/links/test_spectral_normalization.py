"""``chainlet.link_hooks.SpectralNormalization``."""
import io

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import gradient_check, optimizers, serializers
from chainlet.link_hooks import SpectralNormalization


class GrabWeight(chainlet.LinkHook):
    """Registered after the SN hook: records the weight the link's forward will use."""

    name = 'GrabWeight'

    def __init__(self, weight_name='W'):
        self.weight_name = weight_name
        self.used = []

    def forward_preprocess(self, args):
        self.used.append(getattr(args.link, self.weight_name))


def largest_singular_value(W, axis=0):
    matrix = np.moveaxis(np.asarray(W), axis, 0).reshape(W.shape[axis], -1)
    return np.linalg.svd(matrix.astype(np.float64), compute_uv=False)[0]


def matrix_with_singular_values(shape, values, seed=0):
    """A random (rows, cols) float64 matrix with the given singular values."""
    rng = np.random.default_rng(seed)
    u, _ = np.linalg.qr(rng.standard_normal((shape[0], shape[0])))
    v, _ = np.linalg.qr(rng.standard_normal((shape[1], shape[1])))
    s = np.zeros(shape)
    s[range(len(values)), range(len(values))] = values
    return u @ s @ v.T


def normalize(link, x, **hook_args):
    """Call ``link`` with an SN hook and return (hook, weight used by forward, output)."""
    sn = SpectralNormalization(**hook_args)
    grab = GrabWeight(sn.weight_name)
    link.add_hook(sn).add_hook(grab)
    y = link(x)
    return sn, grab.used[-1], y


CASES = [
    ('Linear', lambda: L.Linear(7, 5), (3, 7), 0),
    ('Linear lazy, 3-d input', lambda: L.Linear(5), (3, 2, 4), 0),
    ('Convolution2D', lambda: L.Convolution2D(3, 4, 3), (2, 3, 6, 6), 0),
    ('Convolution2D lazy', lambda: L.Convolution2D(4, 3), (2, 3, 6, 6), 0),
    ('Deconvolution2D', lambda: L.Deconvolution2D(3, 4, 3), (2, 3, 5, 5), 1),
    ('Deconvolution2D lazy, groups', lambda: L.Deconvolution2D(None, 4, 3, groups=2),
     (2, 6, 5, 5), 1),
    ('ConvolutionND', lambda: L.ConvolutionND(1, 2, 3, 3), (2, 2, 7), 0),
    ('EmbedID', lambda: L.EmbedID(6, 4), None, 0),
]


@pytest.mark.parametrize('label, make, x_shape, axis', CASES, ids=[c[0] for c in CASES])
def test_normalized_weight_has_unit_spectral_norm(label, make, x_shape, axis):
    np.random.seed(0)
    link = make()
    x = np.arange(6, dtype=np.int32) if x_shape is None else \
        np.random.randn(*x_shape).astype(np.float32)
    sn, used, y = normalize(link, x, n_power_iteration=200)
    assert sn.axis == axis
    assert isinstance(used, chainlet.Variable) and not isinstance(used, chainlet.Parameter)
    assert used.shape == link.W.shape
    assert link.W_u.shape == (link.W.shape[axis],)
    np.testing.assert_allclose(largest_singular_value(used.array, axis), 1.0, rtol=1e-4)
    np.testing.assert_allclose(used.array * largest_singular_value(link.W.array, axis),
                               link.W.array, rtol=1e-3, atol=1e-5)
    assert isinstance(link.W, chainlet.Parameter)  # restored after the call
    link.delete_hook('GrabWeight')
    with chainlet.no_backprop_mode():
        expected = link(x).array
    np.testing.assert_allclose(y.array, expected, rtol=1e-4, atol=1e-6)


def test_one_iteration_per_call_converges_over_training_calls():
    np.random.seed(1)
    layer = L.Linear(8, 6)
    sn, grab = SpectralNormalization(), GrabWeight()
    layer.add_hook(sn).add_hook(grab)
    x = np.ones((1, 8), np.float32)
    for _ in range(60):
        layer(x)
    np.testing.assert_allclose(largest_singular_value(grab.used[-1].array), 1.0, rtol=1e-4)


def test_u_is_updated_only_in_training_mode():
    np.random.seed(2)
    layer = L.Linear(4, 3).add_hook(SpectralNormalization())
    x = np.ones((2, 4), np.float32)
    u0 = layer.W_u.copy()
    with chainlet.using_config('train', False):
        layer(x)
        layer(x)
    np.testing.assert_array_equal(layer.W_u, u0)
    layer(x)
    assert not np.array_equal(layer.W_u, u0)
    assert np.linalg.norm(layer.W_u) == pytest.approx(1.0, rel=1e-5)


def test_factor_and_gamma():
    np.random.seed(3)
    link = L.Linear(5, 4)
    sigma = largest_singular_value(link.W.array)
    sn, used, _ = normalize(link, np.ones((1, 5), np.float32), n_power_iteration=200,
                            factor=2.5)
    np.testing.assert_allclose(largest_singular_value(used.array), 2.5, rtol=1e-4)

    link = L.Convolution2D(2, 3, 2)
    sigma = largest_singular_value(link.W.array)
    sn, used, y = normalize(link, np.ones((1, 2, 4, 4), np.float32), n_power_iteration=200,
                            use_gamma=True)
    assert link.gamma.shape == () and link.gamma.dtype == link.W.dtype
    assert float(link.gamma.array) == pytest.approx(sigma, rel=1e-5)
    assert '/gamma' in dict(link.namedparams())
    # gamma * W / sigma(W) == W when gamma == sigma(W).
    np.testing.assert_allclose(used.array, link.W.array, rtol=1e-3, atol=1e-6)
    F.sum(y).backward()
    assert link.gamma.grad is not None and link.gamma.grad.shape == ()
    link.delete_hook(sn.name)
    assert not hasattr(link, 'gamma') and '/gamma' not in dict(link.namedparams())


def test_gradient_flows_through_sigma_check_backward():
    W = matrix_with_singular_values((3, 4), [3.0, 1.0, 0.5])
    layer = L.Linear(4, 3, initialW=W)                      # a float64 link
    sn = SpectralNormalization(n_power_iteration=100)
    layer.add_hook(sn)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4))
    gy = rng.standard_normal((2, 3))
    layer(x)                  # training call: u converges to the first left singular vector
    sn.n_power_iteration = 1
    with chainlet.using_config('train', False):            # u stays fixed during the check
        u = layer.W_u.copy()
        gradient_check.check_backward(lambda x: layer(x), x, gy, params=(layer.W, layer.b),
                                      atol=1e-6, rtol=1e-5, seed=0)
        np.testing.assert_array_equal(layer.W_u, u)
        # The gradient is not the one of W / sigma with sigma held constant.
        layer.cleargrads()
        y = layer(x)
        y.grad = gy
        y.backward()
    const_sigma_grad = gy.T @ x / 3.0
    assert not np.allclose(layer.W.grad, const_sigma_grad, atol=1e-3)


def test_u_is_a_persistent_saved_and_loaded_with_npz(tmp_path):
    np.random.seed(4)
    src = L.Linear(4, 3).add_hook(SpectralNormalization())
    x = np.ones((2, 4), np.float32)
    for _ in range(3):
        src(x)
    assert 'W_u' in src._persistent
    path = tmp_path / 'sn.npz'
    serializers.save_npz(path, src)
    with np.load(path) as npz:
        assert sorted(npz.files) == ['W', 'W_u', 'b']
        np.testing.assert_array_equal(npz['W_u'], src.W_u)
    dst = L.Linear(4, 3).add_hook(SpectralNormalization())
    assert not np.array_equal(dst.W_u, src.W_u)
    serializers.load_npz(path, dst)
    np.testing.assert_array_equal(dst.W_u, src.W_u)
    with chainlet.using_config('train', False):
        np.testing.assert_array_equal(dst(x).array, src(x).array)


def test_u_moves_and_copies_with_the_link():
    layer = L.Linear(3, 2).add_hook(SpectralNormalization())
    assert layer.to_device('@numpy').W_u.shape == (2,)
    copied = layer.copy('copy')
    assert copied.W_u is not layer.W_u
    np.testing.assert_array_equal(copied.W_u, layer.W_u)
    copied(np.ones((1, 3), np.float32))
    assert not np.array_equal(copied.W_u, layer.W_u)
    assert layer.copy('share').W_u is layer.W_u


@pytest.mark.gpu
def test_u_moves_to_the_gpu():
    cupy = pytest.importorskip('cupy')
    if not chainlet.backend.gpu_available():
        pytest.skip('no CUDA device')
    layer = L.Linear(3, 2).add_hook(SpectralNormalization(use_gamma=True)).to_device('@cupy:0')
    assert isinstance(layer.W_u, cupy.ndarray) and isinstance(layer.gamma.array, cupy.ndarray)
    cpu = layer.copy('copy').to_device('@numpy')
    x = np.ones((2, 3), np.float32)
    y_gpu = layer(cupy.asarray(x))
    y_cpu = cpu(x)
    np.testing.assert_allclose(cupy.asnumpy(y_gpu.array), y_cpu.array, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cupy.asnumpy(layer.W_u), cpu.W_u, rtol=1e-5)


def test_delete_hook_restores_the_plain_weight():
    np.random.seed(5)
    layer = L.Linear(3, 2)
    x = np.ones((1, 3), np.float32)
    plain = layer(x).array
    layer.add_hook(SpectralNormalization())
    assert not np.allclose(layer(x).array, plain)
    layer.delete_hook('SpectralNormalization')
    assert not hasattr(layer, 'W_u') and layer._persistent == set()
    np.testing.assert_array_equal(layer(x).array, plain)


def test_a_forward_that_raises_leaves_the_parameter_recoverable():
    layer = L.Linear(3, 2).add_hook(SpectralNormalization())
    W = layer.W
    with pytest.raises(Exception):
        layer(np.ones((1, 5), np.float32))         # wrong number of features
    assert layer.W is not W                         # as in Chainer: no postprocess ran
    layer(np.ones((1, 3), np.float32))
    assert layer.W is W
    with pytest.raises(Exception):
        layer(np.ones((1, 5), np.float32))
    layer.delete_hook('SpectralNormalization')
    assert layer.W is W


def test_arguments_are_checked():
    for kwargs, exc, pattern in [
            ({'n_power_iteration': 0}, ValueError, 'n_power_iteration: expected an int >= 1, '
                                                   'got 0'),
            ({'n_power_iteration': 1.5}, TypeError, 'n_power_iteration: expected an int, '
                                                    'got 1.5'),
            ({'eps': -1.0}, ValueError, r'eps: expected a float >= 0, got -1.0'),
            ({'eps': '1'}, TypeError, "eps: expected a float, got '1'"),
            ({'use_gamma': 'yes'}, TypeError, "use_gamma: expected a bool, got 'yes'"),
            ({'factor': 0}, ValueError, 'factor: expected a float > 0 or None, got 0'),
            ({'factor': 'x'}, TypeError, "factor: expected a float or None, got 'x'"),
            ({'weight_name': ''}, TypeError, "weight_name: expected a non-empty str, got ''"),
            ({'name': 1}, TypeError, 'name: expected a str or None, got 1')]:
        with pytest.raises(exc, match=f'^SpectralNormalization: argument {pattern}$'):
            SpectralNormalization(**kwargs)


def test_misuse_is_reported():
    layer = L.Linear(3, 2)
    with pytest.raises(ValueError, match=r"SpectralNormalization: argument weight_name: "
                                         r"expected the name of a Parameter of Linear, got 'V'"):
        layer.add_hook(SpectralNormalization(weight_name='V'))
    assert layer.local_link_hooks == {}
    layer.add_hook(SpectralNormalization())
    with pytest.raises(ValueError, match="already has an attribute 'W_u'"):
        layer.add_hook(SpectralNormalization(), name='second')
    bn = L.BatchNormalization(3)
    with pytest.raises(ValueError, match="already has an attribute 'gamma'"):
        bn.add_hook(SpectralNormalization(weight_name='beta', use_gamma=True))
    with pytest.raises(NotImplementedError, match='register it with link.add_hook'):
        with SpectralNormalization():
            pass
    with pytest.raises(TypeError, match='SpectralNormalization.added: argument link: expected '
                                        'a chainlet.Link, got object'):
        SpectralNormalization().added(object())
    empty = chainlet.Link()
    with empty.init_scope():
        empty.W = chainlet.Parameter(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match=r"SpectralNormalization: the weight 'W' of Link has "
                                         r"shape \(0, 3\): expected a non-zero size on its "
                                         r"output axis 0"):
        empty.add_hook(SpectralNormalization())


def test_reshape_W_flattens_all_but_the_output_axis():
    sn = SpectralNormalization()
    W = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    assert sn.reshape_W(W).shape == (2, 60)
    sn.axis = 1
    np.testing.assert_array_equal(sn.reshape_W(W), W.transpose(1, 0, 2, 3).reshape(3, 40))
    assert sn.reshape_W(chainlet.Variable(W)).shape == (3, 40)


def test_gan_style_discriminator_trains():
    """A small SN discriminator learns to tell real images from a fixed generator's output."""
    np.random.seed(6)

    class Discriminator(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.c1 = L.Convolution2D(1, 4, 3, pad=1).add_hook(SpectralNormalization())
                self.c2 = L.Convolution2D(4, 8, 4, stride=2, pad=1).add_hook(
                    SpectralNormalization(use_gamma=True))
                self.fc = L.Linear(None, 1).add_hook(SpectralNormalization())

        def forward(self, x):
            h = F.leaky_relu(self.c1(x))
            h = F.leaky_relu(self.c2(h))
            return self.fc(h)

    generator = L.Deconvolution2D(2, 1, 4, stride=2, pad=1).add_hook(SpectralNormalization())
    dis = Discriminator()
    dis(np.zeros((1, 1, 8, 8), np.float32))   # create the lazy weights before setup
    opt = optimizers.Adam(alpha=2e-3, beta1=0.5).setup(dis)  # the usual SN-GAN optimizer
    real = (np.random.rand(16, 1, 8, 8) * 0.2 + 0.8).astype(np.float32)
    t = np.concatenate([np.ones((16, 1)), np.zeros((16, 1))]).astype(np.int32)
    losses = []
    for _ in range(40):
        with chainlet.no_backprop_mode():
            fake = F.tanh(generator(np.random.randn(16, 2, 4, 4).astype(np.float32))).array
        loss = F.sigmoid_cross_entropy(dis(np.concatenate([real, fake])), t)
        dis.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    for link in (dis.c1, dis.c2, dis.fc):
        assert isinstance(link.W, chainlet.Parameter)
    assert dis.c2.gamma.update_rule is not None


def test_adam_updates_gamma():
    # gamma is 0-d, as in Chainer
    layer = L.Linear(3, 2).add_hook(SpectralNormalization(use_gamma=True))
    opt = optimizers.Adam().setup(layer)
    F.sum(layer(np.ones((1, 3), np.float32))).backward()
    opt.update()
    assert layer.gamma.update_rule.t == 1


def test_round_trip_of_a_chain_in_a_buffer():
    np.random.seed(7)
    model = chainlet.Sequential(L.Linear(3, 4).add_hook(SpectralNormalization()), F.relu,
                                L.Linear(4, 1).add_hook(SpectralNormalization()))
    model(np.ones((2, 3), np.float32))
    buf = io.BytesIO()
    serializers.save_npz(buf, model)
    buf.seek(0)
    with np.load(buf) as npz:
        assert {'0/W_u', '1/W_u'} <= set(npz.files)


def test_recomputing_reuses_the_vectors_of_the_last_forward():
    layer = L.Linear(4, 3).add_hook(SpectralNormalization())
    hook = layer.local_link_hooks['SpectralNormalization']
    assert hook.v is None
    x = np.random.rand(2, 4).astype(np.float32)
    y1 = layer(x).array
    u1, v1 = layer.W_u.copy(), hook.v.copy()
    assert v1.shape == (4,)
    with chainlet.using_config('in_recomputing', True):
        y2 = layer(x).array
    np.testing.assert_array_equal(layer.W_u, u1)
    np.testing.assert_array_equal(hook.v, v1)
    np.testing.assert_allclose(y1, y2)
    layer(x)  # an ordinary forward iterates again
    assert not np.array_equal(layer.W_u, u1)
