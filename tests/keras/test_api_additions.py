"""Names of Keras 3's API added for issue 31 (gaps found by tools/keras_inventory.py), with
Keras's values (reference numbers computed with Keras 3.15.1, numpy backend)."""
import numpy as np
import pytest

import chainlet
from chainlet import gradient_check, keras


def _loss_inputs():
    rng = np.random.default_rng(0)
    t = rng.random((4, 5)).astype('float32')
    y = rng.random((4, 5)).astype('float32') * 2 - 0.5
    return t, y


@pytest.mark.parametrize('name, target, want', [
    ('SquaredHinge', 'binary', 1.283837), ('CategoricalHinge', 'onehot', 1.583883),
    ('LogCosh', 'real', 0.190507), ('Poisson', 'real', 0.983141),
    ('CosineSimilarity', 'real', -0.554003),
    ('MeanAbsolutePercentageError', 'real', 1047.760132),
    ('MeanSquaredLogarithmicError', 'real', 0.146454),
])
def test_new_losses_match_keras(name, target, want):
    t, y = _loss_inputs()
    t = {'binary': (t > 0.5).astype('float32'), 'onehot': np.eye(5, dtype='float32')[:4],
         'real': t}[target]
    y = np.abs(y) if name == 'Poisson' else y
    assert float(getattr(keras.losses, name)()(t, y)) == pytest.approx(want, rel=1e-5)


def test_new_losses_are_differentiable_and_compile_by_name():
    t, y = _loss_inputs()
    for fn in (keras.losses.log_cosh, keras.losses.categorical_hinge,
               keras.losses.cosine_similarity):
        gradient_check.check_backward(lambda v: fn(t.astype(np.float64), v),
                                      y.astype(np.float64), np.ones(4), atol=1e-4, rtol=1e-4)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(5)])
    model.compile('sgd', loss='log_cosh')
    assert np.isfinite(model.train_on_batch(t, y))
    config = keras.losses.serialize(keras.losses.CosineSimilarity(axis=1))
    assert keras.losses.deserialize(config).get_config()['axis'] == 1


def test_activations():
    x = np.array([-2.0, -0.5, 0.5, 3.0, 8.0])
    act = keras.activations
    np.testing.assert_allclose(
        act.relu(x, negative_slope=0.1, max_value=6, threshold=1).array,
        [-0.3, -0.15, -0.05, 3.0, 6.0])
    np.testing.assert_allclose(act.mish(x).array, x * np.tanh(np.log1p(np.exp(x))))
    np.testing.assert_allclose(np.asarray(act.get('hard_silu')(x)),
                               x * np.clip(x + 3, 0, 6) / 6)
    assert act.deserialize('silu') is act.swish and act.get('celu') is act.celu
    exact, approx = np.asarray(act.gelu(x)), np.asarray(act.gelu(x, approximate=True))
    assert abs(exact - approx).max() < 1e-3 and not np.allclose(exact, approx)


def test_initializer_aliases_axes_and_keras_call():
    init = keras.initializers
    assert init.glorot_uniform is init.GlorotUniform and init.zeros is init.Zeros
    g = init.GlorotUniform(seed=1, input_axes=[0], output_axes=[1, 2])
    w = g(shape=(4, 3, 2))
    assert w.dtype == np.float32 and abs(w).max() <= np.sqrt(6 / (4 + 6))
    assert g.get_config() == {'seed': 1, 'input_axes': [0], 'output_axes': [1, 2]}
    assert init.deserialize(init.serialize(g)).get_config() == g.get_config()
    np.testing.assert_array_equal(init.Ones()((2,)), [1, 1])
    array = np.zeros(3)
    init.Constant(2.0)(array)  # Chainer's fill-in-place protocol still works
    np.testing.assert_array_equal(array, [2, 2, 2])


def test_constraints_and_regularizers():
    c = keras.constraints
    assert c.max_norm is c.MaxNorm
    w = np.array([[3.0], [4.0]])
    c.MinMaxNorm(min_value=0.0, max_value=1.0)(w)
    np.testing.assert_allclose(np.linalg.norm(w), 1.0, rtol=1e-6)
    assert isinstance(c.deserialize(c.serialize(c.UnitNorm(axis=1))), c.UnitNorm)
    reg = keras.regularizers
    assert reg.deserialize(reg.serialize(reg.L2(0.5))).get_config()['l2'] == 0.5


