"""ResNet-50/101/152 and VGG16/19: layers, forward, extract, predict, pretrained weights."""
import gc
import types
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.dataset import download
from chainlet.links.model.vision import _common, resnet, vgg

needs_pil = pytest.mark.skipif(not _common.available, reason='Pillow is required')


@pytest.fixture(scope='module')
def resnet50():
    np.random.seed(0)
    model = L.ResNet50Layers(pretrained_model=None)
    model.cleargrads()  # its NaN gradients (100 MB) would stay alive for the whole module
    return model


def _input(size=64, n=1, seed=1):
    return np.random.RandomState(seed).uniform(-1, 1, (n, 3, size, size)).astype(np.float32)


def test_resnet_layers_and_structure(resnet50):
    assert resnet50.available_layers == ['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5',
                                         'pool5', 'fc6', 'prob']
    assert resnet50.res4._forward == ['a', 'b1', 'b2', 'b3', 'b4', 'b5']
    assert isinstance(resnet50.res4.a, resnet.BottleneckA)
    assert isinstance(resnet50.res4.b5, resnet.BottleneckB)
    assert resnet50.conv1.b is not None and resnet50.res2.a.conv1.b is None
    # MSRA's layout: stride 2 on the first 1x1 convolution of a block
    assert resnet50.res3.a.conv1.stride == (2, 2) and resnet50.res3.a.conv2.stride == (1, 1)
    n_params = sum(p.size for p in resnet50.params())
    assert n_params == 25557032 + 64  # Chainer's count plus conv1's bias (Caffe has one)


def test_resnet_forward_layers(resnet50):
    x = _input()
    with chainlet.using_config('train', False):
        out = resnet50(x, layers=['res3', 'pool5', 'prob'])
        assert set(out) == {'res3', 'pool5', 'prob'}
        assert out['res3'].shape == (1, 512, 8, 8) and out['pool5'].shape == (1, 2048)
        np.testing.assert_allclose(out['prob'].array.sum(), 1.0, rtol=1e-5)
        expected = F.softmax(resnet50.fc6(out['pool5']))
        np.testing.assert_allclose(out['prob'].array, expected.array, rtol=1e-5)
        default = resnet50(x)
    assert list(default) == ['prob']
    np.testing.assert_allclose(default['prob'].array, out['prob'].array, rtol=1e-6)


def test_resnet_forward_argument_errors(resnet50):
    x = _input(32)
    with pytest.raises(ValueError, match='using_config'):
        resnet50(x, test=True)
    with pytest.raises(TypeError, match='foo'):
        resnet50(x, foo=1)
    with pytest.raises(ValueError, match="unknown layers \\['res9'\\]"):
        resnet50(x, layers=['res9'])


def test_resnet_backward_reaches_the_first_layer(resnet50):
    model = resnet50.copy()
    model.cleargrads()
    out = model(_input(32, n=2), layers=['pool5'])['pool5']
    F.sum(out).backward()
    assert model.conv1.W.grad is not None and np.any(model.conv1.W.grad != 0)
    assert model.fc6.W.grad is None  # not on the path to pool5


def test_building_block_forward_is_a_method():
    block = resnet.BuildingBlock(3, 4, 2, 8, 2)
    x = _input(8)[:, :1].repeat(4, axis=1)
    y = block(x)
    expected = block.b2(block.b1(block.a(x)))
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
    assert y.shape == (1, 8, 4, 4)
    copied = block.copy()
    assert copied.a is not block.a and copied(x).shape == y.shape


def test_building_block_arguments():
    with pytest.warns(DeprecationWarning, match='n_layers'):
        block = resnet.BuildingBlock(n_layer=2, in_channels=4, mid_channels=2,
                                     out_channels=8, stride=1)
    assert block._forward == ['a', 'b1']
    with pytest.raises(TypeError, match='n_layers'):
        resnet.BuildingBlock(in_channels=4, mid_channels=2, out_channels=8, stride=1)
    with pytest.raises(ValueError, match='n_layers'):
        resnet.BuildingBlock(0, 4, 2, 8, 1)
    with pytest.raises(TypeError, match='n_layerz'):
        resnet.BuildingBlock(1, 4, 2, 8, 1, n_layerz=3)


