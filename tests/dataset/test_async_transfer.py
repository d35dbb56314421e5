"""ConcatWithAsyncTransfer and Conveyor: the host path everywhere, the GPU path where CuPy is
(or its CPU emulator, ``CHAINLET_EMULATE_CUPY=1``)."""
import numpy as np
import pytest

from chainlet import backend
from chainlet.dataset import ConcatWithAsyncTransfer, concat_examples
from chainlet.dataset import convert


def _batch():
    return [(np.full(3, i, np.float32), np.int32(i)) for i in range(4)]


def test_concat_examples_func_is_the_plain_function():
    # Chainer 7: concat_examples is a Converter object around the plain function.
    assert convert.concat_examples_func is concat_examples.base_callable
    assert type(convert.concat_examples_func).__name__ == 'function'


@pytest.mark.parametrize('device', [None, -1, '@numpy'])
def test_host_path_matches_concat_examples(device):
    conv = ConcatWithAsyncTransfer()
    for _ in range(3):  # the conveyors are reused across calls
        x, t = conv(_batch(), device)
        ex, et = concat_examples(_batch())
        np.testing.assert_array_equal(x, ex)
        np.testing.assert_array_equal(t, et)
    d = conv([{'a': np.ones(2), 'b': np.arange(2)}, {'a': np.zeros(1), 'b': np.arange(2)}],
             device, padding={'a': -1, 'b': 0})
    np.testing.assert_array_equal(d['a'], [[1, 1], [0, -1]])
    np.testing.assert_array_equal(conv([np.ones(2), np.ones(2)], device), np.ones((2, 2)))


def test_errors():
    conv = ConcatWithAsyncTransfer()
    with pytest.raises(ValueError, match='batch is empty'):
        conv([])
    conv(_batch(), -1)
    with pytest.raises(ValueError, match='argument device'):
        conv(_batch(), None)


def test_conveyor_host_path_keeps_order():
    c = convert.Conveyor(device=-1)
    c.put(np.zeros(2))
    c.put(np.ones(3))
    assert c.get().shape == (2,) and c.get().shape == (3,)


@pytest.mark.gpu
def test_gpu_path(monkeypatch):
    cupy = backend.import_cupy()
    # The CPU emulator lacks pinned memory and event recording; real CuPy has both.
    monkeypatch.setattr(cupy.cuda, 'alloc_pinned_memory', lambda n: bytearray(n), raising=False)
    if not hasattr(cupy.cuda.Event, 'record'):
        monkeypatch.setattr(cupy.cuda.Event, 'record', lambda self, stream=None: None,
                            raising=False)
    for compute_stream in (None, cupy.cuda.Stream()):
        conv = ConcatWithAsyncTransfer(compute_stream=compute_stream)
        for _ in range(3):
            x, t = conv(_batch(), 0)
            assert backend.is_cupy_array(x) and backend.is_cupy_array(t)
            np.testing.assert_array_equal(backend.to_cpu(x), concat_examples(_batch())[0])
        x2, _ = conv([(np.zeros(5, np.float32), np.int32(0))], 0)  # new shape: new buffers
        assert x2.shape == (1, 5)
    c = convert.Conveyor(0, cupy.cuda.Stream())
    got = []
    for i in range(4):  # at most two transfers in flight: the two buffers
        c.put(np.full(2, i))
        if i % 2:
            got += [int(backend.to_cpu(c.get())[0]) for _ in range(2)]
    assert got == [0, 1, 2, 3]
