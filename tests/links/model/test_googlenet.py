"""GoogLeNet: layer names, main path and auxiliary classifiers, extract, predict, weights."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.dataset import download
from chainlet.links.model.vision import _common, googlenet

needs_pil = pytest.mark.skipif(not _common.available, reason='Pillow is required')

LAYERS = ['conv1', 'pool1', 'conv2_reduce', 'conv2', 'pool2', 'inception_3a', 'inception_3b',
          'pool3', 'inception_4a', 'inception_4b', 'inception_4c', 'inception_4d',
          'inception_4e', 'pool4', 'inception_5a', 'inception_5b', 'pool5', 'loss3_fc', 'prob',
          'loss1_fc2', 'loss2_fc2']


@pytest.fixture(scope='module')
def model():
    np.random.seed(0)
    return L.GoogLeNet(pretrained_model=None)


@pytest.fixture(scope='module')
def x():
    return np.random.RandomState(0).uniform(-50, 50, (2, 3, 224, 224)).astype(np.float32)


@pytest.fixture(scope='module')
def outputs(model, x):
    with chainlet.using_config('train', False):
        return model(x, layers=LAYERS)


def test_exports_and_layer_names(model):
    assert L.GoogLeNet is googlenet.GoogLeNet
    assert model.available_layers == LAYERS
    children = {name for name, _ in model.namedlinks(skipself=True) if name.count('/') == 1}
    assert children == {'/conv1', '/conv2_reduce', '/conv2', '/inc3a', '/inc3b', '/inc4a',
                        '/inc4b', '/inc4c', '/inc4d', '/inc4e', '/inc5a', '/inc5b',
                        '/loss3_fc', '/loss1_conv', '/loss1_fc1', '/loss1_fc2', '/loss2_conv',
                        '/loss2_fc1', '/loss2_fc2'}
    assert isinstance(model.inc4e, L.Inception)
    assert model.inc4e.conv5.W.shape == (128, 32, 5, 5)
    assert model.loss1_fc1.W.shape == (1024, 2048) and model.loss2_conv.W.shape == (128, 528, 1, 1)
    # BVLC's GoogLeNet with its two auxiliary classifiers
    assert sum(p.size for p in model.params()) == 13378280


def test_random_initialization_is_lecun_uniform(model):
    for link, fan_in in [(model.conv1, 3 * 7 * 7), (model.loss1_fc1, 2048)]:
        bound = np.sqrt(3.0 / fan_in)
        w = link.W.array
        assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
        assert not link.b.array.any()


def test_main_path_shapes_and_composition(model, outputs):
    shapes = {name: out.shape for name, out in outputs.items()}
    assert shapes['conv1'] == (2, 64, 112, 112) and shapes['pool1'] == (2, 64, 56, 56)
    assert shapes['conv2'] == (2, 192, 56, 56) and shapes['pool2'] == (2, 192, 28, 28)
    assert shapes['inception_3b'] == (2, 480, 28, 28) and shapes['pool3'] == (2, 480, 14, 14)
    assert shapes['inception_4e'] == (2, 832, 14, 14) and shapes['pool4'] == (2, 832, 7, 7)
    assert shapes['inception_5b'] == (2, 1024, 7, 7) and shapes['pool5'] == (2, 1024, 1, 1)
    assert shapes['loss3_fc'] == shapes['prob'] == (2, 1000)
    lrn = outputs['pool1'].array
    expected = F.local_response_normalization(
        F.max_pooling_2d(outputs['conv1'], 3, stride=2), n=5, k=1, alpha=1e-4 / 5)
    np.testing.assert_allclose(lrn, expected.array, rtol=1e-5)
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(
            outputs['inception_4b'].array, model.inc4b(outputs['inception_4a']).array,
            rtol=1e-5, atol=1e-6)
        pool5 = F.average_pooling_2d(outputs['inception_5b'], 7, stride=1)
        np.testing.assert_allclose(outputs['pool5'].array, pool5.array, rtol=1e-5, atol=1e-6)
        prob = F.softmax(model.loss3_fc(outputs['pool5']))  # no dropout in test mode
    np.testing.assert_allclose(outputs['prob'].array, prob.array, rtol=1e-5)
    np.testing.assert_allclose(outputs['prob'].array.sum(axis=1), 1, rtol=1e-5)


@pytest.mark.parametrize('name, source, prefix', [('loss1_fc2', 'inception_4a', 'loss1'),
                                                  ('loss2_fc2', 'inception_4d', 'loss2')])
def test_auxiliary_classifiers_branch_off(model, outputs, name, source, prefix):
    conv, fc1, fc2 = (getattr(model, f'{prefix}_{n}') for n in ('conv', 'fc1', 'fc2'))
    h = F.average_pooling_2d(outputs[source], 5, stride=3)
    assert h.shape[2:] == (4, 4)
    expected = fc2(F.relu(fc1(F.relu(conv(h)))))
    np.testing.assert_allclose(outputs[name].array, expected.array, rtol=1e-5, atol=1e-6)


def test_forward_computes_what_is_asked(model, x, outputs):
    with chainlet.using_config('train', False):
        only = model(x[:1], layers=['loss2_fc2'])
        early = model(x, layers=['pool1'])
    assert list(only) == ['loss2_fc2']
    np.testing.assert_allclose(only['loss2_fc2'].array, outputs['loss2_fc2'].array[:1],
                               rtol=1e-4, atol=1e-6)
    assert list(early) == ['pool1']
    with pytest.raises(ValueError, match='using_config'):
        model(x, train=False)
    with pytest.raises(TypeError, match='test'):
        model(x, test=True)  # GoogLeNet refuses train=, not test=, as in Chainer
    with pytest.raises(ValueError, match='unknown layers'):
        model(x, layers=['inception_6a'])


def test_dropout_before_loss3_in_training(model, x, outputs):
    pool5 = outputs['pool5'].array
    np.random.seed(0)
    with chainlet.using_config('train', True):
        trained = model.functions['loss3_fc'][0](pool5).array
    live = pool5 != 0
    assert live.sum() > 1000
    dropped = trained[live] == 0
    assert 0.35 < dropped.mean() < 0.45  # ratio 0.4
    np.testing.assert_allclose(trained[live][~dropped], pool5[live][~dropped] / 0.6,
                               rtol=1e-5)


def test_backward_through_auxiliary_branch(model, x):
    net = model.copy()
    net.cleargrads()
    out = net(x[:1], layers=['loss1_fc2'])['loss1_fc2']
    F.sum(out).backward()
    assert net.loss1_conv.W.grad is not None and net.conv1.W.grad is not None
    assert net.inc5b.conv1.W.grad is None and net.loss3_fc.W.grad is None


def test_pretrained_npz_path_round_trip(model, x, outputs, tmp_path):
    path = str(tmp_path / 'googlenet.npz')
    chainlet.serializers.save_npz(path, model)
    loaded = L.GoogLeNet(pretrained_model=path)
    for (name, p), (name2, q) in zip(sorted(model.namedparams()),
                                     sorted(loaded.namedparams())):
        assert name == name2
        np.testing.assert_array_equal(p.array, q.array)
    with chainlet.using_config('train', False):
        out = loaded(x, layers=['prob', 'loss1_fc2'])
    np.testing.assert_array_equal(out['prob'].array, outputs['prob'].array)
    np.testing.assert_array_equal(out['loss1_fc2'].array, outputs['loss1_fc2'].array)


def test_auto_looks_in_the_dataset_root(model, tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', str(tmp_path))
    models = tmp_path / 'pfnet' / 'chainer' / 'models'
    with pytest.raises(OSError) as info:
        L.GoogLeNet()
    assert str(models / 'bvlc_googlenet.npz') in str(info.value)
    assert 'bvlc_googlenet.caffemodel' in str(info.value)
    chainlet.serializers.save_npz(str(models / 'bvlc_googlenet.npz'), model)
    np.testing.assert_array_equal(L.GoogLeNet().inc5b.projp.W.array, model.inc5b.projp.W.array)


def _caffe_stand_in(model):
    """A stand-in for CaffeFunction('bvlc_googlenet.caffemodel'): layers by Caffe name."""
    caffe = {'conv1/7x7_s2': model.conv1, 'conv2/3x3_reduce': model.conv2_reduce,
             'conv2/3x3': model.conv2, 'loss1/conv': model.loss1_conv,
             'loss1/fc': model.loss1_fc1, 'loss1/classifier': model.loss1_fc2,
             'loss2/conv': model.loss2_conv, 'loss2/fc': model.loss2_fc1,
             'loss2/classifier': model.loss2_fc2, 'loss3/classifier': model.loss3_fc}
    for stage in ('3a', '3b', '4a', '4b', '4c', '4d', '4e', '5a', '5b'):
        module = getattr(model, f'inc{stage}')
        for child, name in [('conv1', '1x1'), ('proj3', '3x3_reduce'), ('conv3', '3x3'),
                            ('proj5', '5x5_reduce'), ('conv5', '5x5'),
                            ('projp', 'pool_proj')]:
            caffe[f'inception_{stage}/{name}'] = getattr(module, child)
    return caffe


def test_caffe_transfer_uses_bvlc_names(model):
    target = L.GoogLeNet(pretrained_model=None)
    googlenet._transfer_googlenet(_caffe_stand_in(model), target)
    for (name, p), (_, q) in zip(sorted(model.namedparams()), sorted(target.namedparams())):
        np.testing.assert_array_equal(q.array, p.array, err_msg=name)


def test_auto_converts_a_caffemodel_of_the_dataset_root(model, tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', str(tmp_path))
    models = tmp_path / 'pfnet' / 'chainer' / 'models'
    models.mkdir(parents=True)
    (models / 'bvlc_googlenet.caffemodel').write_bytes(b'stand-in')
    read = []

    def reader(path):
        read.append(path)
        return _caffe_stand_in(model)

    monkeypatch.setattr(_common, '_caffe_function', lambda: reader)
    loaded = L.GoogLeNet()
    assert read == [str(models / 'bvlc_googlenet.caffemodel')]
    assert (models / 'bvlc_googlenet.npz').exists()
    np.testing.assert_array_equal(loaded.inc3a.conv5.W.array, model.inc3a.conv5.W.array)
    np.testing.assert_array_equal(loaded.loss2_fc2.b.array, model.loss2_fc2.b.array)
    path = str(tmp_path / 'converted.npz')
    googlenet.GoogLeNet.convert_caffemodel_to_npz('any.caffemodel', path)
    np.testing.assert_array_equal(L.GoogLeNet(path).conv1.W.array, model.conv1.W.array)


@needs_pil
def test_extract_and_predict(model):
    rng = np.random.RandomState(7)
    images = [rng.randint(0, 256, (50, 60, 3)).astype(np.uint8) for _ in range(2)]
    features = model.extract(images)
    assert list(features) == ['pool5'] and features['pool5'].shape == (2, 1024, 1, 1)
    assert features['pool5'].creator is not None  # the configuration is the caller's
    with chainlet.using_config('train', False), chainlet.no_backprop_mode():
        features = model.extract(images, layers=['inception_3a'], size=(120, 100))
    assert features['inception_3a'].shape == (2, 256, 12, 15)
    with pytest.raises(ValueError, match='test'):
        model.extract(images, test=True)
    single = model.predict(images[:1], oversample=False)
    assert single.shape == (1, 1000) and single.creator is None and chainlet.config.train
    x = googlenet.prepare(images[0], (256, 256))[None, :, 16:240, 16:240]
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(single.array, model(x)['prob'].array, rtol=1e-5)
    ten = model.predict(images[:1])
    crops = _common.oversample(googlenet.prepare(images[0], (256, 256))[None], (224, 224))
    with chainlet.using_config('train', False):
        expected = model(crops)['prob'].array.mean(axis=0, keepdims=True)
    np.testing.assert_allclose(ten.array, expected, rtol=1e-5, atol=1e-8)


def _caffe_net_of(layers):
    """A binary Caffe model of (name, type, arrays) layers, written with chainlet's caffe_pb2."""
    from chainlet.links.caffe.protobuf3 import caffe_pb2
    net = caffe_pb2.NetParameter(name='bvlc_googlenet')
    for name, kind, arrays in layers:
        layer = net.layer.add(name=name, type=kind, bottom=['data'], top=[name])
        if kind == 'Convolution':
            param = layer.convolution_param
            param.num_output = arrays[0].shape[0]
            param.kernel_size.append(arrays[0].shape[2])
        else:
            layer.inner_product_param.num_output = arrays[0].shape[0]
        for array in arrays:
            blob = layer.blobs.add()
            blob.shape.dim.extend(array.shape)
            blob.data.extend(array.ravel().tolist())
    return net.SerializeToString()


@pytest.mark.slow
def test_auto_converts_a_real_caffemodel(model, tmp_path, monkeypatch):
    pytest.importorskip('google.protobuf')
    layers = []
    for name, link in _caffe_stand_in(model).items():
        kind = 'Convolution' if link.W.ndim == 4 else 'InnerProduct'
        layers.append((name, kind, (link.W.array, link.b.array)))
    monkeypatch.setattr(download, '_dataset_root', str(tmp_path))
    models = tmp_path / 'pfnet' / 'chainer' / 'models'
    models.mkdir(parents=True)
    (models / 'bvlc_googlenet.caffemodel').write_bytes(_caffe_net_of(layers))
    loaded = L.GoogLeNet()  # CaffeFunction reads it; the converted .npz is kept
    assert (models / 'bvlc_googlenet.npz').exists()
    for (name, p), (_, q) in zip(sorted(model.namedparams()), sorted(loaded.namedparams())):
        np.testing.assert_array_equal(q.array, p.array, err_msg=name)