@pytest.mark.parametrize('downsample_fb', [False, True])
def test_bottleneck_a_stride_placement(downsample_fb):
    block = resnet.BottleneckA(4, 2, 8, stride=2, downsample_fb=downsample_fb)
    strides = (block.conv1.stride, block.conv2.stride, block.conv4.stride)
    expected = ((1, 1), (2, 2), (2, 2)) if downsample_fb else ((2, 2), (1, 1), (2, 2))
    assert strides == expected
    x = _input(6)[:, :1].repeat(4, axis=1)
    h = F.relu(block.bn1(block.conv1(x)))
    h = F.relu(block.bn2(block.conv2(h)))
    expected_y = F.relu(block.bn3(block.conv3(h)) + block.bn4(block.conv4(x)))
    np.testing.assert_allclose(block(x).array, expected_y.array, rtol=1e-6)


def test_bottleneck_b_is_residual():
    block = resnet.BottleneckB(4, 2)
    x = _input(5)[:, :1].repeat(4, axis=1)
    h = F.relu(block.bn1(block.conv1(x)))
    h = F.relu(block.bn2(block.conv2(h)))
    np.testing.assert_allclose(block(x).array,
                               F.relu(block.bn3(block.conv3(h)) + x).array, rtol=1e-6)


def test_resnet_layers_arguments():
    with pytest.raises(ValueError, match='n_layers'):
        resnet.ResNetLayers(None, 34)
    with pytest.raises(TypeError):
        resnet.ResNetLayers(None)  # n_layers is required, as in Chainer
    model = L.ResNet101Layers(pretrained_model=None, downsample_fb=True)
    assert len(model.res4._forward) == 23 and model.res3.a.conv2.stride == (2, 2)


@pytest.mark.slow
def test_resnet152_depth():
    model = L.ResNet152Layers(pretrained_model=None)
    assert len(model.res3._forward) == 8 and len(model.res4._forward) == 36


def test_resnet_pretrained_npz_round_trip(resnet50, tmp_path):
    path = str(tmp_path / 'resnet.npz')
    model = resnet50.copy('copy')
    model.bn1.avg_mean[...] = np.arange(64)  # persistent values travel too
    chainlet.serializers.save_npz(path, model)
    loaded = L.ResNet50Layers(pretrained_model=path)
    for (name, p), (name2, q) in zip(sorted(model.namedparams()),
                                     sorted(loaded.namedparams())):
        assert name == name2
        np.testing.assert_array_equal(p.array, q.array)
    np.testing.assert_array_equal(loaded.bn1.avg_mean, np.arange(64))
    x = _input(32)
    with chainlet.using_config('train', False):
        np.testing.assert_array_equal(model(x, ['prob'])['prob'].array,
                                      loaded(x, ['prob'])['prob'].array)


@pytest.fixture
def models_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(download, '_dataset_root', str(tmp_path))
    return tmp_path / 'pfnet' / 'chainer' / 'models'


def test_resnet_auto_loads_from_the_dataset_root(resnet50, models_dir):
    with pytest.raises(OSError) as info:
        L.ResNet50Layers()
    assert str(models_dir / 'ResNet-50-model.npz') in str(info.value)
    assert str(models_dir / 'ResNet-50-model.caffemodel') in str(info.value)
    with pytest.raises(OSError, match='ResNet-101-model.npz'):
        L.ResNet101Layers(pretrained_model='auto')
    chainlet.serializers.save_npz(str(models_dir / 'ResNet-50-model.npz'), resnet50)
    loaded = L.ResNet50Layers()
    np.testing.assert_array_equal(loaded.res5.b2.conv3.W.array, resnet50.res5.b2.conv3.W.array)
    # any .caffemodel name means "the converted file of the models directory"
    loaded = resnet.ResNetLayers('mine.caffemodel', 50)
    np.testing.assert_array_equal(loaded.fc6.b.array, resnet50.fc6.b.array)