def test_backend_and_utils_helpers():
    b = keras.backend
    keras.backend.clear_session()
    assert (b.get_uid('x'), b.get_uid('x'), b.get_uid('y')) == (1, 2, 1)
    assert b.standardize_dtype(np.float64) == 'float64' and b.standardize_dtype(None) == \
        'float32'
    assert b.is_float_dtype('bfloat16') and b.is_int_dtype('uint8')
    assert not b.is_int_dtype('float16')
    assert b.result_type('int8', 'float16') == 'float16'
    inp = keras.Input((3,))
    out = keras.layers.Dense(2)(inp)
    assert b.is_keras_tensor(out) and keras.utils.is_keras_tensor(inp)
    assert keras.utils.get_source_inputs(out) == [inp]
    with pytest.raises(ValueError, match='standardize_dtype'):
        b.standardize_dtype('no-such-type')


def test_progbar_and_config(capsys):
    bar = keras.utils.Progbar(4, verbose=2, stateful_metrics=['acc'])
    bar.update(2, [('loss', 1.0), ('acc', 0.5)])
    bar.update(4, [('loss', 3.0), ('acc', 0.75)])
    line = capsys.readouterr().out
    assert '4/4' in line and 'loss: 2.0000' in line and 'acc: 0.7500' in line
    config = keras.utils.Config(lr=0.1)
    config.epochs = 2
    assert config['epochs'] == 2 and config.as_dict() == {'lr': 0.1, 'epochs': 2}
    config.freeze()
    with pytest.raises(ValueError, match='frozen'):
        config.lr = 1.0


def test_top_level_names():
    assert keras.version() == chainlet.__version__
    assert issubclass(keras.losses.LogCosh, keras.Loss)
    assert keras.Metric is keras.metrics.Metric and keras.Optimizer is keras.optimizers.Optimizer
    with keras.name_scope('outer'), keras.name_scope('inner'):
        from chainlet.keras.scopes import current_path
        assert current_path() == 'outer/inner'
    with keras.device('cpu'):
        assert keras.layers.Dense(1)(np.ones((1, 2), np.float32)).shape == (1, 1)
    with pytest.raises(ValueError, match='device_name'):
        with keras.device('tpu:0'):
            pass


def test_layer_aliases():
    layers = keras.layers
    assert layers.SeparableConvolution2D is layers.SeparableConv2D
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose
    assert layers.GlobalAvgPool3D is layers.GlobalAveragePooling3D


def test_3d_reshaping_layers():
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2, 1)
    padded = keras.layers.ZeroPadding3D((1, 0, 2))(x)
    assert padded.shape == (1, 4, 2, 6, 1) and float(padded.array.sum()) == 28.0
    cropped = keras.layers.Cropping3D(((1, 0), (0, 0), (1, 0)))(x).array
    np.testing.assert_array_equal(cropped[0, :, :, :, 0], x[0, 1:, :, 1:, 0])
    up = keras.layers.UpSampling3D((1, 2, 1))(x).array
    np.testing.assert_array_equal(up, np.repeat(x, 2, axis=2))
    first = keras.layers.UpSampling3D(2, data_format='channels_first')
    assert first(np.ones((1, 3, 2, 2, 2), np.float32)).shape == (1, 3, 4, 4, 4)
    layer = keras.layers.ZeroPadding3D.from_config(keras.layers.ZeroPadding3D(2).get_config())
    assert layer.padding == ((2, 2), (2, 2), (2, 2))


def test_alpha_dropout_keeps_selu_statistics():
    x = keras.activations.selu(
        np.random.default_rng(0).standard_normal(50000).astype(np.float32)).array
    layer = keras.layers.AlphaDropout(0.3, seed=0)
    y = layer(x, training=True).array
    assert abs(y.mean() - x.mean()) < 0.02 and abs(y.std() - x.std()) < 0.02
    assert (y != x).mean() > 0.25
    np.testing.assert_array_equal(layer(x).array, x)  # inference: identity
    v = chainlet.Variable(x[:10].copy())
    chainlet.functions.sum(layer(v, training=True)).backward()
    assert v.grad is not None


