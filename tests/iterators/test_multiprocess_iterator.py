"""MultiprocessIterator: same batches as SerialIterator, prefetching, resuming, clean shutdown."""
import gc
import multiprocessing
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

from chainlet.datasets import TransformDataset, TupleDataset
from chainlet.iterators import MultiprocessIterator, SerialIterator, ShuffleOrderSampler
from chainlet.iterators import TimeoutWarning

ROOT = pathlib.Path(__file__).resolve().parents[2]
# 'fork' from a process with threads is deprecated (and warns) on Python >= 3.12.
METHOD = 'forkserver' if 'forkserver' in multiprocessing.get_all_start_methods() else 'spawn'


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited but was not reaped yet: count it as gone.
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().split(')')[-1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def _wait_gone(pids, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.02)
    return [p for p in pids if _alive(p)]


def _dataset(n=11):
    return TupleDataset(np.arange(n * 2, dtype=np.float32).reshape(n, 2), np.arange(n))


def _same(a, b):
    return len(a) == len(b) and all(
        np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b))


def test_matches_serial_iterator_and_shuts_down():
    ds = _dataset()
    serial = SerialIterator(ds, 4, order_sampler=ShuffleOrderSampler(np.random.RandomState(0)))
    it = MultiprocessIterator(ds, 4, n_processes=2, n_prefetch=2, start_method=METHOD,
                              order_sampler=ShuffleOrderSampler(np.random.RandomState(0)))
    assert it._worker_pids() == []  # workers start lazily
    for _ in range(9):  # more than three epochs
        a, b = next(serial), next(it)
        assert _same(a, b)
        assert (it.epoch, it.is_new_epoch, it.current_position) == \
            (serial.epoch, serial.is_new_epoch, serial.current_position)
        assert it.epoch_detail == serial.epoch_detail
        assert it.previous_epoch_detail == serial.previous_epoch_detail
    pids = it._worker_pids()
    assert len(pids) == 2 and all(_alive(p) for p in pids)

    # resume mid-epoch through serialize (prefetched batches are dropped)
    saved = {}
    it.serialize(lambda key, value: saved.setdefault(key, value))
    expected = [next(serial) for _ in range(2)]  # the rest of epoch 3
    it2 = SerialIterator(ds, 4, shuffle=True)

    def load(key, value):
        if isinstance(value, np.ndarray):
            value[...] = saved[key]
            return value
        return saved[key]

    it2.serialize(load)  # a serial iterator resumes a multiprocess one's state, too
    assert all(_same(e, next(it2)) for e in expected)
    it.serialize(load)
    assert all(_same(e, next(it)) for e in expected)

    it.finalize()
    assert _wait_gone(pids) == []
    assert it._worker_pids() == []
    with pytest.raises(RuntimeError, match='finalized'):
        next(it)
    it.finalize()  # idempotent


def test_repeat_false_context_manager_and_reset():
    ds = _dataset(5)
    with MultiprocessIterator(ds, 2, repeat=False, shuffle=False, n_processes=2,
                              start_method=METHOD) as it:
        batches = list(it)
        assert [[int(t) for _, t in b] for b in batches] == [[0, 1], [2, 3], [4]]
        assert it.epoch == 1 and it.epoch_detail == 1.0
        with pytest.raises(StopIteration):
            next(it)
        it.reset()
        assert [int(t) for _, t in next(it)] == [0, 1]
        pids = it._worker_pids()
    assert _wait_gone(pids) == []


def _slow(x):
    time.sleep(0.3)
    return x


def _fail(x):
    raise IndexError(f'bad example {x}')


def test_timeout_warning_and_worker_errors(monkeypatch):
    # The workers unpickle _slow and _fail by importing this module; let them find it
    # whatever the current directory is.
    monkeypatch.syspath_prepend(str(ROOT))
    with MultiprocessIterator(TransformDataset([1, 2], _slow), 1, shuffle=False,
                              n_processes=1, dataset_timeout=0.05, start_method=METHOD) as it:
        with pytest.warns(TimeoutWarning, match='dataset_timeout'):
            assert next(it) == [1]
    with MultiprocessIterator(TransformDataset([1, 2], _fail), 1, n_processes=1,
                              start_method=METHOD) as it:
        with pytest.raises(IndexError, match='bad example'):
            next(it)


def test_garbage_collection_stops_workers():
    it = MultiprocessIterator(list(range(4)), 2, n_processes=2, start_method=METHOD)
    next(it)
    pids = it._worker_pids()
    del it
    gc.collect()
    assert _wait_gone(pids) == []


