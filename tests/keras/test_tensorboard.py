"""keras.callbacks.TensorBoard: event files read back with TensorBoard's own reader."""
from __future__ import annotations

import json
import struct
import subprocess
import sys

import numpy as np
import pytest

from chainlet import keras

pytest.importorskip('tensorboardX')


def read_run(path):
    """TensorBoard's own reader (the ``tensorboard`` package, not part of the extra)."""
    ea = pytest.importorskip('tensorboard.backend.event_processing.event_accumulator')
    acc = ea.EventAccumulator(str(path), size_guidance={
        ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.TENSORS: 0, ea.IMAGES: 0})
    acc.Reload()
    return acc


def scalars(acc, tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def make_model(lr=0.1):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, name='d1'),
                              keras.layers.Dense(1, name='d2')])
    model.compile(keras.optimizers.SGD(lr), 'mse', metrics=['mae'])
    return model


def data(n=10, seed=0):
    rng = np.random.RandomState(seed)
    return rng.rand(n, 3).astype(np.float32), rng.rand(n, 1).astype(np.float32)


def test_epoch_scalars_match_history(tmp_path):
    model = make_model()
    x, y = data()
    tb = keras.callbacks.TensorBoard(tmp_path, write_graph=False)
    history = model.fit(x, y, batch_size=4, epochs=3, validation_split=0.2, verbose=0,
                        callbacks=[tb])
    train = read_run(tmp_path / 'train')
    assert sorted(train.Tags()['scalars']) == ['epoch_learning_rate', 'epoch_loss', 'epoch_mae']
    for name in ('loss', 'mae'):
        steps, values = zip(*scalars(train, f'epoch_{name}'))
        assert steps == (0, 1, 2)
        np.testing.assert_allclose(values, history.history[name], rtol=1e-6)
    assert scalars(train, 'epoch_learning_rate') == [(i, pytest.approx(0.1)) for i in range(3)]
    val = read_run(tmp_path / 'validation')
    steps, values = zip(*scalars(val, 'epoch_loss'))
    assert steps == (0, 1, 2)
    np.testing.assert_allclose(values, history.history['val_loss'], rtol=1e-6)
    # after each validation, at the optimizer's iteration count (2 batches per epoch)
    steps, values = zip(*scalars(val, 'evaluation_mae_vs_iterations'))
    assert steps == (2, 4, 6)
    np.testing.assert_allclose(values, history.history['val_mae'], rtol=1e-6)
    assert train.Tags()['histograms'] == [] and train.Tags()['tensors'] == []


@pytest.mark.parametrize('update_freq, steps', [
    ('batch', [1, 2, 3, 4, 5, 6]), (2, [2, 4, 6]), (4, [4]), ('epoch', [])])
def test_batch_scalars(tmp_path, update_freq, steps):
    seen = []
    record = keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(logs['loss']))
    model = make_model()
    x, y = data(12)
    tb = keras.callbacks.TensorBoard(tmp_path, update_freq=update_freq, write_graph=False)
    model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[record, tb])
    train = read_run(tmp_path / 'train')
    if not steps:
        assert 'batch_loss' not in train.Tags()['scalars']
        return
    got = scalars(train, 'batch_loss')
    assert [s for s, _ in got] == steps
    np.testing.assert_allclose([v for _, v in got], [seen[s - 1] for s in steps], rtol=1e-6)
    assert [s for s, _ in scalars(train, 'batch_mae')] == steps


def raw_scalars(folder):
    """``{tag: [(step, value)]}`` from the TFRecord files of ``folder``, parsed with only
    tensorboardX's protos (each record: 8-byte length, 4-byte CRC, data, 4-byte CRC)."""
    from tensorboardX.proto.event_pb2 import Event
    found = {}
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        pos = 0
        while pos < len(data):
            (length,) = struct.unpack('<Q', data[pos:pos + 8])
            event = Event.FromString(data[pos + 12:pos + 12 + length])
            pos += 12 + length + 4
            for value in event.summary.value:
                found.setdefault(value.tag, []).append((event.step, value.simple_value))
    return found


def test_event_records_without_the_tensorboard_package(tmp_path):
    model = make_model()
    x, y = data()
    history = model.fit(x, y, batch_size=5, epochs=2, validation_split=0.2, verbose=0,
                        callbacks=[keras.callbacks.TensorBoard(tmp_path, write_graph=False)])
    train = raw_scalars(tmp_path / 'train')
    assert sorted(train) == ['epoch_learning_rate', 'epoch_loss', 'epoch_mae']
    assert [s for s, _ in train['epoch_loss']] == [0, 1]
    np.testing.assert_allclose([v for _, v in train['epoch_loss']], history.history['loss'],
                               rtol=1e-6)
    val = raw_scalars(tmp_path / 'validation')
    np.testing.assert_allclose([v for _, v in val['epoch_loss']], history.history['val_loss'],
                               rtol=1e-6)