def test_rms_normalization_matches_keras():
    layer = keras.layers.RMSNormalization()
    y = layer(np.array([[3.0, 4.0]], np.float32))
    np.testing.assert_allclose(y.array, [[0.8485281, 1.1313708]], rtol=1e-6)
    assert [w.shape for w in layer.weights] == [(2,)]
    layer3 = keras.layers.RMSNormalization(axis=(1, 2))
    assert layer3(np.ones((2, 3, 4), np.float32)).shape == (2, 3, 4)
    assert layer3.scale.shape == (3, 4)


def test_tree_helpers():
    tree = keras.tree
    assert tree.map_structure(lambda v: v * 2, [1, None], none_is_leaf=False) == [2, None]
    assert tree.map_structure_up_to((None, None), len, ([1, 2], [3])) == (2, 1)
    assert tree.map_shape_structure(len, {'a': (None, 3), 'b': [(2,), (4, 5)]}) == \
        {'a': 2, 'b': [1, 2]}
    assert tree.traverse(lambda v: v * 10 if isinstance(v, int) else None, [1, (2,)]) == \
        [10, (20,)]
    assert tree.traverse(lambda v: tree.MAP_TO_NONE if v == [2] else None, [1, [2]]) == \
        [1, None]
    assert tree.traverse(lambda v: sum(v) if isinstance(v, list) else None, [1, [2, 3]],
                         top_down=False) == 6
    tree.assert_same_paths({'a': [1, 2]}, {'a': (3, 4)})
    with pytest.raises(ValueError, match='paths'):
        tree.assert_same_paths({'a': 1}, {'b': 1})


def test_dtype_policy_modules():
    assert keras.dtype_policies.get('float64').variable_dtype == 'float64'
    policy = keras.mixed_precision.Policy('mixed_float16')
    config = keras.dtype_policies.serialize(policy)
    assert keras.dtype_policies.deserialize(config) == policy
    assert keras.mixed_precision.global_policy().name == keras.config.floatx()
    layer = keras.layers.Dense(2, dtype='float64')
    assert (layer.compute_dtype, layer.variable_dtype, layer.dtype_policy.name) == \
        ('float64', 'float64', 'float64')


def test_terminate_on_nan_can_raise_and_scope_keyword():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile('sgd', 'mse')
    x = np.array([[np.nan]], np.float32)
    with pytest.raises(RuntimeError, match='invalid loss'):
        model.fit(x, x, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN(raise_error=True)])
    with keras.saving.custom_object_scope(custom_objects={'f': len}):
        assert keras.saving.get_registered_object('f') is len


# Keras 3.15.1's values after three apply() calls of these gradients (numpy backend).
_OPT_GRADS = [np.array([[0.5, -1.0], [2.0, 0.1]], 'float32'),
              np.array([[-0.3, 0.2], [0.0, 1.5]], 'float32'),
              np.array([[1.0, 1.0], [-2.0, 0.5]], 'float32')]


@pytest.mark.parametrize('name, rate, want', [
    ('Adadelta', 1.0, [-0.002318, 0.099565, 0.200018, 0.295683]),
    ('Adamax', 0.1, [-0.157687, 0.223226, 0.059595, 0.09666]),
    ('Nadam', 0.1, [-0.153319, 0.122656, 0.156647, 0.048954]),
    ('Lion', 0.1, [-0.1, 0.0, 0.1, 0.0]),
])
def test_new_optimizers_match_keras(name, rate, want):
    link = chainlet.Link()
    with link.init_scope():
        link.w = chainlet.Parameter(np.arange(4, dtype='float32').reshape(2, 2) / 10)
    opt = getattr(keras.optimizers, name)(learning_rate=rate)
    chainlet_opt = opt.chainlet_optimizer.setup(link)
    for g in _OPT_GRADS:
        link.w.grad = g.copy()
        chainlet_opt.update()
    np.testing.assert_allclose(link.w.array.ravel(), want, atol=2e-6)
    again = keras.optimizers.deserialize(keras.optimizers.serialize(opt))
    assert type(again) is type(opt) and again.get_config() == opt.get_config()


def test_new_optimizers_by_name_in_fit():
    x = np.random.default_rng(0).standard_normal((16, 3)).astype(np.float32)
    for name in ('adadelta', 'adamax', 'nadam', 'lion'):
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile(name, 'mse')
        history = model.fit(x, x[:, :1], epochs=2, verbose=0)
        assert np.isfinite(history.history['loss']).all()