def _finishes(fn, seconds=20.0):
    """Run ``fn`` in a thread; True if it returned within ``seconds`` (a hang fails, not hangs)."""
    thread = threading.Thread(target=fn, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


@pytest.mark.parametrize('victim', ['idle', 'all'])
def test_finalize_after_a_worker_was_killed_does_not_hang(victim):
    # multiprocessing.Pool.terminate() waits for a queue lock that an idle worker holds while
    # it waits for a task: with that worker killed, finalize() used to wait forever.
    it = MultiprocessIterator(list(range(8)), 2, n_processes=2, start_method=METHOD)
    next(it)
    pids = it._worker_pids()
    time.sleep(0.3)  # the workers are idle again, one of them in the queue's get()
    for pid in (pids if victim == 'all' else pids[:1]):
        os.kill(pid, signal.SIGKILL)
    assert _finishes(it.finalize)
    assert _wait_gone(pids) == []


def test_a_killed_worker_is_an_error_not_a_hang():
    it = MultiprocessIterator(list(range(8)), 2, n_processes=2, start_method=METHOD,
                              dataset_timeout=None)
    next(it)
    pids = it._worker_pids()
    time.sleep(0.3)
    os.kill(pids[0], signal.SIGKILL)
    errors = []

    def drain():
        try:
            for _ in range(8):
                next(it)
        except RuntimeError as e:
            errors.append(e)

    assert _finishes(drain)
    assert len(errors) == 1 and 'died with exit code -9' in str(errors[0])
    assert _wait_gone(pids) == []


def test_maxtasksperchild_restarts_workers_and_keeps_the_order():
    ds = _dataset()
    serial = SerialIterator(ds, 4, shuffle=False)
    with MultiprocessIterator(ds, 4, shuffle=False, n_processes=2, n_prefetch=2,
                              maxtasksperchild=1, start_method=METHOD) as it:
        seen = set()
        for _ in range(7):
            assert _same(next(serial), next(it))
            seen.update(it._worker_pids())
        assert len(seen) > 2  # new workers took over
        old = [p for p in seen if p not in it._worker_pids()]
    assert _wait_gone(old + list(seen)) == []


def test_interpreter_exit_leaves_no_children(tmp_path):
    # A script that forgets finalize(): it must exit promptly and take its workers with it.
    script = tmp_path / 'leak.py'
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from chainlet.iterators import MultiprocessIterator
        if __name__ == '__main__':
            it = MultiprocessIterator(list(range(8)), 2, n_processes=2,
                                      start_method={METHOD!r})
            next(it)
            print(' '.join(str(p) for p in it._worker_pids()), flush=True)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=60, check=True)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2
    assert _wait_gone(pids) == []
    assert 'Traceback' not in out.stderr


KILL_METHODS = sorted({'fork', METHOD} & set(multiprocessing.get_all_start_methods()))


@pytest.mark.parametrize('method', KILL_METHODS)
def test_workers_of_a_sigkilled_process_exit(tmp_path, method):
    # A SIGKILLed main process runs no cleanup. Its forked workers used to inherit the main
    # process's end of their own pipe, so recv() never saw EOF and they waited forever.
    # Two iterators: the second one's workers inherit the first one's pipes as well.
    script = tmp_path / 'killed.py'
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from chainlet.iterators import MultiprocessIterator
        if __name__ == '__main__':
            its = [MultiprocessIterator(list(range(8)), 2, n_processes=2,
                                        start_method={method!r}) for _ in range(2)]
            for it in its:
                next(it)
            print(' '.join(str(p) for it in its for p in it._worker_pids()), flush=True)
            time.sleep(600)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
    finally:
        proc.kill()
        proc.wait(timeout=30)
        proc.stdout.close()
    assert len(pids) == 4
    left = _wait_gone(pids, timeout=10.0)
    for pid in left:  # do not leave them behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []


@pytest.mark.skipif(sys.version_info >= (3, 12) or 'fork' not in
                    multiprocessing.get_all_start_methods(), reason='fork warns on 3.12+')
def test_fork_accepts_unpicklable_dataset():
    ds = TransformDataset(list(range(6)), lambda x: x * 10)  # a lambda cannot be pickled
    with MultiprocessIterator(ds, 3, repeat=False, shuffle=False, n_processes=2,
                              start_method='fork') as it:
        assert list(it) == [[0, 10, 20], [30, 40, 50]]


