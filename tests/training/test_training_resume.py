"""Resuming from snapshots, autoload, n_retains, and runs killed in the middle of a save."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from chainlet import serializers, training
from chainlet.training import extensions


class Interrupt(Exception):
    pass


def configure(s, snapshot_kwargs=None):
    """The same extensions for the uninterrupted, interrupted and resumed runs."""
    s.trainer.extend(extensions.LogReport(trigger=(1, 'epoch'), filename='log'))
    s.trainer.extend(extensions.ExponentialShift('alpha', 0.5), trigger=(1, 'epoch'))
    s.trainer.extend(extensions.observe_value('alpha', lambda tr: tr.updater.get_optimizer(
        'main').alpha), trigger=(1, 'iteration'))
    s.trainer.extend(extensions.snapshot(**(snapshot_kwargs or {})), trigger=(1, 'iteration'))
    return s


def interrupt_at(iteration):
    def ext(trainer):
        if trainer.updater.iteration == iteration:
            raise Interrupt()
    return ext


def state_of(s):
    params = {name: p.array.copy() for name, p in s.model.namedparams()}
    rules = {name: {k: np.array(v) for k, v in p.update_rule.state.items()}
             for name, p in s.model.namedparams()}
    log = [{k: v for k, v in e.items() if k != 'elapsed_time'}
           for e in s.trainer.get_extension('LogReport').log]
    return params, rules, log


# 36 examples, batch 8: batches cross epoch boundaries; 4.5 iterations per epoch.
RUN = dict(n=36, batch_size=8, stop=(4, 'epoch'), shuffle=True)


@pytest.mark.parametrize('stop_at', [7, 9])  # mid-epoch, and right at an epoch boundary
def test_resumed_run_equals_uninterrupted_run(setup_factory, tmp_path, stop_at):
    full = configure(setup_factory(out=tmp_path / 'full', **RUN))
    full.trainer.run()
    assert full.updater.iteration == 18

    part = configure(setup_factory(out=tmp_path / 'part', **RUN))
    part.trainer.extend(interrupt_at(stop_at), name='interrupt', priority=-200)
    with pytest.raises(Interrupt):
        part.trainer.run(show_loop_exception_msg=False)

    resumed = configure(setup_factory(out=tmp_path / 'part', **RUN))
    # Same extensions as the interrupted trainer (its snapshot has the interrupt's trigger).
    resumed.trainer.extend(interrupt_at(-1), name='interrupt', priority=-200)
    serializers.load_npz(str(tmp_path / 'part' / f'snapshot_iter_{stop_at}'), resumed.trainer)
    assert resumed.updater.iteration == stop_at
    assert resumed.updater.epoch_detail == part.updater.epoch_detail
    resumed.trainer.run()
    assert resumed.updater.iteration == 18

    p_full, r_full, log_full = state_of(full)
    p_res, r_res, log_res = state_of(resumed)
    for name in p_full:
        np.testing.assert_array_equal(p_res[name], p_full[name])
        for key in r_full[name]:
            np.testing.assert_array_equal(r_res[name][key], r_full[name][key])
    assert resumed.optimizer.t == full.optimizer.t == 18
    assert resumed.optimizer.epoch == full.optimizer.epoch
    assert resumed.optimizer.alpha == full.optimizer.alpha == 0.01 * 0.5 ** 4
    assert log_res == log_full
    with open(tmp_path / 'part' / 'log') as f:
        assert [e['iteration'] for e in json.load(f)] == [5, 9, 14, 18]
    assert resumed.trainer.elapsed_time >= part.trainer._snapshot_elapsed_time


def test_autoload_and_n_retains(setup_factory, tmp_path):
    out = tmp_path / 'auto'
    first = configure(setup_factory(out=out, **RUN), dict(n_retains=2, autoload=True))
    first.trainer.extend(interrupt_at(6), name='interrupt', priority=-200)
    with pytest.raises(Interrupt):
        first.trainer.run(show_loop_exception_msg=False)
    assert sorted(os.listdir(out)) == ['log', 'snapshot_iter_5', 'snapshot_iter_6']

    second = configure(setup_factory(out=out, **RUN), dict(n_retains=2, autoload=True))
    second.trainer.extend(interrupt_at(-1), name='interrupt', priority=-200)
    second.trainer.stop_trigger = training.get_trigger((8, 'iteration'))
    second.trainer.run()  # autoload picks snapshot_iter_6 and goes on
    assert second.updater.iteration == 8
    assert sorted(os.listdir(out)) == ['log', 'snapshot_iter_7', 'snapshot_iter_8']


def test_snapshot_object_filename_and_condition(setup_factory, tmp_path):
    s = setup_factory(out=tmp_path / 'obj', stop=(4, 'iteration'))
    s.trainer.extend(extensions.snapshot_object(s.model, 'model_{.updater.iteration}.npz'),
                     trigger=(1, 'iteration'))
    s.trainer.extend(extensions.snapshot(filename=lambda tr: f'even_{tr.updater.iteration}',
                                         condition=lambda: s.updater.iteration % 2 == 0),
                     trigger=(1, 'iteration'))
    s.trainer.run()
    files = sorted(os.listdir(tmp_path / 'obj'))
    assert files == ['even_2', 'even_4'] + [f'model_{i}.npz' for i in range(1, 5)]
    fresh = type(s.model)(type(s.model.predictor)(4, 3))
    serializers.load_npz(str(tmp_path / 'obj' / 'model_4.npz'), fresh)
    np.testing.assert_array_equal(fresh.predictor.W.array, s.model.predictor.W.array)
    with pytest.raises(TypeError, match='savefun or writer'):
        extensions.snapshot(savefun=serializers.save_npz,
                            writer=extensions.snapshot_writers.SimpleWriter())


def test_snapshot_on_error(setup_factory, tmp_path):
    s = setup_factory(out=tmp_path / 'err', stop=(10, 'iteration'))
    s.trainer.extend(extensions.snapshot(filename='crash_{.updater.iteration}',
                                         snapshot_on_error=True), trigger=(100, 'iteration'))
    s.trainer.extend(interrupt_at(3), name='interrupt')
    with pytest.raises(Interrupt):
        s.trainer.run(show_loop_exception_msg=False)
    assert os.listdir(tmp_path / 'err') == ['crash_3']


KILLED_SCRIPT = textwrap.dedent('''
    import os, sys
    import numpy as np
    import chainlet.links as L
    from chainlet import iterators, optimizers, serializers, training
    from chainlet.training import extensions

    out, mode = sys.argv[1], sys.argv[2]
    rng = np.random.RandomState(0)
    x = rng.rand(32, 4).astype(np.float32)
    t = (x.sum(axis=1) > 2).astype(np.int32)
    model = L.Classifier(L.Linear(4, 3))
    optimizer = optimizers.Adam().setup(model)
    it = iterators.SerialIterator(list(zip(x, t)), 8)
    trainer = training.Trainer(training.StandardUpdater(it, optimizer), (10, 'iteration'),
                               out=out)

    def savefun(path, target):
        if mode == 'snapshot' and trainer.updater.iteration == 3:
            with open(path, 'wb') as f:      # half a file, then the process dies
                f.write(b'PK\\x03\\x04 partial')
                f.flush()
                os._exit(3)
        serializers.save_npz(path, target)

    if mode == 'log':
        real_replace = os.replace
        def replace(src, dst):
            if os.path.basename(dst) == 'log' and trainer.updater.iteration == 3:
                os._exit(3)                  # the new log is written but never renamed
            return real_replace(src, dst)
        os.replace = replace

    trainer.extend(extensions.LogReport(trigger=(1, 'iteration')))
    trainer.extend(extensions.snapshot(savefun=savefun, filename='snapshot_{.updater.iteration}'),
                   trigger=(1, 'iteration'))
    trainer.run()
''')


@pytest.mark.parametrize('mode', ['snapshot', 'log'])
def test_killed_during_save_leaves_previous_files_readable(tmp_path, setup_factory, mode):
    script = tmp_path / 'killed.py'
    script.write_text(KILLED_SCRIPT)
    out = tmp_path / 'killed'
    proc = subprocess.run([sys.executable, str(script), str(out), mode], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    names = os.listdir(out)
    visible = sorted(n for n in names if not n.startswith('.'))
    assert visible == ['log', 'snapshot_1', 'snapshot_2']
    with open(out / 'log') as f:
        log = json.load(f)
    # The log is complete: iteration 3's entry made it only when the kill hit the snapshot.
    expected = [1, 2, 3] if mode == 'snapshot' else [1, 2]
    assert [e['iteration'] for e in log] == expected
    # The previous snapshot loads into a fresh trainer, and autoload ignores the debris.
    s = setup_factory(out=out, n=32, batch_size=8, stop=(3, 'iteration'))
    s.model.predictor.W.array[...] = 0
    serializers.load_npz(str(out / 'snapshot_2'), s.trainer, strict=False)
    assert s.updater.iteration == 2
    assert np.abs(s.model.predictor.W.array).sum() > 0
    assert extensions._snapshot.find_latest_snapshot('snapshot_{.updater.iteration}',
                                                     str(out)) == 'snapshot_2'


@pytest.mark.parametrize('writer_class', ['ThreadWriter', 'ProcessWriter', 'ThreadQueueWriter',
                                          'ProcessQueueWriter'])
def test_background_writers_save_the_state_at_the_snapshot(setup_factory, tmp_path,
                                                           writer_class):
    from chainlet.training.extensions import snapshot_writers
    s = setup_factory(out=tmp_path / 'bg', stop=(6, 'iteration'))
    writer = getattr(snapshot_writers, writer_class)()
    s.trainer.extend(extensions.snapshot(writer=writer, n_retains=2), trigger=(2, 'iteration'))
    weights = {}
    s.trainer.extend(lambda tr: weights.__setitem__(tr.updater.iteration,
                                                    s.model.predictor.W.array.copy()),
                     name='record', priority=500)
    s.trainer.run()  # finalize waits for the writes
    names = sorted(n for n in os.listdir(s.trainer.out) if n.startswith('snapshot_iter_'))
    assert names == ['snapshot_iter_4', 'snapshot_iter_6']  # n_retains=2 removed iteration 2
    for name in names:
        it = int(name.rsplit('_', 1)[1])
        with np.load(os.path.join(s.trainer.out, name)) as f:
            assert int(f['updater/iteration']) == it
            np.testing.assert_array_equal(f['updater/model:main/predictor/W'], weights[it])