def _fake_caffe_resnet(model, n_layers):
    """A stand-in for CaffeFunction(ResNet-n.caffemodel): Caffe's layer names holding the
    arrays of ``model`` (random), so a transfer must reproduce ``model``."""
    src = {}

    def put(conv, bn, conv_name, bn_name, scale_name):
        src[conv_name] = types.SimpleNamespace(W=conv.W, b=conv.b)
        src[bn_name] = types.SimpleNamespace(avg_mean=bn.avg_mean, avg_var=bn.avg_var)
        src[scale_name] = types.SimpleNamespace(W=bn.gamma,
                                                bias=types.SimpleNamespace(b=bn.beta))

    put(model.conv1, model.bn1, 'conv1', 'bn_conv1', 'scale_conv1')
    for stage, block in zip((2, 3, 4, 5), (model.res2, model.res3, model.res4, model.res5)):
        count = len(block._forward)
        if n_layers > 50 and stage in (3, 4):
            names = [f'{stage}a'] + [f'{stage}b{i}' for i in range(1, count)]
        else:
            names = [f'{stage}{"abcdefghijklmnopqrstuvwxyz"[i]}' for i in range(count)]
        for link_name, caffe in zip(block._forward, names):
            link = getattr(block, link_name)
            for i, branch in enumerate(['2a', '2b', '2c', '1'][:4 if link_name == 'a' else 3]):
                put(getattr(link, f'conv{i + 1}'), getattr(link, f'bn{i + 1}'),
                    f'res{caffe}_branch{branch}', f'bn{caffe}_branch{branch}',
                    f'scale{caffe}_branch{branch}')
    src['fc1000'] = model.fc6
    return types.SimpleNamespace(**src)


def test_resnet_caffe_transfer_covers_every_array(resnet50):
    source = resnet50.copy('copy')
    for _, param in source.namedparams():
        param.array[...] = np.random.RandomState(0).uniform(-1, 1, param.shape)
    source.bn1.avg_var[...] = 3.0
    source.res5.b2.bn3.avg_mean[...] = 2.0
    target = resnet.ResNetLayers(None, 50)
    resnet._transfer_resnet(_fake_caffe_resnet(source, 50), target, 50)
    for (name, p), (_, q) in zip(sorted(source.namedparams()), sorted(target.namedparams())):
        np.testing.assert_array_equal(q.array, p.array, err_msg=name)
    np.testing.assert_array_equal(target.bn1.avg_var, 3.0)
    np.testing.assert_array_equal(target.res5.b2.bn3.avg_mean, 2.0)


def test_resnet101_caffe_names_are_numbered():
    model = L.ResNet101Layers(pretrained_model=None)
    fake = _fake_caffe_resnet(model, 101)
    assert hasattr(fake, 'res4b22_branch2c') and hasattr(fake, 'res3b3_branch2a')
    assert hasattr(fake, 'res5c_branch2c')
    resnet._transfer_resnet(fake, resnet.ResNetLayers(None, 101), 101)


def test_resnet_auto_converts_a_caffemodel(resnet50, models_dir, monkeypatch):
    models_dir.mkdir(parents=True)
    (models_dir / 'ResNet-50-model.caffemodel').write_bytes(b'stand-in')
    monkeypatch.setattr(_common, '_caffe_function',
                        lambda: lambda path: _fake_caffe_resnet(resnet50, 50))
    loaded = L.ResNet50Layers()
    assert (models_dir / 'ResNet-50-model.npz').exists()
    np.testing.assert_array_equal(loaded.res4.b5.bn2.gamma.array,
                                  resnet50.res4.b5.bn2.gamma.array)
    np.testing.assert_array_equal(loaded.res2.a.bn4.avg_var, resnet50.res2.a.bn4.avg_var)
    with pytest.raises(ValueError, match='n_layers'):
        resnet.ResNetLayers.convert_caffemodel_to_npz('x.caffemodel', 'x.npz', n_layers=18)


