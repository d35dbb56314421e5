"""What the vision models share: oversample, prepare, where 'auto' looks for weights."""
import os

import numpy as np
import pytest

import chainlet
from chainlet.dataset import download
from chainlet.links.model.vision import _common, googlenet, resnet, vgg
from chainlet.utils import imgproc

needs_pil = pytest.mark.skipif(not _common.available, reason='Pillow is required')


def _ten_crops_reference(images, h, w):
    out = []
    for img in images:
        _, H, W = img.shape
        corners = [(0, 0), (0, W - w), (H - h, 0), (H - h, W - w),
                   (int(H / 2.0 - h / 2.0), int(W / 2.0 - w / 2.0))]
        crops = [img[:, t:t + h, s:s + w] for t, s in corners]
        out += crops + [c[:, :, ::-1] for c in crops]
    return np.stack(out)


@pytest.mark.parametrize('shape, crop', [((2, 3, 7, 9), (4, 5)), ((1, 1, 5, 5), (5, 5)),
                                         ((3, 2, 6, 4), (3, 1))])
def test_oversample_matches_caffe_order(shape, crop):
    x = np.random.RandomState(0).uniform(size=shape).astype(np.float16)
    y = imgproc.oversample(x, crop)
    assert y.dtype == np.float16 and y.shape == (10 * shape[0], shape[1]) + crop
    np.testing.assert_array_equal(y, _ten_crops_reference(x, *crop))
    assert _common.oversample is imgproc.oversample


def test_oversample_rejects_bad_input():
    with pytest.raises(ValueError, match='images'):
        imgproc.oversample(np.zeros((3, 4, 4)), (2, 2))
    with pytest.raises(ValueError, match='crop_dims'):
        imgproc.oversample(np.zeros((1, 3, 4, 4)), (5, 2))
    with pytest.raises(ValueError, match='crop_dims'):
        imgproc.oversample(np.zeros((1, 3, 4, 4)), (0, 2))


@needs_pil
@pytest.mark.parametrize('module, mean', [(resnet, (103.063, 115.903, 123.152)),
                                          (vgg, (103.939, 116.779, 123.68)),
                                          (googlenet, (104.0, 117.0, 123.0))])
def test_prepare_layouts(module, mean):
    rgb = np.random.RandomState(0).randint(0, 256, (32, 24, 3)).astype(np.uint8)
    y = module.prepare(rgb, size=None)
    assert y.shape == (3, 32, 24) and y.dtype == np.float32
    for c in range(3):  # BGR minus the model's mean
        np.testing.assert_allclose(y[c], rgb[:, :, 2 - c] - np.float32(mean[c]), atol=1e-4)
    np.testing.assert_array_equal(module.prepare(rgb.transpose(2, 0, 1), size=None), y)
    gray = module.prepare(rgb[:, :, 0], size=None)          # HW: the gray channel thrice
    np.testing.assert_allclose(gray[0] + mean[0], rgb[:, :, 0], atol=1e-4)
    np.testing.assert_array_equal(module.prepare(rgb[None, :, :, 0], size=None), gray)
    assert module.prepare(rgb).shape == (3, 224, 224)
    # size goes to PIL's resize, so it is (width, height) as in Chainer
    assert module.prepare(rgb, size=(40, 20)).shape == (3, 20, 40)
    with chainlet.using_config('dtype', np.float64):
        assert module.prepare(rgb, size=None).dtype == np.float64


@needs_pil
def test_prepare_accepts_pil_images():
    from PIL import Image
    rgb = np.random.RandomState(1).randint(0, 256, (10, 12, 3)).astype(np.uint8)
    np.testing.assert_array_equal(googlenet.prepare(Image.fromarray(rgb), size=None),
                                  googlenet.prepare(rgb, size=None))


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', str(tmp_path))
    return tmp_path / 'pfnet' / 'chainer' / 'models'


def test_retrieve_missing_file_says_where_and_does_not_download(dataset_root, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError('no download may be attempted')
    monkeypatch.setattr(download, 'download_file', no_network)
    model = chainlet.Chain()
    with pytest.raises(OSError) as info:
        _common.retrieve(model, 'weights.npz', 'weights.caffemodel', no_network, 'somewhere')
    message = str(info.value)
    assert str(dataset_root / 'weights.npz') in message
    assert 'weights.caffemodel' in message and 'pretrained_model=None' in message


def test_retrieve_loads_the_npz_of_the_models_directory(dataset_root):
    source = chainlet.links.Linear(3, 2)
    os.makedirs(dataset_root)
    chainlet.serializers.save_npz(str(dataset_root / 'w.npz'), source)
    target = chainlet.links.Linear(3, 2)
    _common.retrieve(target, 'w.npz', 'w.caffemodel', None, 'somewhere')
    np.testing.assert_array_equal(target.W.array, source.W.array)


def test_retrieve_converts_a_caffemodel_when_a_reader_exists(dataset_root, monkeypatch):
    monkeypatch.setattr(_common, '_caffe_function', lambda: object)
    os.makedirs(dataset_root)
    (dataset_root / 'w.caffemodel').write_bytes(b'')
    source = chainlet.links.Linear(3, 2)
    calls = []

    def convert(caffemodel, npz):
        calls.append((caffemodel, npz))
        chainlet.serializers.save_npz(npz, source)

    target = chainlet.links.Linear(3, 2)
    _common.retrieve(target, 'w.npz', 'w.caffemodel', convert, 'somewhere')
    assert calls == [(str(dataset_root / 'w.caffemodel'), str(dataset_root / 'w.npz'))]
    np.testing.assert_array_equal(target.W.array, source.W.array)
    _common.retrieve(chainlet.links.Linear(3, 2), 'w.npz', 'w.caffemodel', convert, 'x')
    assert len(calls) == 1  # the converted file is used from then on


def test_read_caffemodel_without_reader_raises(monkeypatch):
    monkeypatch.setattr(_common, '_caffe_function', lambda: None)
    with pytest.raises(ImportError, match='chainlet.links.caffe'):
        _common.read_caffemodel('x.caffemodel', 'f')
