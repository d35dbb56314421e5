"""Iterator behaviours taken from Chainer 7: pickling a running MultiprocessIterator, reset after
finalize, TimeoutWarning as a class attribute, snapshots of older formats."""
import pickle

import pytest

from chainlet import iterators, serializers


def test_timeout_warning_is_reachable_from_the_class():
    assert issubclass(iterators.MultiprocessIterator.TimeoutWarning, RuntimeWarning)


def test_pickled_process_iterator_resumes_from_the_last_batch():
    it = iterators.MultiprocessIterator(list(range(6)), 2, shuffle=False, n_processes=1,
                                        n_prefetch=2)
    try:
        assert it.next() == [0, 1]
        clone = pickle.loads(pickle.dumps(it))
    finally:
        it.finalize()
    try:
        assert clone.epoch_detail == pytest.approx(2 / 6)
        assert clone.next() == [2, 3]
        assert clone.previous_epoch_detail == pytest.approx(2 / 6)
    finally:
        clone.finalize()


def test_reset_after_finalize():
    it = iterators.MultiprocessIterator([1, 2, 3, 4], 2, repeat=False, n_processes=1)
    it.next()
    it.finalize()
    with pytest.raises(NotImplementedError, match='finalized'):
        it.reset()
    th = iterators.MultithreadIterator([1, 2, 3, 4], 2, repeat=False, shuffle=False,
                                       n_threads=1)
    th.next()
    th.finalize()
    th.reset()  # threads are cheap: new ones start on the next call
    assert th.next() == [1, 2]
    th.finalize()


def test_snapshot_with_old_order_key_and_no_previous_detail():
    it = iterators.SerialIterator(list(range(6)), 2)
    first = it.next() + it.next()
    target = {}
    it.serialize(serializers.DictionarySerializer(target))
    target['_order'] = target.pop('order')
    del target['previous_epoch_detail']
    restored = iterators.SerialIterator(list(range(6)), 2)
    restored.serialize(serializers.NpzDeserializer(target))
    assert restored.epoch_detail == pytest.approx(4 / 6)
    assert restored.previous_epoch_detail == pytest.approx(2 / 6)
    assert sorted(first + restored.next()) == list(range(6))