def test_vgg_convert_saves_the_caffe_function_itself(tmp_path, monkeypatch):
    source = L.Linear(3, 2)
    monkeypatch.setattr(_common, '_caffe_function', lambda: lambda path: source)
    path = str(tmp_path / 'vgg.npz')
    vgg.VGGLayers.convert_caffemodel_to_npz('VGG_ILSVRC_16_layers.caffemodel', path)
    with np.load(path) as saved:
        assert sorted(saved.files) == ['W', 'b']
        np.testing.assert_array_equal(saved['W'], source.W.array)


@needs_pil
def test_resnet_extract_and_predict(resnet50):
    rng = np.random.RandomState(3)
    images = [rng.randint(0, 256, (40, 30, 3)).astype(np.uint8) for _ in range(2)]
    # extract leaves the configuration alone: in training mode it builds a graph
    features = resnet50.extract(images, size=(48, 48))
    assert list(features) == ['pool5'] and features['pool5'].shape == (2, 2048)
    assert features['pool5'].creator is not None
    with chainlet.using_config('train', False), chainlet.no_backprop_mode():
        features = resnet50.extract(images, layers=['res2', 'prob'], size=None)
        assert features['res2'].shape == (2, 256, 10, 7)
        assert features['prob'].creator is None
    with pytest.raises(ValueError, match='volatile'):
        resnet50.extract(images, volatile=True)
    probs = resnet50.predict(images[:1], oversample=False)
    assert probs.shape == (1, 1000) and probs.creator is None
    assert chainlet.config.train  # restored
    x = resnet50.prepare(images[0], (256, 256))[None, :, 16:240, 16:240]
    with chainlet.using_config('train', False):
        np.testing.assert_allclose(probs.array, resnet50(x)['prob'].array, rtol=1e-5)


@pytest.mark.slow
@needs_pil
def test_resnet_predict_oversample_averages_ten_crops(resnet50):
    image = np.random.RandomState(4).randint(0, 256, (20, 20, 3)).astype(np.uint8)
    probs = resnet50.predict([image])
    crops = _common.oversample(resnet50.prepare(image, (256, 256))[None], (224, 224))
    with chainlet.using_config('train', False):
        expected = resnet50(crops)['prob'].array.mean(axis=0, keepdims=True)
    np.testing.assert_allclose(probs.array, expected, rtol=1e-5, atol=1e-8)


@pytest.fixture
def vgg16():
    # Not module-scoped: a VGG16 is 553 MB of weights and 553 MB of NaN gradients (Chainer's
    # fresh parameters), and kept for the module it overlapped VGG19 and a loaded VGG16
    # (issue 32: tests/links peaked at 3 GB). Without its gradients, 553 MB.
    model = L.VGG16Layers(pretrained_model=None)
    model.cleargrads()
    return model


@pytest.mark.slow
def test_vgg16_layers(vgg16):
    names = vgg16.available_layers
    assert len(names) == 22 and names[:3] == ['conv1_1', 'conv1_2', 'pool1']
    assert names[-5:] == ['pool5', 'fc6', 'fc7', 'fc8', 'prob']
    # Normal(0.01) weights and zero biases as in the paper
    assert abs(float(vgg16.fc6.W.array.std()) - 0.01) < 1e-3
    assert not vgg16.conv1_1.b.array.any()
    x = _input(32)
    out = vgg16(x, layers=['pool1', 'conv3_3', 'pool5'])
    assert out['pool1'].shape == (1, 64, 16, 16) and out['pool5'].shape == (1, 512, 1, 1)
    assert out['conv3_3'].shape == (1, 256, 8, 8)
    assert vgg16.copy().conv1_1 is not vgg16.conv1_1
    with pytest.raises(ValueError, match='using_config'):
        vgg16(x, layers=['pool1'], test=False)


@pytest.mark.slow
def test_vgg19_layers():
    model = L.VGG19Layers(pretrained_model=None)
    names = model.available_layers
    assert len(names) == 25 and names[names.index('pool3') - 1] == 'conv3_4'
    assert model.conv5_4.W.shape == (512, 512, 3, 3)
    with pytest.raises(ValueError, match='n_layers'):
        vgg.VGGLayers(None, 11)


