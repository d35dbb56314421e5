"""ResNet50V2/101V2/152V2 and Xception (issue 31): Keras's architectures (parameter counts and
layer names as Keras 3.15 builds them; layer by layer and output values were also compared with
Keras itself), preprocessing, and the weights='imagenet' error."""
import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import applications


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    monkeypatch.setenv('KERAS_HOME', str(tmp_path / 'home'))
    return tmp_path / 'home'


@pytest.mark.parametrize('fn, kwargs, params', [
    (applications.ResNet50V2, {'input_shape': (64, 64, 3), 'classes': 7}, 23_579_143),
    (applications.ResNet50V2, {'include_top': False}, 23_564_800),
    (applications.Xception, {'input_shape': (71, 71, 3), 'classes': 7}, 20_875_823),
    (applications.Xception, {'include_top': False}, 20_861_480),
    pytest.param(applications.ResNet50V2, {}, 25_613_800, marks=pytest.mark.slow),
    pytest.param(applications.ResNet101V2, {}, 44_675_560, marks=pytest.mark.slow),
    pytest.param(applications.ResNet152V2, {}, 60_380_648, marks=pytest.mark.slow),
    pytest.param(applications.Xception, {}, 22_910_480, marks=pytest.mark.slow),
])
def test_parameter_counts_match_keras(fn, kwargs, params):
    assert fn(weights=None, **kwargs).count_params() == params


def test_keras_layer_names_and_shapes():
    keras.backend.clear_session()
    model = applications.ResNet50V2(weights=None, input_shape=(64, 64, 3), classes=3)
    names = [layer.name for layer in model.layers]
    assert names[:5] == ['input_layer', 'conv1_pad', 'conv1_conv', 'pool1_pad', 'pool1_pool']
    assert names[-4:] == ['post_bn', 'post_relu', 'avg_pool', 'predictions']
    assert 'conv1_bn' not in names and 'max_pooling2d' in names  # v2: no stem BN
    assert model.get_layer('conv4_block6_out').output.shape == (None, 2, 2, 1024)
    assert model.get_layer('conv2_block1_1_conv').use_bias is False
    x = applications.Xception(weights=None, include_top=False, input_shape=(71, 71, 3))
    assert x.name == 'xception' and x.output_shape == (None, 3, 3, 2048)
    assert x.get_layer('block14_sepconv2_act') is x.layers[-1]
    assert x.get_layer('block7_sepconv3_bn').output.shape == (None, 5, 5, 728)


def test_forward_and_training_step():
    model = applications.Xception(weights=None, input_shape=(71, 71, 3), classes=4)
    x = applications.xception.preprocess_input(
        np.random.default_rng(0).uniform(0, 255, (2, 71, 71, 3)).astype(np.float32))
    probs = model.predict(x, verbose=0)
    assert probs.shape == (2, 4) and np.allclose(probs.sum(-1), 1, atol=1e-5)
    model.compile('sgd', 'categorical_crossentropy')
    assert np.isfinite(model.train_on_batch(x, np.eye(4)[[0, 1]]))


def test_preprocess_input_scales_to_minus_one_one():
    x = np.array([[[[0.0, 127.5, 255.0]]]], np.float32)
    for module in (applications.resnet_v2, applications.xception):
        np.testing.assert_allclose(module.preprocess_input(x.copy()), [[[[-1, 0, 1]]]])
        assert module.decode_predictions is applications.imagenet_utils.decode_predictions


@pytest.mark.parametrize('fn, file_name', [
    (applications.ResNet50V2, 'resnet50v2_weights_tf_dim_ordering_tf_kernels_notop.h5'),
    (applications.Xception, 'xception_weights_tf_dim_ordering_tf_kernels_notop.h5'),
])
def test_imagenet_without_a_cached_file_says_to_give_a_path(keras_home, fn, file_name):
    with pytest.raises(FileNotFoundError) as info:
        fn(weights='imagenet', include_top=False, input_shape=(71, 71, 3))
    message = str(info.value)
    assert file_name in message and 'weights=<path' in message


def test_weights_from_a_file(tmp_path):
    model = applications.ResNet50V2(weights=None, include_top=False, input_shape=(32, 32, 3))
    path = str(tmp_path / 'w.weights.h5')
    model.save_weights(path)
    again = applications.ResNet50V2(weights=path, include_top=False, input_shape=(32, 32, 3))
    for a, b in zip(model.get_weights(), again.get_weights()):
        np.testing.assert_array_equal(a, b)
