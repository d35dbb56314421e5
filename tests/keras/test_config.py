"""keras.config (issue 31): the settings exist with Keras 3's names and govern the defaults."""
import numpy as np
import pytest

from chainlet import keras


@pytest.fixture(autouse=True)
def restore():
    yield
    keras.config.set_floatx('float32')
    keras.config.set_image_data_format('channels_last')
    keras.config.set_dtype_policy(None)
    keras.config.set_max_epochs(None)
    keras.config.set_max_steps_per_epoch(None)
    keras.config.enable_interactive_logging()
    keras.config.enable_traceback_filtering()


def test_floatx_governs_layers_weights_and_inputs():
    keras.config.set_floatx('float64')
    assert keras.backend.floatx() == 'float64'
    layer = keras.layers.Dense(2)
    y = layer(np.ones((1, 3), np.float32))
    assert layer.kernel.dtype == np.float64 and y.dtype == np.float64
    assert keras.Input((3,)).dtype == 'float64'
    with pytest.raises(ValueError, match='set_floatx'):
        keras.config.set_floatx('int8')


def test_image_data_format_governs_image_layers():
    keras.config.set_image_data_format('channels_first')
    conv = keras.layers.Conv2D(4, 3)
    assert conv.data_format == 'channels_first'
    assert conv(np.zeros((1, 2, 5, 5), np.float32)).shape == (1, 4, 3, 3)
    assert keras.layers.MaxPooling2D().data_format == 'channels_first'
    # an explicit argument wins
    assert keras.layers.Conv2D(4, 3, data_format='channels_last').data_format == 'channels_last'
    with pytest.raises(ValueError, match='data_format'):
        keras.config.set_image_data_format('nhwc')


def test_switches_and_policies():
    keras.config.disable_traceback_filtering()
    assert keras.config.is_traceback_filtering_enabled() is False
    keras.config.disable_interactive_logging()
    assert not keras.config.is_interactive_logging_enabled()
    keras.config.enable_unsafe_deserialization()
    assert keras.config.backend() == 'chainlet'
    assert keras.config.epsilon() == pytest.approx(1e-7)
    keras.config.set_dtype_policy('mixed_float16')
    policy = keras.config.dtype_policy()
    assert (policy.compute_dtype, policy.variable_dtype) == ('float16', 'float32')
    assert keras.layers.Dense(2).dtype == 'float32'
    keras.config.set_dtype_policy('float64')
    assert keras.layers.Dense(2).dtype == 'float64'
    with pytest.raises(ValueError, match='set_backend'):
        keras.config.set_backend('jax')


def test_max_epochs_and_steps_cap_fit():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile('sgd', 'mse')
    keras.config.set_max_epochs(2)
    keras.config.set_max_steps_per_epoch(3)
    seen = []
    cb = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(b))
    history = model.fit(np.ones((40, 2)), np.ones((40, 1)), batch_size=4, epochs=5, verbose=0,
                        callbacks=[cb])
    assert len(history.history['loss']) == 2 and seen == [0, 1, 2, 0, 1, 2]
    with pytest.raises(ValueError, match='max_epochs'):
        keras.config.set_max_epochs(0)


def test_interactive_logging_off_prints_plain_lines(capsys):
    keras.config.disable_interactive_logging()
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile('sgd', 'mse')
    model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=1)
    assert 'loss' in capsys.readouterr().out
