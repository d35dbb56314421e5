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
