"""keras.applications: architectures (parameter counts equal to Keras's), Keras's layer
names, weights from local files (chainlet's and Keras's legacy .h5 layout), the
``weights='imagenet'`` error without a cached file, preprocessing and decoding."""
from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import applications


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    monkeypatch.setenv('KERAS_HOME', str(tmp_path / 'home'))
    return tmp_path / 'home'


@pytest.mark.parametrize('fn, kwargs, params', [
    (applications.ResNet50, {}, 25_636_712),
    (applications.ResNet50, {'include_top': False}, 23_587_712),
    (applications.VGG16, {'include_top': False}, 14_714_688),
    (applications.MobileNetV2, {}, 3_538_984),
    (applications.MobileNetV2, {'include_top': False}, 2_257_984),
    (applications.DenseNet121, {}, 8_062_504),
    (applications.DenseNet121, {'include_top': False}, 7_037_504),
    pytest.param(applications.VGG16, {}, 138_357_544, marks=pytest.mark.slow),
    pytest.param(applications.VGG19, {}, 143_667_240, marks=pytest.mark.slow),
    pytest.param(applications.ResNet101, {}, 44_707_176, marks=pytest.mark.slow),
    pytest.param(applications.ResNet152, {}, 60_419_944, marks=pytest.mark.slow),
    pytest.param(applications.DenseNet169, {}, 14_307_880, marks=pytest.mark.slow),
    pytest.param(applications.DenseNet201, {}, 20_242_984, marks=pytest.mark.slow),
])
def test_parameter_counts_match_keras(fn, kwargs, params):
    model = fn(weights=None, **kwargs)
    assert model.count_params() == params
    if kwargs.get('include_top', True):
        assert model.output_shape == (None, 1000) and model.input_shape == (None, 224, 224, 3)


def test_keras_layer_names_and_shapes():
    resnet = applications.ResNet50(weights=None, include_top=False, input_shape=(64, 64, 3))
    assert resnet.name == 'resnet50'
    assert resnet.get_layer('conv4_block6_out').output.shape == (None, 4, 4, 1024)
    assert resnet.output_shape == (None, 2, 2, 2048)
    mobile = applications.MobileNetV2(weights=None, include_top=False,
                                      input_shape=(96, 96, 3))
    assert mobile.name == 'mobilenetv2_1.00_96'
    assert mobile.get_layer('block_16_project_BN').output.shape == (None, 3, 3, 320)
    assert mobile.get_layer('block_2_add') is not None
    dense = applications.DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert dense.get_layer('conv5_block16_concat').output.shape == (None, 1, 1, 1024)
    vgg = applications.VGG16(weights=None, input_shape=(32, 32, 3), classes=4,
                             classifier_activation=None)
    assert [layer.name for layer in vgg.layers[-3:]] == ['fc1', 'fc2', 'predictions']
    assert vgg.get_layer('flatten').output.shape == (None, 512)
    small = applications.MobileNetV2(weights=None, alpha=0.35, include_top=False,
                                     input_shape=(32, 32, 3), pooling='max')
    assert small.output_shape == (None, 1280)


def test_forward_pass_top_and_pooling():
    rng = np.random.default_rng(0)
    x = rng.random((2, 32, 32, 3)).astype(np.float32)
    model = applications.MobileNetV2(input_shape=(32, 32, 3), weights=None, classes=3)
    probs = model.predict(x, verbose=0)
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    features = applications.ResNet50(weights=None, include_top=False, pooling='avg',
                                     input_shape=(32, 32, 3)).predict(x, verbose=0)
    assert features.shape == (2, 2048) and np.all(features >= 0)


