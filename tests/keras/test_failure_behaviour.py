"""Keras failure behaviour (issue 13): losses averaged over samples, labels out of range
rejected, no reference cycles per call, durable and verified saves."""
from __future__ import annotations

import gc
import os
import re
import stat

import numpy as np
import pytest

from chainlet import keras
from chainlet.serializers import CorruptFileError


def _classifier(n_in: int = 4, n_class: int = 3) -> keras.Model:
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input(shape=(n_in,)), keras.layers.Dense(8, activation='tanh'),
                             keras.layers.Dense(n_class)])


def _data(n: int = 300, n_in: int = 4, n_class: int = 3) -> tuple:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, n_in)).astype(np.float32)
    y = rng.integers(0, n_class, size=n)
    w = rng.uniform(0.1, 3.0, size=n).astype(np.float32)
    return x, y, w


def _sample_loss(model: keras.Model, x, y, w=None) -> float:
    """Keras's definition from predict: sum of weighted per-sample losses over the sample count."""
    logits = model.predict(x, verbose=0).astype(np.float64)
    logp = logits - logits.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    per_sample = -logp[np.arange(len(y)), y]
    if w is not None:
        per_sample = per_sample * w
    return float(per_sample.sum() / len(y))


# ------------------------------------------------------------- item 5: mean over samples

@pytest.mark.parametrize('weighted', [False, True])
def test_evaluate_is_mean_over_samples(weighted):
    x, y, w = _data()
    model = _classifier()
    model.compile('sgd', keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    sw = w if weighted else None
    got = model.evaluate(x, y, sample_weight=sw, batch_size=32, verbose=0)
    # 300 = 9 * 32 + 12: a plain mean of batch means over-weights the last 12 samples
    assert got == pytest.approx(_sample_loss(model, x, y, sw), rel=1e-5)
    whole = model.evaluate(x, y, sample_weight=sw, batch_size=300, verbose=0)
    assert got == pytest.approx(whole, rel=1e-5)


def test_fit_val_loss_and_loss_are_means_over_samples():
    x, y, w = _data()
    model = _classifier()
    model.compile(keras.optimizers.SGD(0.0), keras.losses.SparseCategoricalCrossentropy(
        from_logits=True))   # lr 0: the weights stay fixed, so predict gives the same losses
    hist = model.fit(x[:100], y[:100], batch_size=32, epochs=1, shuffle=False, verbose=0,
                     validation_data=(x, y, w))
    assert hist.history['val_loss'][0] == pytest.approx(_sample_loss(model, x, y, w), rel=1e-5)
    assert hist.history['loss'][0] == pytest.approx(_sample_loss(model, x[:100], y[:100]),
                                                    rel=1e-5)


def test_multi_output_losses_are_means_over_samples():
    keras.utils.set_random_seed(0)
    inp = keras.Input(shape=(4,))
    a = keras.layers.Dense(1, name='a')(inp)
    b = keras.layers.Dense(1, name='b')(inp)
    model = keras.Model(inp, [a, b])
    model.compile('sgd', 'mse')
    x, _, _ = _data(n=50)
    ya = np.ones((50, 1), np.float32)
    yb = np.zeros((50, 1), np.float32)
    logs = model.evaluate(x, [ya, yb], batch_size=16, verbose=0, return_dict=True)
    pa, pb = model.predict(x, verbose=0)
    want_a = float(np.mean((pa - ya) ** 2))
    want_b = float(np.mean((pb - yb) ** 2))
    assert logs['a_loss'] == pytest.approx(want_a, rel=1e-5)
    assert logs['b_loss'] == pytest.approx(want_b, rel=1e-5)
    assert logs['loss'] == pytest.approx(want_a + want_b, rel=1e-5)


# ----------------------------------------------------- item 6: labels out of range rejected

_LOSSES = [
    pytest.param(lambda: keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                 id='class-logits'),
    pytest.param(lambda: keras.losses.SparseCategoricalCrossentropy(), id='class-probs'),
    pytest.param(lambda: 'sparse_categorical_crossentropy', id='name'),
]


@pytest.mark.parametrize('make_loss', _LOSSES)
@pytest.mark.parametrize('label', [-1, 3, 99, -5])
def test_sparse_crossentropy_rejects_labels_out_of_range(make_loss, label):
    model = _classifier()
    model.compile('sgd', make_loss())
    x, y, _ = _data(n=8)
    y[5] = label
    before = model.get_weights()
    with pytest.raises(ValueError, match=rf'sparse_categorical_crossentropy: argument y_true: '
                                         rf'expected labels in \[0, 3\), got {label}$'):
        model.fit(x, y, verbose=0)
    for old, new in zip(before, model.get_weights()):  # nothing was trained on it
        np.testing.assert_array_equal(old, new)
    with pytest.raises(ValueError, match='argument y_true'):
        model.evaluate(x, y, verbose=0)


def test_sparse_crossentropy_function_checks_labels_of_any_rank():
    logits = np.zeros((2, 5, 3), np.float32)
    labels = np.zeros((2, 5), np.int64)
    keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    labels[1, 4] = 3
    labels[0, 0] = -2
    with pytest.raises(ValueError, match=r'got -2, 3$'):
        keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)


