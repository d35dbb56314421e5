"""concat_examples and to_device: structures, padding, devices, errors."""
import numpy as np
import pytest

import chainlet
from chainlet import backend
from chainlet.dataset import concat_examples, convert, to_device


def test_tuples_give_tuple_of_stacked_arrays():
    batch = [(np.array([1., 2.], np.float32), np.int32(3)), (np.array([4., 5.], np.float32), 6)]
    x, t = concat_examples(batch)
    np.testing.assert_array_equal(x, [[1, 2], [4, 5]])
    assert x.dtype == np.float32 and x.shape == (2, 2)
    np.testing.assert_array_equal(t, [3, 6])


def test_dicts_arrays_and_scalars():
    out = concat_examples([{'a': np.zeros((2, 3)), 'b': 1}, {'a': np.ones((2, 3)), 'b': 2}])
    assert set(out) == {'a', 'b'} and out['a'].shape == (2, 2, 3)
    np.testing.assert_array_equal(out['a'][1], np.ones((2, 3)))
    np.testing.assert_array_equal(out['b'], [1, 2])
    np.testing.assert_array_equal(concat_examples([np.arange(3), np.arange(3) + 1]),
                                  [[0, 1, 2], [1, 2, 3]])
    np.testing.assert_array_equal(concat_examples([1.5, 2.5]), [1.5, 2.5])
    assert convert.concat_examples is concat_examples


def test_padding_to_the_largest_shape():
    batch = [(np.ones((1, 3), np.int32), np.array([1])), (np.ones((2, 1), np.int32),
                                                          np.array([1, 2]))]
    x, t = concat_examples(batch, padding=(-1, 0))
    assert x.shape == (2, 2, 3) and x.dtype == np.int32
    np.testing.assert_array_equal(x[0], [[1, 1, 1], [-1, -1, -1]])
    np.testing.assert_array_equal(x[1], [[1, -1, -1], [1, -1, -1]])
    np.testing.assert_array_equal(t, [[1, 0], [1, 2]])
    d = concat_examples([{'s': np.array([1, 2])}, {'s': np.array([3])}], padding={'s': 9})
    np.testing.assert_array_equal(d['s'], [[1, 2], [3, 9]])


def test_examples_are_not_aliased():
    a = np.zeros(2)
    out = concat_examples([a, a])
    out[0, 0] = 5
    assert a[0] == 0


def test_cpu_device_specs():
    for spec in (-1, '@numpy', 'cpu'):
        out = concat_examples([(np.zeros(2),)], device=spec)[0]
        assert isinstance(out, np.ndarray)
    a = np.zeros(1)
    assert to_device(None, a) is a and to_device(-1, a) is a


@pytest.mark.skipif(not backend.gpu_available(), reason='needs CuPy and a GPU')
@pytest.mark.gpu
def test_gpu_device():
    import cupy
    x, t = concat_examples([(np.zeros(2), 1), (np.ones(2), 2)], device='@cupy:0')
    assert isinstance(x, cupy.ndarray) and isinstance(t, cupy.ndarray)
    back = concat_examples([x[0], x[1]], device=-1)
    np.testing.assert_array_equal(back, [[0, 0], [1, 1]])


def test_errors():
    with pytest.raises(ValueError, match='empty'):
        concat_examples([])
    with pytest.raises(ValueError, match='padding='):
        concat_examples([np.zeros(2), np.zeros(3)])
    with pytest.raises(ValueError, match='tuple of length 2'):
        concat_examples([(1, 2), (1,)])
    with pytest.raises(ValueError, match="key 'b'"):
        concat_examples([{'b': 1}, {'c': 2}])
    with pytest.raises(TypeError, match='concat_examples'):
        concat_examples(5)
    with pytest.raises(ValueError, match='device'):
        to_device('tpu', np.zeros(1))


def test_any_sequence_of_examples_is_accepted():
    from chainlet.datasets import TupleDataset
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    t = np.array([0, 1, 2], np.int32)
    bx, bt = concat_examples(TupleDataset(x, t))
    np.testing.assert_array_equal(bx, x)
    np.testing.assert_array_equal(bt, t)
    with pytest.raises(TypeError, match='batch must be a sequence of examples, got int'):
        concat_examples(3)


def test_converter_decorator_passes_a_device_object():
    # Chainer 7's seq2seq example: @chainer.dataset.converter() and device.xp / device.send.
    from chainlet.dataset import Converter, converter

    seen = []

    @converter()
    def to_batch(batch, device):
        seen.append(device)
        if device is None:
            return {'xs': batch}
        concat = np.concatenate(batch, axis=0)
        sections = np.cumsum([len(x) for x in batch[:-1]])
        return {'xs': device.xp.split(device.send(concat), sections)}

    batch = [np.arange(3), np.arange(2)]
    assert isinstance(to_batch, Converter) and to_batch.__name__ == 'to_batch'
    for spec in (-1, '@numpy', chainlet.get_device('@numpy')):
        out = to_batch(batch, spec)['xs']
        assert [x.tolist() for x in out] == [[0, 1, 2], [0, 1]]
        assert seen[-1].xp is np
    assert to_batch(batch, device=None)['xs'] is batch and seen[-1] is None


def test_concat_examples_is_a_converter_object_as_in_chainer():
    # Chainer 7: ``concat_examples`` is a Converter wrapping ``concat_examples_func``; the
    # device argument (positional or keyword) reaches the function as a device object.
    from chainlet.dataset import Converter
    from chainlet.training.updaters import StandardUpdater

    assert isinstance(concat_examples, Converter) and callable(concat_examples)
    assert convert.concat_examples is concat_examples
    assert concat_examples.base_callable is convert.concat_examples_func
    assert concat_examples.__name__ == 'concat_examples'
    batch = [(np.zeros(2, np.float32), 1), (np.ones(2, np.float32), 0)]
    for call in (lambda: concat_examples(batch), lambda: concat_examples(batch, -1),
                 lambda: concat_examples(batch, device='@numpy', padding=None),
                 lambda: convert.concat_examples_func(batch, None)):
        x, t = call()
        np.testing.assert_array_equal(x, [[0, 0], [1, 1]])
        np.testing.assert_array_equal(t, [1, 0])
    seen = []
    original = concat_examples.base_callable
    concat_examples.base_callable = lambda b, device=None, padding=None: seen.append(device)
    try:
        concat_examples(batch, -1)
        concat_examples(batch, device='@numpy')
    finally:
        concat_examples.base_callable = original
    assert [d.xp for d in seen] == [np, np]
    assert StandardUpdater.__init__.__defaults__[0] is concat_examples
