"""SerialIterator and MultithreadIterator: batches, epochs, shuffling, stopping, resuming."""
import numpy as np
import pytest

from chainlet.datasets import TupleDataset
from chainlet.iterators import MultithreadIterator, SerialIterator, ShuffleOrderSampler


class DictSerializer:
    """Saves into a dict (``load=False``) or loads from one (``load=True``)."""

    def __init__(self, target=None, load=False, prefix=''):
        self.target = {} if target is None else target
        self.load = load
        self.prefix = prefix

    def __getitem__(self, key):
        return DictSerializer(self.target, self.load, f'{self.prefix}{key}/')

    def __call__(self, key, value):
        key = self.prefix + key
        if self.load:
            stored = self.target[key]
            if isinstance(value, np.ndarray):
                value[...] = stored  # in place, as chainlet's npz deserializer does
                return value
            return stored
        self.target[key] = value.copy() if isinstance(value, np.ndarray) else value
        return value


def seeded(seed=0):
    return ShuffleOrderSampler(np.random.RandomState(seed))


def test_no_shuffle_batches_and_epochs():
    it = SerialIterator(list(range(5)), 2, shuffle=False)
    assert it.previous_epoch_detail is None
    expected = [([0, 1], 0, False, 0.4), ([2, 3], 0, False, 0.8), ([4, 0], 1, True, 1.2),
                ([1, 2], 1, False, 1.6), ([3, 4], 2, True, 2.0), ([0, 1], 2, False, 2.4)]
    previous = 0.0
    for batch, epoch, new, detail in expected:
        assert next(it) == batch
        assert (it.epoch, it.is_new_epoch) == (epoch, new)
        assert it.epoch_detail == pytest.approx(detail)
        assert it.previous_epoch_detail == pytest.approx(previous)
        previous = detail
    assert it.current_position == 2


def test_repeat_false_last_partial_batch_then_stop():
    it = SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
    assert list(it) == [[0, 1], [2, 3], [4]]
    assert it.epoch == 1 and it.is_new_epoch and it.epoch_detail == 1.0
    with pytest.raises(StopIteration):
        next(it)
    it.reset()
    assert next(it) == [0, 1] and it.epoch == 0


@pytest.mark.parametrize('batch_size', [1, 3, 4, 7])
def test_shuffle_sees_every_example_once_per_epoch(batch_size):
    n = 10
    it = SerialIterator(list(range(n)), batch_size, order_sampler=seeded(1))
    seen = []
    epochs = 0
    while epochs < 3:
        batch = next(it)
        assert len(batch) == batch_size
        seen += batch
        if it.is_new_epoch:
            epochs += 1
    # the stream is a concatenation of permutations (the last batch may run into epoch 4)
    for e in range(3):
        assert sorted(seen[e * n:(e + 1) * n]) == list(range(n))
    assert seen[:n] != list(range(n))  # really shuffled
    assert seen[:n] != seen[n:2 * n]  # a new order every epoch


def test_batch_larger_than_dataset_wraps_several_epochs():
    it = SerialIterator([0, 1, 2], 7, shuffle=False)
    assert next(it) == [0, 1, 2, 0, 1, 2, 0]
    assert it.epoch == 2 and it.current_position == 1 and it.is_new_epoch


def test_shuffle_is_seeded_and_default_uses_global_state():
    a = [next(SerialIterator(list(range(20)), 5, order_sampler=seeded(3))) for _ in range(2)]
    assert a[0] == a[1]
    np.random.seed(7)
    b = next(SerialIterator(list(range(20)), 5))
    np.random.seed(7)
    c = next(SerialIterator(list(range(20)), 5))
    assert b == c
    generator = ShuffleOrderSampler(np.random.default_rng(0))
    assert sorted(next(SerialIterator(list(range(4)), 4, order_sampler=generator))) == \
        [0, 1, 2, 3]


def test_tuple_dataset_examples():
    ds = TupleDataset(np.arange(6.0).reshape(3, 2), np.array([7, 8, 9]))
    batch = next(SerialIterator(ds, 2, shuffle=False))
    assert len(batch) == 2 and batch[1][0].tolist() == [2.0, 3.0] and batch[1][1] == 8