def test_ignore_class_is_the_one_allowed_label_outside_the_classes():
    logits = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    labels = np.array([0, -1, 2, -1])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    per = keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True,
                                                       ignore_class=-1)
    assert per.array[1] == 0 and per.array[3] == 0 and per.array[0] > 0
    assert np.isfinite(float(loss(labels, logits).array))
    with pytest.raises(ValueError, match=r'or ignore_class -1, got 5$'):
        loss(np.array([0, -1, 5, 1]), logits)


def test_labels_in_range_still_train():
    model = _classifier()
    model.compile('adam', keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x, y, _ = _data(n=64)
    y[:3] = [0, 2, 2]
    hist = model.fit(x, y, epochs=3, verbose=0)
    assert hist.history['loss'][-1] < hist.history['loss'][0]


# --------------------------------------------------------- item 8: no cycle per call

def _garbage_per_call(call, repeats: int = 5) -> float:
    call()   # warm-up: lazy builds, caches
    call()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for _ in range(repeats):
            call()
        return gc.collect() / repeats
    finally:
        if was_enabled:
            gc.enable()


def test_training_calls_leave_no_reference_cycles():
    model = _classifier()
    model.compile('adam', keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    x, y, _ = _data(n=64)
    assert _garbage_per_call(lambda: model.train_on_batch(x, y)) == 0
    assert _garbage_per_call(lambda: model.test_on_batch(x, y)) == 0
    assert _garbage_per_call(lambda: model.fit(x, y, batch_size=16, verbose=0,
                                               validation_data=(x, y))) == 0
    assert _garbage_per_call(lambda: model.evaluate(x, y, verbose=0)) == 0
    assert _garbage_per_call(lambda: model.predict(x, verbose=0)) == 0


def test_functional_model_with_dict_inputs_leaves_no_reference_cycles():
    keras.utils.set_random_seed(0)
    a = keras.Input(shape=(2,), name='a')
    b = keras.Input(shape=(3,), name='b')
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
    model = keras.Model({'a': a, 'b': b}, out)
    model.compile('sgd', 'mse')
    x = {'a': np.ones((8, 2), np.float32), 'b': np.ones((8, 3), np.float32)}
    y = np.zeros((8, 1), np.float32)
    assert _garbage_per_call(lambda: model.train_on_batch(x, y)) == 0
    assert _garbage_per_call(lambda: model.fit(x, y, batch_size=4, verbose=0)) == 0


# ------------------------------------------------------------ item 4: durable, verified saves

_EXTS = ['.keras', '.npz', pytest.param('.h5', marks=pytest.mark.skipif(
    not __import__('importlib').util.find_spec('h5py'), reason='needs h5py'))]


def _trained(optimizer: str = 'adam') -> tuple:
    model = _classifier()
    model.compile(optimizer, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    x, y, _ = _data(n=64)
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    return model, x, y


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize('ext', _EXTS)
def test_saved_files_get_the_umask_mode_and_are_fsynced_before_the_rename(
        tmp_path, ext, umask_022, monkeypatch):
    model, x, y = _trained()
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, 'fsync', lambda fd: (events.append('fsync'), real_fsync(fd))[1])
    monkeypatch.setattr(os, 'replace', lambda a, b: (events.append('replace'),
                                                     real_replace(a, b))[1])
    whole = tmp_path / f'm{ext}'
    weights = tmp_path / f'w{".weights.npz" if ext == ".keras" else ext}'
    model.save(str(whole))
    assert events[:2] == ['fsync', 'replace']
    events.clear()
    model.save_weights(str(weights))
    assert events[:2] == ['fsync', 'replace']
    checkpoint = tmp_path / f'ckpt{ext}'
    model.fit(x, y, epochs=1, verbose=0,
              callbacks=[keras.callbacks.ModelCheckpoint(str(checkpoint))])
    for path in (whole, weights, checkpoint):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (whole, weights, checkpoint))   # no temporary file left


@pytest.mark.parametrize('ext', _EXTS)
def test_truncated_empty_and_plain_text_files_raise_an_error_naming_the_path(tmp_path, ext):
    model, _, _ = _trained()
    good = tmp_path / f'good{ext}'
    model.save(str(good))
    raw = good.read_bytes()
    bad = tmp_path / f'bad{ext}'
    for content in (b'', raw[:10], raw[:len(raw) // 2], raw[:-1], b'hello world\n' * 20):
        bad.write_bytes(content)
        for load in (keras.models.load_model, model.load_weights):
            with pytest.raises(CorruptFileError, match=re.escape(repr(str(bad)))) as info:
                load(str(bad))
            assert 'allow_pickle' not in str(info.value)
            assert isinstance(info.value, ValueError) and isinstance(info.value, OSError)


@pytest.mark.parametrize('ext', _EXTS)
def test_flipped_bytes_never_load_wrong_weights(tmp_path, ext):
    model, _, _ = _trained()
    good = tmp_path / f'good{ext}'
    model.save(str(good))
    raw = good.read_bytes()
    want = model.get_weights()
    bad = tmp_path / f'bad{ext}'
    rng = np.random.default_rng(0)
    outcomes = {'error': 0, 'same': 0}
    # every byte of the zip central directory (the end of the file, not covered by the members'
    # CRC-32) and a sample of the rest
    tail = range(max(0, len(raw) - 600), len(raw))
    for i in sorted(set(rng.choice(len(raw), size=150, replace=False)) | set(tail)):
        flipped = bytearray(raw)
        flipped[i] ^= 0x5A
        bad.write_bytes(bytes(flipped))
        try:
            loaded = keras.models.load_model(str(bad))
        except CorruptFileError:
            outcomes['error'] += 1
            continue
        for a, b in zip(want, loaded.get_weights()):
            np.testing.assert_array_equal(a, b, err_msg=f'byte {i} flipped loaded wrong weights')
        assert loaded.optimizer.iterations == model.optimizer.iterations
        outcomes['same'] += 1
    assert outcomes['error'] > 0


def test_h5_datasets_carry_checksums(tmp_path):
    h5py = pytest.importorskip('h5py')
    model, _, _ = _trained()
    path = tmp_path / 'm.h5'
    model.save(str(path))
    with h5py.File(path, 'r') as h5:
        datasets = []
        h5.visititems(lambda name, obj: datasets.append(obj)
                      if isinstance(obj, h5py.Dataset) else None)
        assert datasets
        for d in datasets:
            assert d.fletcher32 or 'crc32' in d.attrs, d.name
        assert 'model_config_crc32' in h5.attrs


@pytest.mark.parametrize('ext', _EXTS)
def test_save_with_optimizer_restores_iterations_and_moments(tmp_path, ext):
    model, x, y = _trained()
    path = str(tmp_path / f'm{ext}')
    model.save(path)
    loaded = keras.models.load_model(path)
    assert loaded.optimizer.iterations == model.optimizer.iterations == 8
    # resumed training matches uninterrupted training step for step (Adam's moments restored)
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    loaded.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    model.save(path, include_optimizer=False)
    fresh = keras.models.load_model(path)
    assert fresh.optimizer.iterations == 0
    fresh.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    assert not all(np.allclose(a, b) for a, b in zip(model.get_weights(), fresh.get_weights()))


@pytest.mark.gpu
def test_save_on_gpu_restores_optimizer_state_and_labels_are_checked_in_debug(tmp_path):
    cupy = pytest.importorskip('cupy')
    import chainlet
    model, x, y = _trained()
    model.to_device('@cupy:0')
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)   # state arrays now on the device
    path = str(tmp_path / 'm.keras')
    model.save(path)
    loaded = keras.models.load_model(path)
    loaded.to_device('@cupy:0')
    assert loaded.optimizer.iterations == model.optimizer.iterations == 12
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    loaded.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    y_bad = y.copy()
    y_bad[0] = -1
    with chainlet.using_config('debug', True):
        with pytest.raises(ValueError, match='argument y_true: expected labels in'):
            loaded.train_on_batch(cupy.asarray(x), cupy.asarray(y_bad))
