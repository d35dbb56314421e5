"""extensions.TensorBoardReport: LogReport's entries as TensorBoard scalars, read back with
TensorBoard's own event reader, including a run resumed from a snapshot."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from chainlet import serializers
from chainlet.training import extensions

pytest.importorskip('tensorboardX')


class Interrupt(Exception):
    pass


def read(path):
    """TensorBoard's own reader (the ``tensorboard`` package, not part of the extra)."""
    ea = pytest.importorskip('tensorboard.backend.event_processing.event_accumulator')
    acc = ea.EventAccumulator(str(path), size_guidance={ea.SCALARS: 0})
    acc.Reload()
    return acc


def series(acc, tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def test_every_log_entry_key_is_a_scalar_at_its_iteration(setup_factory, tmp_path):
    s = setup_factory(out=tmp_path / 'out', stop=(3, 'epoch'), n=40, batch_size=8)
    s.trainer.extend(extensions.LogReport())
    report = extensions.TensorBoardReport(log_dir=tmp_path / 'tb')
    s.trainer.extend(report)
    s.trainer.run()
    log = s.trainer.get_extension('LogReport').log
    assert [e['iteration'] for e in report.log] == [5, 10, 15]
    acc = read(tmp_path / 'tb')
    expected = set(log[0]) - {'iteration'}
    assert set(acc.Tags()['scalars']) == expected
    assert {'main/loss', 'main/accuracy', 'epoch', 'elapsed_time'} <= expected
    for key in ('main/loss', 'main/accuracy', 'epoch'):
        got = series(acc, key)
        assert [step for step, _ in got] == [5, 10, 15]
        np.testing.assert_allclose([v for _, v in got], [e[key] for e in log], rtol=1e-6)
    assert report.writer is None  # closed by finalize
    assert os.listdir(tmp_path / 'out') == ['log']  # LogReport's; the report writes no JSON


def test_keys_trigger_postprocess_and_default_folder(setup_factory, tmp_path):
    s = setup_factory(out=tmp_path / 'out', stop=(6, 'iteration'))

    def add_lr(entry):
        entry['lr'] = 0.5
        entry['note'] = 'not a number'

    s.trainer.extend(extensions.TensorBoardReport(keys=['main/loss'], trigger=(2, 'iteration'),
                                                  postprocess=add_lr, filename='tb_log'))
    s.trainer.run()
    acc = read(tmp_path / 'out')  # the trainer's out folder by default
    assert sorted(acc.Tags()['scalars']) == ['elapsed_time', 'epoch', 'lr', 'main/loss']
    assert [step for step, _ in series(acc, 'main/loss')] == [2, 4, 6]
    assert series(acc, 'lr') == [(2, 0.5), (4, 0.5), (6, 0.5)]
    assert (tmp_path / 'out' / 'tb_log').exists()  # the JSON log when a filename is given


def configure(s, interrupt_at=None):
    s.trainer.extend(extensions.TensorBoardReport(trigger=(2, 'iteration')))
    s.trainer.extend(extensions.snapshot(), trigger=(1, 'iteration'))

    def interrupt(trainer):
        if trainer.updater.iteration == interrupt_at:
            raise Interrupt()
    s.trainer.extend(interrupt, name='interrupt', priority=-200)
    return s


def test_resume_purges_points_written_after_the_snapshot(setup_factory, tmp_path):
    full = configure(setup_factory(out=tmp_path / 'full', stop=(10, 'iteration')))
    full.trainer.run()

    out = tmp_path / 'part'
    part = configure(setup_factory(out=out, stop=(10, 'iteration')), interrupt_at=7)
    with pytest.raises(Interrupt):
        part.trainer.run(show_loop_exception_msg=False)
    # pretend the crash lost the snapshots after iteration 5: 6 was logged, then lost
    resumed = configure(setup_factory(out=out, stop=(10, 'iteration')))
    serializers.load_npz(str(out / 'snapshot_iter_5'), resumed.trainer)
    resumed.trainer.run()

    got = series(read(out), 'main/loss')
    want = series(read(tmp_path / 'full'), 'main/loss')
    assert [step for step, _ in got] == [2, 4, 6, 8, 10]
    np.testing.assert_allclose([v for _, v in got], [v for _, v in want], rtol=1e-6)
    log = resumed.trainer.get_extension('TensorBoardReport').log
    assert [e['iteration'] for e in log] == [2, 4, 6, 8, 10]


def test_missing_tensorboardx_names_the_extra():
    code = ('import sys; sys.modules["tensorboardX"] = None\n'
            'from chainlet.training import extensions\n'
            'try:\n    extensions.TensorBoardReport()\n'
            'except ImportError as e:\n    print(e)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True).stdout
    assert 'pip install "chainlet-dl[tensorboard]"' in out
