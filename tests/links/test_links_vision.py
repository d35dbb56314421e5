import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.links.model.vision import resnet, vgg
from chainlet.links.model.vision._common import oversample


@pytest.mark.skipif(not resnet.available, reason='Pillow is required')
@pytest.mark.parametrize('module', [resnet, vgg])
def test_prepare_layouts(module):
    rgb = np.random.RandomState(0).uniform(0, 255, (32, 24, 3)).astype(np.uint8)
    y = module.prepare(rgb, size=None)
    assert y.shape == (3, 32, 24) and y.dtype == np.float32
    np.testing.assert_allclose(y[0] + module._MEAN[0], rgb[:, :, 2], atol=1e-4)  # BGR
    assert module.prepare(rgb[:, :, 0]).shape == (3, 224, 224)              # gray, resized
    assert module.prepare(rgb.transpose(2, 0, 1), size=None).shape == (3, 32, 24)  # CHW
    assert module.prepare(rgb[None, :, :, 0].astype(np.float32)).shape == (3, 224, 224)


def test_oversample_ten_crops():
    x = np.arange(2 * 1 * 4 * 4, dtype=np.float32).reshape(2, 1, 4, 4)
    crops = oversample(x, (2, 2))
    assert crops.shape == (20, 1, 2, 2)
    np.testing.assert_array_equal(crops[0], x[0, :, :2, :2])      # top-left of image 0
    np.testing.assert_array_equal(crops[4], x[0, :, 1:3, 1:3])    # center
    np.testing.assert_array_equal(crops[5], x[0, :, :2, :2][:, :, ::-1])  # mirrored
    np.testing.assert_array_equal(crops[10], x[1, :, :2, :2])     # image 1 starts at 10


def test_resnet50_layers_small_input():
    model = L.ResNet50Layers(pretrained_model=None)
    assert model.available_layers == ['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5',
                                      'pool5', 'fc6', 'prob']
    assert len(model.res4.forward) == 6 and model.res4.forward[0] is model.res4.a
    x = np.random.RandomState(1).uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)
    with chainlet.using_config('train', False):
        out = model(x, layers=['res3', 'pool5', 'prob'])
    assert out['res3'].shape == (1, 512, 8, 8) and out['pool5'].shape == (1, 2048)
    np.testing.assert_allclose(out['prob'].array.sum(), 1.0, rtol=1e-5)
    expected = F.softmax(model.fc6(out['pool5']))
    np.testing.assert_allclose(out['prob'].array, expected.array, rtol=1e-5)
    copied = model.copy()
    assert copied.conv1 is copied.functions['conv1'][0]
    with pytest.raises(ValueError, match='unknown layers'):
        model(x, layers=['res9'])
    with pytest.raises(ValueError, match='using_config'):
        model(x, test=True)
    assert len(L.ResNet101Layers(pretrained_model=None).res4.forward) == 23


def test_pretrained_auto_without_file_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv('CHAINER_DATASET_ROOT', str(tmp_path))
    monkeypatch.setenv('CHAINLET_DATASET_ROOT', str(tmp_path))
    with pytest.raises(OSError, match='pretrained weights not found'):
        L.ResNet50Layers()


def test_pretrained_npz_round_trip(tmp_path):
    model = L.ResNet50Layers(pretrained_model=None)
    path = str(tmp_path / 'resnet.npz')
    chainlet.serializers.save_npz(path, model)
    loaded = L.ResNet50Layers(pretrained_model=path)
    np.testing.assert_array_equal(loaded.res5.b2.conv3.W.array, model.res5.b2.conv3.W.array)


@pytest.mark.slow
def test_vgg16_layers():
    model = L.VGG16Layers(pretrained_model=None)
    assert len(model.available_layers) == 22
    assert L.VGG19Layers(pretrained_model=None).available_layers.count('conv5_4') == 1
    x = np.random.RandomState(2).uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    out = model(x, layers=['pool1', 'pool5'])
    assert out['pool1'].shape == (1, 64, 16, 16) and out['pool5'].shape == (1, 512, 1, 1)
    assert model.copy().conv1_1 is not model.conv1_1
