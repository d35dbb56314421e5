from __future__ import annotations

import os

import numpy as np
import pytest

from chainlet import training
from chainlet.training import extensions, triggers


def recorder(log, tag):
    def ext(trainer):
        log.append((tag, trainer.updater.iteration))
    return ext


def test_extension_trigger_timing(setup_factory):
    s = setup_factory(stop=(3, 'epoch'))  # 5 iterations per epoch, 15 in all
    calls = []
    s.trainer.extend(recorder(calls, 'every2'), name='every2', trigger=(2, 'iteration'))
    s.trainer.extend(recorder(calls, 'epoch'), name='epoch', trigger=(1, 'epoch'))
    s.trainer.extend(recorder(calls, 'manual'), name='manual',
                     trigger=triggers.ManualScheduleTrigger([3, 11], 'iteration'))
    s.trainer.extend(recorder(calls, 'half'), name='half', trigger=(0.5, 'epoch'))
    s.trainer.run()
    by_tag = {}
    for tag, it in calls:
        by_tag.setdefault(tag, []).append(it)
    assert by_tag['every2'] == [2, 4, 6, 8, 10, 12, 14]
    assert by_tag['epoch'] == [5, 10, 15]
    assert by_tag['manual'] == [3, 11]
    # 0.5 epoch = 2.5 iterations: crossed at 3 (0.6), 5 (1.0), 8 (1.6), 10, 13, 15
    assert by_tag['half'] == [3, 5, 8, 10, 13, 15]
    assert s.updater.iteration == 15 and s.updater.epoch == 3


def test_priorities_order_and_ties(setup_factory):
    s = setup_factory(stop=(1, 'iteration'))
    order = []
    s.trainer.extend(lambda tr: order.append('reader1'), name='reader1')
    s.trainer.extend(lambda tr: order.append('writer'), name='writer',
                     priority=training.PRIORITY_WRITER)
    s.trainer.extend(lambda tr: order.append('reader2'), name='reader2')
    s.trainer.extend(lambda tr: order.append('editor'), name='editor',
                     priority=training.PRIORITY_EDITOR)
    s.trainer.extend(lambda tr: order.append('late'), name='late', priority=-100)
    s.trainer.run()
    assert order == ['writer', 'editor', 'reader1', 'reader2', 'late']


def test_observation_has_main_loss_and_child_observers(setup_factory):
    s = setup_factory(stop=(2, 'iteration'))
    seen = []
    s.trainer.extend(lambda tr: seen.append(dict(tr.observation)), name='see')
    s.trainer.run()
    assert len(seen) == 2
    assert {'main/loss', 'main/accuracy'} <= set(seen[0])
    assert s.trainer.reporter._observer_names[id(s.model.predictor)] == 'main/predictor'
    assert seen[0] is not seen[1]


def test_extend_names_and_errors(setup_factory):
    s = setup_factory()
    trainer = s.trainer
    log1, log2 = extensions.LogReport(), extensions.LogReport()
    trainer.extend(log1)
    trainer.extend(log2)
    assert log1.name == 'LogReport' and log2.name == 'LogReport_1'
    assert trainer.get_extension('LogReport_1') is log2

    def my_ext(trainer):
        pass
    trainer.extend(my_ext)
    assert trainer.get_extension('my_ext') is my_ext
    with pytest.raises(ValueError, match='training'):
        trainer.extend(lambda tr: None, name='training')
    with pytest.raises(ValueError, match='nope'):
        trainer.get_extension('nope')
    with pytest.raises(TypeError, match='invoke_before_training'):
        trainer.extend(lambda tr: None, name='x', invoke_before_training=True)
    with pytest.raises(TypeError, match='callable'):
        trainer.extend(3, name='x')


def test_lifecycle_initialize_before_training_finalize(setup_factory):
    s = setup_factory(stop=(2, 'iteration'))
    events = []

    class Ext(training.Extension):
        def initialize(self, trainer):
            events.append(('init', trainer.updater.iteration))

        def __call__(self, trainer):
            events.append(('call', trainer.updater.iteration))

        def finalize(self):
            events.append(('finalize', None))

    s.trainer.extend(Ext(), call_before_training=True)
    with pytest.raises(RuntimeError, match='elapsed_time'):
        s.trainer.elapsed_time
    s.trainer.run()
    assert events == [('init', 0), ('call', 0), ('call', 1), ('call', 2), ('finalize', None)]
    elapsed = s.trainer.elapsed_time
    assert elapsed > 0 and s.trainer.elapsed_time == elapsed  # frozen after the run
    with pytest.raises(RuntimeError, match='twice'):
        s.trainer.run()
    assert os.path.isdir(s.trainer.out)


def test_on_error_and_finalize_run_when_the_loop_raises(setup_factory, capsys):
    s = setup_factory(stop=(10, 'iteration'))
    events = []

    def boom(trainer):
        if trainer.updater.iteration == 3:
            raise ValueError('boom at 3')

    @training.make_extension(finalizer=lambda: events.append('finalize'),
                             on_error=lambda tr, e, tb: events.append(('error', str(e))))
    def watcher(trainer):
        pass

    s.trainer.extend(boom, name='boom')
    s.trainer.extend(watcher)
    with pytest.raises(ValueError, match='boom at 3'):
        s.trainer.run()
    assert events == [('error', 'boom at 3'), 'finalize']
    assert 'Exception in main training loop: boom at 3' in capsys.readouterr().err


def test_make_extension_defaults():
    @training.make_extension()
    def ext(trainer):
        pass
    assert ext.trigger == (1, 'iteration')
    assert ext.priority == training.PRIORITY_READER
    assert ext.default_name == 'ext'
    assert ext.finalize is None and ext.initialize is None


def test_stop_trigger_none_ends_by_exhausted_iterator(setup_factory, data_factory):
    from chainlet import iterators
    s = setup_factory()
    it = iterators.SerialIterator(data_factory(16), 8, repeat=False, shuffle=False)
    updater = training.StandardUpdater(it, s.optimizer)
    trainer = training.Trainer(updater, out=s.trainer.out)
    with pytest.raises(StopIteration):
        trainer.run(show_loop_exception_msg=False)
    assert updater.iteration == 2


def test_losses_decrease_with_trainer(setup_factory):
    s = setup_factory(stop=(20, 'epoch'))
    log = extensions.LogReport(log_name=None)
    s.trainer.extend(log)
    s.trainer.run()
    losses = [entry['main/loss'] for entry in log.log]
    assert len(losses) == 20
    assert losses[-1] < 0.7 * losses[0]
    assert np.isfinite(losses).all()