def test_input_tensor_and_transfer_learning():
    inputs = keras.Input((32, 32, 3))
    scaled = keras.layers.Rescaling(1 / 127.5, offset=-1)(inputs)
    base = applications.MobileNetV2(input_tensor=scaled, include_top=False, weights=None,
                                    pooling='avg', alpha=0.35)
    assert base.inputs[0] is inputs
    base.trainable = False
    model = keras.Sequential([keras.Input((32, 32, 3)), base, keras.layers.Dense(2)])
    model.compile('adam', keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    frozen = [w.copy() for w in base.get_weights()]
    head = model.layers[-1].get_weights()[0].copy()
    rng = np.random.default_rng(0)
    model.fit(rng.integers(0, 256, (8, 32, 32, 3)).astype(np.float32),
              rng.integers(0, 2, 8), epochs=1, batch_size=4, verbose=0)
    for a, b in zip(frozen, base.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(head, model.layers[-1].get_weights()[0])


def _randomize(model, seed=0):
    rng = np.random.default_rng(seed)
    model.set_weights([rng.normal(scale=0.1, size=w.shape).astype(w.dtype)
                       for w in model.get_weights()])
    for layer in model.layers:  # keep batch-norm variances positive
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            layer.set_weights([gamma, beta, mean, np.abs(var) + 1.0])


def test_weights_from_a_chainlet_file(tmp_path):
    x = np.random.default_rng(1).random((1, 32, 32, 3)).astype(np.float32)
    source = applications.DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3))
    _randomize(source)
    path = str(tmp_path / 'densenet.weights.npz')
    source.save_weights(path)
    loaded = applications.DenseNet121(weights=path, include_top=False, input_shape=(32, 32, 3))
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), source.predict(x, verbose=0))


def _write_keras_h5(model, path):
    """A weights file in Keras's legacy HDF5 layout (what keras.applications downloads)."""
    h5py = pytest.importorskip('h5py')
    with h5py.File(path, 'w') as f:
        f.attrs['layer_names'] = [layer.name.encode() for layer in model.layers]
        f.attrs['backend'] = b'tensorflow'
        for layer in model.layers:
            g = f.create_group(layer.name)
            names = [f'{layer.name}/{w.name}:0'.encode() for w in layer.weights]
            g.attrs['weight_names'] = names
            for name, value in zip(names, layer.get_weights()):
                g.create_dataset(name.decode(), data=value)


def test_weights_from_a_keras_h5_file_and_imagenet_cache(tmp_path, keras_home):
    x = np.random.default_rng(2).random((2, 96, 96, 3)).astype(np.float32)
    source = applications.MobileNetV2(weights=None, input_shape=(96, 96, 3), alpha=0.35)
    _randomize(source)
    path = str(tmp_path / 'keras_weights.h5')
    _write_keras_h5(source, path)
    expected = source.predict(x, verbose=0)
    loaded = applications.MobileNetV2(weights=path, input_shape=(96, 96, 3), alpha=0.35)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), expected)
    # weights='imagenet' reads Keras's file name from $KERAS_HOME/models
    models = keras_home / 'models'
    models.mkdir(parents=True)
    name = 'mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96.h5'
    shutil.copy(path, models / name)
    cached = applications.MobileNetV2(weights='imagenet', input_shape=(96, 96, 3), alpha=0.35)
    np.testing.assert_array_equal(cached.predict(x, verbose=0), expected)
    # a file for another architecture is refused with the layer named
    with pytest.raises(ValueError, match='has no weights for layer'):
        applications.DenseNet121(weights=path, include_top=False, input_shape=(32, 32, 3))


def test_imagenet_without_cached_file_says_where_to_put_it(keras_home):
    with pytest.raises(FileNotFoundError) as info:
        applications.ResNet50(weights='imagenet', include_top=False, input_shape=(32, 32, 3))
    message = str(info.value)
    assert 'resnet50_weights_tf_dim_ordering_tf_kernels_notop.h5' in message
    assert str(keras_home / 'models') in message
    assert 'https://storage.googleapis.com/tensorflow/keras-applications/resnet/' in message


def test_argument_errors(tmp_path):
    with pytest.raises(ValueError, match='argument weights'):
        applications.VGG16(weights=str(tmp_path / 'missing.h5'))
    with pytest.raises(ValueError, match='classes must be 1000'):
        applications.ResNet50(weights='imagenet', classes=10)
    with pytest.raises(ValueError, match=r'input_shape must be \(224, 224, 3\)'):
        applications.ResNet50(weights='imagenet', input_shape=(64, 64, 3))
    with pytest.raises(ValueError, match='at least 32'):
        applications.MobileNetV2(weights=None, include_top=False, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match='classifier_activation'):
        applications.DenseNet121(weights='imagenet', classifier_activation='sigmoid')
    with pytest.raises(ValueError, match='argument pooling'):
        applications.VGG16(weights=None, include_top=False, pooling='sum')
    with pytest.raises(ValueError, match='must be static'):
        applications.VGG16(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match='alpha must be one of'):
        applications.MobileNetV2(weights='imagenet', alpha=0.6)