def test_wrapper_base_class_builds_and_round_trips():
    class Twice(keras.layers.Wrapper):
        def call(self, x):
            return self.layer(self.layer(x))

    inp = keras.Input((3,))
    model = keras.Model(inp, Twice(keras.layers.Dense(3))(inp))
    assert model.output_shape == (None, 3) and len(model.weights) == 2
    clone = Twice.from_config(Twice(keras.layers.Dense(3, name='inner')).get_config())
    assert clone.layer.name == 'inner'
    with pytest.raises(ValueError, match='layer'):
        Twice('dense')


def test_optional_inputs_and_keras_input_signature():
    a = keras.Input((2,), name='a')
    b = keras.Input((2,), None, 'float32', None, None, None, 'b', optional=True)  # Keras's order

    class AddMaybe(keras.layers.Layer):
        def call(self, x, y=None):
            return x if y is None else x + y

    model = keras.Model([a, b], AddMaybe()(a, b))
    np.testing.assert_array_equal(model([np.ones((1, 2)), None]).array, [[1, 1]])
    np.testing.assert_array_equal(model([np.ones((1, 2)), np.ones((1, 2))]).array, [[2, 2]])
    with pytest.raises(ValueError, match='not optional'):
        model([None, np.ones((1, 2))])
    with pytest.raises(ValueError, match='sparse'):
        keras.Input((2,), sparse=True)


def test_focal_dice_tversky_losses_match_keras():
    rng = np.random.default_rng(0)
    t = (rng.random((4, 5)) > 0.5).astype('float32')
    y = rng.random((4, 5)).astype('float32') * 0.9 + 0.05
    onehot = np.eye(5, dtype='float32')[[0, 1, 2, 3]]
    logits = rng.standard_normal((4, 5)).astype('float32')
    losses = keras.losses
    got = [losses.BinaryFocalCrossentropy()(t, y),
           losses.BinaryFocalCrossentropy(apply_class_balancing=True, from_logits=True,
                                          label_smoothing=0.1)(t, logits),
           losses.CategoricalFocalCrossentropy()(onehot, y),
           losses.CategoricalFocalCrossentropy(from_logits=True,
                                               label_smoothing=0.2)(onehot, logits),
           losses.Dice()(t, y), losses.Dice(axis=-1)(t, y),
           losses.Tversky(alpha=0.3, beta=0.7)(t, y), losses.Tversky(axis=1)(t, y)]
    want = [0.385843, 0.151563, 0.419175, 0.484566, 0.397435, 0.448626, 0.387876, 0.448626]
    np.testing.assert_allclose([float(v) for v in got], want, rtol=2e-6)
    assert keras.metrics.binary_focal_crossentropy(t, y).shape == (4,)
    gradient_check.check_backward(
        lambda v: keras.losses.binary_focal_crossentropy(t.astype(np.float64), v),
        y.astype(np.float64), np.ones(4), atol=1e-4, rtol=1e-4)


def test_layer_metrics_run_eagerly_and_pop_rebuild():
    class Tracked(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.tracker = keras.metrics.Mean(name='activity')
            self.inner = keras.layers.Dense(2)

        def call(self, x):
            y = self.inner(x)
            self.tracker.update_state(y.array)
            return y

    layer = Tracked()
    layer(np.ones((1, 2), np.float32))
    assert [m.name for m in layer.metrics] == ['activity']
    assert keras.layers.Dense(2).metrics == []
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3), keras.layers.Dense(1)])
    assert model.run_eagerly is False
    model.compile('sgd', 'mse', run_eagerly=True)
    assert model.run_eagerly is True
    model.run_eagerly = False
    assert model.run_eagerly is False
    model.pop(rebuild=False)
    assert model.output_shape == (None, 1)  # the graph waits for a rebuild
    model.add(keras.layers.Dense(4))
    assert model.output_shape == (None, 4)


def test_crossentropy_metric_arguments_as_keras():
    y = np.array([[0.2, 0.8], [0.6, 0.4]], 'float32')
    metric = keras.metrics.SparseCategoricalCrossentropy(ignore_class=0)
    assert float(metric([1, 0], y)) == pytest.approx(0.11157177, rel=1e-6)  # Keras 3.15
    np.testing.assert_allclose(
        keras.metrics.categorical_crossentropy(np.eye(2)[[1, 0]], y, label_smoothing=0.0,
                                               axis=-1), -np.log([0.8, 0.6]), rtol=1e-6)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, axis=-1)
    assert float(loss([1, 0], y)) > 0 and loss.get_config()['axis'] == -1