@pytest.mark.slow
@needs_pil
def test_vgg16_extract_defaults_to_fc7_and_round_trip(tmp_path, monkeypatch):
    # one VGG16 (1.1 GB while built) alive at a time (issue 32)
    monkeypatch.setattr(download, '_dataset_root', str(tmp_path))
    with pytest.raises(OSError, match='VGG_ILSVRC_16_layers.npz'):
        L.VGG16Layers()
    gc.collect()  # the model that the failed call built
    vgg16 = L.VGG16Layers(pretrained_model=None)
    vgg16.cleargrads()
    image = np.random.RandomState(5).randint(0, 256, (30, 30, 3)).astype(np.uint8)
    with chainlet.using_config('train', False), chainlet.no_backprop_mode():
        features = vgg16.extract([image])
    assert list(features) == ['fc7'] and features['fc7'].shape == (1, 4096)
    path = tmp_path / 'pfnet' / 'chainer' / 'models' / 'VGG_ILSVRC_16_layers.npz'
    chainlet.serializers.save_npz(str(path), vgg16)
    fc8 = vgg16.fc8.W.array.copy()
    del vgg16  # its 553 MB are freed before a second VGG16 is built (issue 32)
    gc.collect()
    with warnings.catch_warnings():
        loaded = L.VGG16Layers()
    np.testing.assert_array_equal(loaded.fc8.W.array, fc8)
    with chainlet.using_config('train', False), chainlet.no_backprop_mode():
        np.testing.assert_array_equal(loaded.extract([image])['fc7'].array,
                                      features['fc7'].array)


@pytest.mark.slow
def test_resnet_auto_converts_a_real_caffemodel(resnet50, models_dir):
    pytest.importorskip('google.protobuf')
    from chainlet.links.caffe.protobuf3 import caffe_pb2
    source = resnet50.copy('copy')
    rng = np.random.RandomState(6)
    for _, param in source.namedparams():
        param.array[...] = rng.uniform(-1, 1, param.shape)
    source.res3.a.bn2.avg_mean[...] = rng.uniform(-1, 1, 128)
    source.res3.a.bn2.avg_var[...] = rng.uniform(1, 2, 128)
    net = caffe_pb2.NetParameter(name='ResNet-50')

    def add(name, kind, *arrays):
        layer = net.layer.add(name=name, type=kind, bottom=['data'], top=[name])
        for array in arrays:
            blob = layer.blobs.add()
            blob.shape.dim.extend(array.shape)
            blob.data.extend(np.asarray(array).ravel().tolist())
        return layer

    for name, item in vars(_fake_caffe_resnet(source, 50)).items():
        if name == 'fc1000':
            add(name, 'InnerProduct', item.W.array, item.b.array)
            layer = net.layer[-1]
            layer.inner_product_param.num_output = 1000
        elif hasattr(item, 'avg_mean'):  # Caffe's statistics, with their scale factor 1
            add(name, 'BatchNorm', item.avg_mean, item.avg_var, np.ones(1, np.float32))
        elif hasattr(item, 'bias'):
            add(name, 'Scale', item.W.array, item.bias.b.array).scale_param.bias_term = True
        else:
            arrays = (item.W.array,) + (() if item.b is None else (item.b.array,))
            param = add(name, 'Convolution', *arrays).convolution_param
            param.num_output = item.W.shape[0]
            param.kernel_size.append(item.W.shape[2])
            param.bias_term = item.b is not None
    models_dir.mkdir(parents=True)
    (models_dir / 'ResNet-50-model.caffemodel').write_bytes(net.SerializeToString())
    loaded = L.ResNet50Layers()  # CaffeFunction reads it; the converted .npz is kept
    assert (models_dir / 'ResNet-50-model.npz').exists()
    for (name, p), (_, q) in zip(sorted(source.namedparams()), sorted(loaded.namedparams())):
        np.testing.assert_array_equal(q.array, p.array, err_msg=name)
    np.testing.assert_allclose(loaded.res3.a.bn2.avg_var, source.res3.a.bn2.avg_var, rtol=1e-6)
    np.testing.assert_allclose(loaded.res3.a.bn2.avg_mean, source.res3.a.bn2.avg_mean,
                               rtol=1e-6)