@pytest.mark.parametrize('shuffle', [False, True])
@pytest.mark.parametrize('cls', [SerialIterator, MultithreadIterator])
def test_serialize_resume_mid_epoch(cls, shuffle):
    kwargs = {'order_sampler': seeded(5)} if shuffle else {'shuffle': False}
    data = list(range(11))
    a = cls(data, 3, **kwargs)
    for _ in range(5):  # epoch 1, in the middle
        next(a)
    saved = {}
    a.serialize(DictSerializer(saved))
    assert saved['current_position'] == a.current_position and saved['epoch'] == 1
    assert ('order' in saved) == shuffle
    expected = [next(a) for _ in range(2)]
    details = (a.epoch, a.epoch_detail, a.is_new_epoch)

    b = cls(data, 3, **kwargs)
    b.serialize(DictSerializer(saved, load=True))
    assert b.previous_epoch_detail == pytest.approx(saved['previous_epoch_detail'])
    assert [next(b) for _ in range(2)] == expected
    assert (b.epoch, b.epoch_detail, b.is_new_epoch) == details
    a.finalize()
    b.finalize()


def test_serialize_without_previous_epoch_detail_estimates_it():
    it = SerialIterator(list(range(10)), 4, shuffle=False)
    saved = {'current_position': 8, 'epoch': 0, 'is_new_epoch': False}

    class Old(DictSerializer):
        def __call__(self, key, value):
            if key not in self.target:
                raise KeyError(key)
            return super().__call__(key, value)

    it.serialize(Old(saved, load=True))
    assert it.previous_epoch_detail == pytest.approx(0.4)
    assert next(it) == [8, 9, 0, 1]


def test_multithread_matches_serial():
    data = [np.full(2, i) for i in range(13)]
    serial = SerialIterator(data, 4, order_sampler=seeded(2))
    with MultithreadIterator(data, 4, order_sampler=seeded(2), n_threads=3) as threaded:
        for _ in range(10):
            a, b = next(serial), next(threaded)
            assert [x.tolist() for x in a] == [x.tolist() for x in b]
            assert (serial.epoch, serial.is_new_epoch) == (threaded.epoch, threaded.is_new_epoch)
            assert serial.epoch_detail == threaded.epoch_detail
    with pytest.raises(RuntimeError, match='finalized'):
        next(threaded)


@pytest.mark.parametrize('kwargs, error', [
    ({'batch_size': 0}, ValueError), ({'batch_size': 2.0}, TypeError),
    ({'batch_size': 2, 'shuffle': True, 'order_sampler': seeded()}, ValueError),
    ({'batch_size': 2, 'order_sampler': 3}, TypeError),
])
def test_argument_errors(kwargs, error):
    with pytest.raises(error, match='SerialIterator'):
        SerialIterator([1, 2, 3], **kwargs)


def test_empty_dataset():
    with pytest.raises(StopIteration):
        next(SerialIterator([], 2, repeat=False))
    with pytest.raises(ValueError, match='non-empty'):
        next(SerialIterator([], 2))


def test_order_sampler_wrong_length():
    it = SerialIterator([0, 1, 2], 2, order_sampler=lambda order, pos: np.arange(2)
                        if pos else np.arange(3))
    next(it)
    with pytest.raises(ValueError, match='length 2'):
        next(it)


@pytest.mark.parametrize('make_rng', [lambda: np.random.RandomState(3),
                                      lambda: np.random.default_rng(3)])
def test_shuffle_order_sampler_serializes_its_random_state(make_rng, tmp_path):
    from chainlet import serializers
    from chainlet.iterators import ShuffleOrderSampler
    sampler = ShuffleOrderSampler(make_rng())
    sampler(np.arange(10), 0)
    path = str(tmp_path / 'sampler.npz')
    serializers.save_npz(path, sampler)
    expected = [sampler(np.arange(10), 0) for _ in range(3)]
    restored = ShuffleOrderSampler(make_rng())
    serializers.load_npz(path, restored)
    got = [restored(np.arange(10), 0) for _ in range(3)]
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)