@pytest.mark.parametrize('kwargs, error', [
    ({'n_processes': 0}, ValueError), ({'n_prefetch': 0}, ValueError),
    ({'dataset_timeout': 0}, ValueError), ({'start_method': 'teleport'}, ValueError),
    ({'shuffle': True, 'order_sampler': ShuffleOrderSampler()}, ValueError),
])
def test_argument_errors(kwargs, error):
    with pytest.raises(error, match='MultiprocessIterator'):
        MultiprocessIterator([1, 2], 1, **kwargs)


class _Unimportable:
    """A dataset whose unpickling in a worker fails, as for a class the workers cannot import."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i

    def __reduce__(self):
        return (__import__, ('no_such_module_for_chainlet_workers',))


@pytest.mark.skipif(METHOD == 'fork', reason='needs a start method that pickles the dataset')
def test_dead_worker_raises_instead_of_hanging():
    it = MultiprocessIterator(_Unimportable(), 2, n_processes=1, start_method=METHOD,
                              dataset_timeout=None)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match='died with exit code'):
        next(it)
    assert time.monotonic() - start < 20
    assert it._worker_pids() == []  # finalized


# -- errors raised by the dataset: never a hang, always the failing index --

FAILING_SCRIPT = textwrap.dedent('''
    import sys, traceback
    from chainlet.iterators import MultiprocessIterator
    import failing_datasets as fd

    def main():
        dataset = getattr(fd, sys.argv[1])()
        it = MultiprocessIterator(dataset, 2, repeat=False, shuffle=False, n_processes=2,
                                  dataset_timeout=None, start_method=sys.argv[2])
        batches = []
        try:
            for batch in it:
                batches.append(batch)
        except Exception as e:
            print('BATCHES', batches)
            print('TYPE', type(e).__name__)
            print(''.join(traceback.format_exception(e)))
            print('NOTES', getattr(e, '__notes__', []))  # Python 3.10 does not print notes
        finally:
            it.finalize()

    if __name__ == '__main__':  # forkserver and spawn re-import the main module
        main()
''')


def _run_failing(tmp_path, dataset):
    # In a child process: before the fix the main process hangs forever, here bounded.
    script = tmp_path / 'failing_iterator.py'
    script.write_text(FAILING_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / 'tests' / 'iterators'),
                                                       str(ROOT)]))
    try:
        proc = subprocess.run([sys.executable, str(script), dataset, METHOD], env=env,
                              capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail(f'MultiprocessIterator hung on {dataset}')
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_unpicklable_dataset_exception_does_not_hang(tmp_path):
    out = _run_failing(tmp_path, 'RaisesTwoArgError')
    assert 'BATCHES [[0, 1]]' in out
    assert 'TYPE RuntimeError' in out
    assert 'dataset[3] raised failing_datasets.TwoArgError: GetObject failed: NoSuchKey' in out
    assert 'raise TwoArgError' in out  # the worker's traceback comes along


def test_picklable_dataset_exception_keeps_its_type_and_names_the_index(tmp_path):
    out = _run_failing(tmp_path, 'RaisesValueError')
    assert 'TYPE ValueError' in out and 'bad example' in out
    assert 'dataset[4]' in out and "raise ValueError('bad example')" in out


def test_examples_that_cannot_travel_name_the_index(tmp_path):
    out = _run_failing(tmp_path, 'ReturnsBadExamples')
    assert 'BATCHES [[0, 1]]' in out and 'TYPE RuntimeError' in out
    assert 'dataset[2] was loaded by a worker but cannot be unpickled' in out
    assert 'cannot rebuild this example' in out


def test_unpicklable_example_names_the_index(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / 'tests' / 'iterators'))
    import failing_datasets as fd
    from chainlet.datasets import SubDataset

    dataset = SubDataset(fd.ReturnsBadExamples(), 4, 6)  # examples 4 and 5 (a lambda)
    with MultiprocessIterator(dataset, 2, repeat=False, shuffle=False, n_processes=1,
                              start_method=METHOD) as it:
        with pytest.raises(RuntimeError, match=r'dataset\[1\] cannot be sent.*cannot be pickled'):
            next(it)


def test_serial_and_thread_iterators_name_the_index():
    from chainlet.iterators import MultithreadIterator

    class Failing:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise KeyError('missing')
            return i

    for it in (SerialIterator(Failing(), 2, repeat=False, shuffle=False),
               MultithreadIterator(Failing(), 2, repeat=False, shuffle=False, n_threads=2)):
        assert next(it) == [0, 1]
        with pytest.raises(KeyError) as info:
            next(it)
        assert any('dataset[2]' in note for note in info.value.__notes__)
        it.finalize()