def test_histograms_images_and_steps_per_second(tmp_path):
    model = make_model()
    x, y = data()
    tb = keras.callbacks.TensorBoard(tmp_path, histogram_freq=2, write_images=True,
                                     write_steps_per_second=True, update_freq=1,
                                     write_graph=False)
    model.fit(x, y, batch_size=5, epochs=3, verbose=0, callbacks=[tb])
    train = read_run(tmp_path / 'train')
    tags = train.Tags()
    assert sorted(tags['histograms']) == ['d1/bias/histogram', 'd1/kernel/histogram',
                                          'd2/bias/histogram', 'd2/kernel/histogram']
    kernel = train.Histograms('d2/kernel/histogram')
    assert [h.step for h in kernel] == [0, 2]  # epochs 0 and 2
    last = model.layers[1].weights[0].numpy()
    assert kernel[-1].histogram_value.num == last.size
    assert kernel[-1].histogram_value.min == pytest.approx(float(last.min()), rel=1e-6)
    assert kernel[-1].histogram_value.max == pytest.approx(float(last.max()), rel=1e-6)
    # a bias of one unit squeezes to a scalar and has no picture (as in Keras)
    assert sorted(tags['images']) == ['d1/bias/image', 'd1/kernel/image', 'd2/kernel/image']
    image = train.Images('d1/kernel/image')[0]
    assert (image.width, image.height) == (4, 3)  # the long side across
    assert [s for s, _ in scalars(train, 'epoch_steps_per_second')] == [0, 1, 2]
    assert all(v > 0 for _, v in scalars(train, 'epoch_steps_per_second'))
    assert [s for s, _ in scalars(train, 'batch_steps_per_second')] == [1, 2, 3, 4, 5, 6]


def test_graph_is_the_model_json(tmp_path):
    model = make_model()
    x, y = data()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TensorBoard(tmp_path)])
    train = read_run(tmp_path / 'train')
    assert train.PluginTagToContent('graph_keras_model') == {'keras': b'1'}
    (event,) = train.Tensors('keras')
    assert event.step == 0
    config = json.loads(event.tensor_proto.string_val[0].decode())
    assert config == json.loads(model.to_json())


def test_evaluate_writes_evaluation_scalars(tmp_path):
    model = make_model()
    x, y = data()
    model.fit(x, y, batch_size=5, epochs=1, verbose=0)
    tb = keras.callbacks.TensorBoard(tmp_path)
    loss, mae = model.evaluate(x, y, verbose=0, callbacks=[tb])
    val = read_run(tmp_path / 'validation')
    assert scalars(val, 'evaluation_loss_vs_iterations') == [(2, pytest.approx(loss, rel=1e-6))]
    assert scalars(val, 'evaluation_mae_vs_iterations') == [(2, pytest.approx(mae, rel=1e-6))]


def test_quick_successive_fits_keep_their_own_files(tmp_path):
    model = make_model()
    x, y = data()
    tb = keras.callbacks.TensorBoard(tmp_path, write_graph=False)
    for _ in range(3):  # within one second: tensorboardX alone would reuse one file name
        model.fit(x, y, epochs=1, verbose=0, callbacks=[tb])
    files = sorted((tmp_path / 'train').iterdir())
    assert len(files) == 3
    assert all(f.stat().st_size > 100 for f in files)


def test_no_files_without_training(tmp_path):
    keras.callbacks.TensorBoard(tmp_path / 'logs')
    assert not (tmp_path / 'logs').exists()


@pytest.mark.parametrize('kwargs, match', [
    (dict(update_freq=0), 'update_freq'), (dict(update_freq='often'), 'update_freq'),
    (dict(histogram_freq=-1), 'histogram_freq'), (dict(profile_batch=3), 'profil'),
    (dict(embeddings_freq=1), 'embedding')])
def test_bad_arguments(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        keras.callbacks.TensorBoard(tmp_path, **kwargs)


def test_missing_tensorboardx_names_the_extra():
    code = ('import sys; sys.modules["tensorboardX"] = None\n'
            'from chainlet import keras\n'
            'try:\n    keras.callbacks.TensorBoard()\n'
            'except ImportError as e:\n    print(e)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert 'pip install "chainlet-dl[tensorboard]"' in out


def test_importing_keras_does_not_import_tensorboardx():
    code = ('import sys\nimport chainlet\nfrom chainlet import keras\n'
            'from chainlet.training import extensions\n'
            'print("tensorboardX" in sys.modules)')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == 'False'


def test_write_images_without_pillow_names_the_extra():
    code = ('import sys; sys.modules["PIL"] = None\n'
            'from chainlet import keras\n'
            'keras.callbacks.TensorBoard(write_images=False)\n'
            'try:\n    keras.callbacks.TensorBoard(write_images=True)\n'
            'except ImportError as e:\n    print(e)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert 'pip install "chainlet-dl[image]"' in out