# Weight and output shapes as Keras 3.15 gives them (its values were also compared, equal).
@pytest.mark.parametrize('equation, output_shape, bias_axes, input_shape, weights, out', [
    ('ab,bc->ac', 4, 'c', (2, 3), [(3, 4), (4,)], (2, 4)),
    ('abc,cde->abde', (None, 2, 4), 'de', (3, 5, 6), [(6, 2, 4), (2, 4)], (3, 5, 2, 4)),
    ('...b,bc->...c', 4, 'c', (2, 3, 5), [(5, 4), (4,)], (2, 3, 4)),
    ('abc,cd->abd', (5, 2), 'bd', (3, 5, 6), [(6, 2), (5, 2)], (3, 5, 2)),
    ('ab...,bc->ac...', (4, 7), None, (2, 3, 7), [(3, 4)], (2, 4, 7)),
])
def test_einsum_dense_matches_keras(equation, output_shape, bias_axes, input_shape, weights,
                                    out):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(input_shape).astype('float32')
    layer = keras.layers.EinsumDense(equation, output_shape=output_shape, bias_axes=bias_axes,
                                     activation='relu')
    layer(x)
    assert [tuple(w.shape) for w in layer.weights] == weights
    ws = [rng.standard_normal(s).astype('float32') for s in weights]
    layer.set_weights(ws)
    want = np.einsum(equation, x, ws[0]) + (ws[1] if len(ws) > 1 else 0)
    np.testing.assert_allclose(layer(x).array, np.maximum(want, 0), rtol=1e-5, atol=1e-5)
    assert layer(x).shape == out
    clone = keras.layers.EinsumDense.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def test_einsum_dense_trains_and_checks_equations():
    inp = keras.Input((5, 6))
    out = keras.layers.EinsumDense('abc,cd->abd', output_shape=(None, 3), bias_axes='d')(inp)
    model = keras.Model(inp, out)
    assert model.output_shape == (None, None, 3)  # Keras too: output_shape's None stays
    model.compile('adam', 'mse')
    x = np.random.default_rng(0).standard_normal((4, 5, 6)).astype(np.float32)
    assert np.isfinite(model.train_on_batch(x, np.zeros((4, 5, 3), np.float32)))
    with pytest.raises(ValueError, match='invalid equation'):
        keras.layers.EinsumDense('ab->b', 3)(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match='bias axis'):
        keras.layers.EinsumDense('ab,bc->ac', 3, bias_axes='z')(np.ones((2, 3), np.float32))


def test_pipeline_augments_by_default_and_round_trips():
    pipeline = keras.layers.Pipeline([keras.layers.RandomFlip('horizontal', seed=1),
                                      keras.layers.Rescaling(2.0)])
    x = np.arange(8, dtype='float32').reshape(1, 2, 4, 1)
    flips = sum(bool((pipeline(x).array != 2 * x).any()) for _ in range(20))
    assert 0 < flips < 20  # training mode unless told otherwise, as Keras's Pipeline
    for _ in range(5):
        np.testing.assert_array_equal(pipeline(x, training=False).array, 2 * x)
    clone = keras.layers.Pipeline.from_config(pipeline.get_config())
    assert [type(layer).__name__ for layer in clone.layers] == ['RandomFlip', 'Rescaling']
    with pytest.raises(TypeError, match='not a keras Layer'):
        keras.layers.Pipeline([len])


def test_correlation_metrics_match_keras():
    rng = np.random.default_rng(0)
    t = rng.standard_normal((3, 6)).astype('float32')
    y = (t + rng.standard_normal((3, 6)) * 0.5).astype('float32')
    np.testing.assert_allclose(keras.metrics.pearson_correlation(t, y),
                               [0.78332, 0.99546, 0.98595], atol=1e-5)
    np.testing.assert_allclose(keras.metrics.concordance_correlation(t, y),
                               [0.66897, 0.95551, 0.95341], atol=1e-5)
    pearson = keras.metrics.get('pearson_correlation')
    pearson.update_state(t, y)
    assert float(pearson.result()) == pytest.approx(0.92158, abs=1e-5)
    ccc = keras.metrics.ConcordanceCorrelation(axis=-1)
    ccc.update_state(t, y)
    assert float(ccc.result()) == pytest.approx(0.8593, abs=1e-4)