def test_preprocess_input_modes():
    x = np.random.default_rng(3).integers(0, 256, (2, 4, 4, 3)).astype(np.uint8)
    f = x.astype(np.float32)
    caffe = applications.resnet50.preprocess_input(x)
    assert caffe.dtype == np.float32
    np.testing.assert_allclose(caffe, f[..., ::-1] - np.array([103.939, 116.779, 123.68],
                                                              np.float32), rtol=1e-6)
    np.testing.assert_allclose(applications.mobilenet_v2.preprocess_input(f), f / 127.5 - 1,
                               rtol=1e-6)
    torch = applications.densenet.preprocess_input(f)
    np.testing.assert_allclose(torch, (f / 255 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225],
                               rtol=1e-5)
    first = applications.vgg16.preprocess_input(f.transpose(0, 3, 1, 2),
                                                data_format='channels_first')
    np.testing.assert_allclose(first, caffe.transpose(0, 3, 1, 2), rtol=1e-6)
    np.testing.assert_array_equal(f, x)  # the input is not modified
    with pytest.raises(ValueError, match='mode'):
        applications.imagenet_utils.preprocess_input(f, mode='keras')
    with pytest.raises(ValueError, match='3 color channels'):
        applications.resnet.preprocess_input(np.zeros((1, 4, 4, 2)))


def test_decode_predictions_with_a_cached_class_index(keras_home):
    models = keras_home / 'models'
    models.mkdir(parents=True)
    index = {str(i): [f'n{i:08d}', f'class_{i}'] for i in range(1000)}
    data = json.dumps(index).encode()
    (models / 'imagenet_class_index.json').write_bytes(data)
    from chainlet.keras.applications import imagenet_utils
    md5 = hashlib.md5(data).hexdigest()
    original = imagenet_utils.CLASS_INDEX_MD5
    imagenet_utils.CLASS_INDEX_MD5 = md5
    try:
        preds = np.zeros((2, 1000), np.float32)
        preds[0, [7, 3, 500]] = [0.5, 0.3, 0.2]
        preds[1, 999] = 1.0
        decoded = applications.resnet50.decode_predictions(preds, top=3)
    finally:
        imagenet_utils.CLASS_INDEX_MD5 = original
    assert [d[:2] for d in decoded[0]] == [('n00000007', 'class_7'), ('n00000003', 'class_3'),
                                           ('n00000500', 'class_500')]
    assert decoded[0][0][2] == pytest.approx(0.5) and decoded[1][0][1] == 'class_999'
    with pytest.raises(ValueError, match=r'\(samples, 1000\)'):
        applications.resnet50.decode_predictions(np.zeros((2, 10)))


@pytest.mark.parametrize('fn, kwargs, params', [
    (applications.EfficientNetB0, {}, 5_330_571),
    (applications.EfficientNetB0, {'include_top': False}, 4_049_571),
    pytest.param(applications.EfficientNetB1, {}, 7_856_239, marks=pytest.mark.slow),
])
def test_efficientnet_parameter_counts_match_keras(fn, kwargs, params):
    assert fn(weights=None, **kwargs).count_params() == params


def test_efficientnet_normalization_save_and_keras_h5(tmp_path):
    rng = np.random.default_rng(4)
    x = (rng.random((2, 32, 32, 3)) * 255).astype(np.float32)
    model = applications.EfficientNetB0(weights=None, input_shape=(32, 32, 3), classes=3)
    assert [w.shape for w in model.get_layer('normalization').weights] == [(3,), (3,), ()]
    assert model.get_layer('block6d_se_excite') is not None
    norm = model.get_layer('normalization')
    mean, var = np.array([120.0, 110.0, 100.0]) / 255, np.array([0.05, 0.06, 0.07])
    norm.set_weights([mean, var, np.array(10)])
    out = norm(x / 255).array
    np.testing.assert_allclose(out, (x / 255 - mean) / np.sqrt(var), rtol=1e-5, atol=1e-5)
    probs = model.predict(x, verbose=0)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    path = str(tmp_path / 'effnet.keras')
    model.save(path)
    np.testing.assert_array_equal(keras.saving.load_model(path).predict(x, verbose=0), probs)
    h5 = str(tmp_path / 'effnet.h5')
    _write_keras_h5(model, h5)
    loaded = applications.EfficientNetB0(weights=h5, input_shape=(32, 32, 3), classes=3)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), probs)
    assert applications.efficientnet.preprocess_input(x) is x
