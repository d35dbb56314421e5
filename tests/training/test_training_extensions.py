from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest

import chainlet
from chainlet import iterators, training
from chainlet.training import extensions


class ModeProbe(chainlet.Chain):
    """Wraps a classifier and records config.train / enable_backprop and graph building."""

    def __init__(self, inner):
        super().__init__()
        with self.init_scope():
            self.inner = inner
        self.seen = []

    def forward(self, x, t):
        loss = self.inner(x, t)
        self.seen.append((chainlet.config.train, chainlet.config.enable_backprop,
                          loss.creator is not None))
        chainlet.reporter.report({'loss': loss}, self)
        return loss


def test_evaluator_runs_in_test_mode_without_graph(setup_factory, data_factory):
    s = setup_factory(stop=(2, 'epoch'))
    probe = ModeProbe(s.model)
    val = iterators.SerialIterator(data_factory(12, seed=1), 5, repeat=False, shuffle=False)
    hooks = []
    evaluator = extensions.Evaluator(val, probe, eval_hook=hooks.append)
    s.trainer.extend(evaluator)
    seen = []
    s.trainer.extend(lambda tr: seen.append(dict(tr.observation)), name='see',
                     trigger=(1, 'epoch'))
    s.trainer.run()
    assert evaluator.name == 'validation'
    assert probe.seen == [(False, False, False)] * 6  # 3 batches x 2 epochs
    assert hooks == [evaluator, evaluator]
    assert {'validation/main/loss', 'validation/main/inner/accuracy'} <= set(seen[0])
    # The mean is over batches (5, 5, 2 examples): compare with a direct computation.
    with chainlet.using_config('train', False), chainlet.no_backprop_mode():
        batches = [data_factory(12, seed=1)[i:i + 5] for i in (0, 5, 10)]
        losses = [float(s.model(*chainlet.dataset.concat_examples(b)).array) for b in batches]
    assert seen[-1]['validation/main/loss'] == pytest.approx(np.mean(losses), rel=1e-6)
    assert chainlet.config.train is True  # restored


def test_evaluator_standalone_and_errors(data_factory, model_factory):
    model = model_factory(0)
    it = iterators.SerialIterator(data_factory(10), 4, repeat=False, shuffle=False)
    first = extensions.Evaluator(it, model)()
    second = extensions.Evaluator(it, model)()  # the iterator is reset each time
    assert first == second and set(first) == {'main/loss', 'main/accuracy'}
    with pytest.warns(UserWarning, match='repeat'):
        extensions.Evaluator(iterators.SerialIterator(data_factory(10), 4), model)
    with pytest.raises(TypeError, match='Link'):
        extensions.Evaluator(it, lambda x: x)


def test_log_report_content_and_atomic_file(setup_factory):
    s = setup_factory(stop=(3, 'epoch'))  # 5 iterations per epoch
    log = extensions.LogReport(keys=['main/loss'], trigger=(2, 'iteration'),
                               postprocess=lambda e: e.update(extra=1.5))
    s.trainer.extend(log)
    losses = []
    s.trainer.extend(lambda tr: losses.append(float(tr.observation['main/loss'].array)),
                     name='losses', priority=training.PRIORITY_WRITER)
    s.trainer.run()
    assert [e['iteration'] for e in log.log] == [2, 4, 6, 8, 10, 12, 14]
    assert [e['epoch'] for e in log.log] == [0, 0, 1, 1, 2, 2, 2]
    for k, entry in enumerate(log.log):
        assert set(entry) == {'main/loss', 'epoch', 'iteration', 'elapsed_time', 'extra'}
        assert entry['main/loss'] == pytest.approx(np.mean(losses[2 * k:2 * k + 2]), rel=1e-6)
    elapsed = [e['elapsed_time'] for e in log.log]
    assert elapsed == sorted(elapsed)
    with open(os.path.join(s.trainer.out, 'log')) as f:
        assert json.load(f) == log.log
    assert os.listdir(s.trainer.out) == ['log']  # no temporary file left behind


def test_log_report_templated_filename_and_no_file(setup_factory):
    s = setup_factory(stop=(2, 'epoch'))
    s.trainer.extend(extensions.LogReport(filename='log_{epoch}.json'))
    s.trainer.extend(extensions.LogReport(log_name=None))
    s.trainer.run()
    assert sorted(os.listdir(s.trainer.out)) == ['log_1.json', 'log_2.json']


def test_log_report_filename_none_follows_log_name(setup_factory):
    # Chainer 7.8.1's resolution: ``filename=None`` falls back to ``log_name`` ('log' by
    # default), so only ``log_name=None`` leaves the log in memory.
    s = setup_factory(stop=(1, 'epoch'))
    s.trainer.extend(extensions.LogReport(filename=None), name='default')
    s.trainer.extend(extensions.LogReport(log_name='old_{epoch}'), name='old_name')
    s.trainer.extend(extensions.LogReport(filename='new', log_name='ignored'), name='both')
    s.trainer.run()
    assert sorted(os.listdir(s.trainer.out)) == ['log', 'new', 'old_1']
    with pytest.raises(TypeError, match='unexpected'):
        extensions.LogReport(logname='x')


def test_print_report_table(setup_factory):
    s = setup_factory(stop=(2, 'epoch'))
    out = io.StringIO()
    s.trainer.extend(extensions.LogReport())
    s.trainer.extend(extensions.PrintReport(['epoch', 'iteration', 'main/loss', 'nothing'],
                                            out=out))
    s.trainer.run()
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['epoch', 'iteration', 'main/loss', 'nothing']
    assert len(lines) == 3
    assert lines[1].split()[:2] == ['1', '5'] and lines[2].split()[:2] == ['2', '10']
    log = s.trainer.get_extension('LogReport').log
    assert float(lines[2].split()[2]) == pytest.approx(log[1]['main/loss'], rel=1e-5)
    assert '\033' not in out.getvalue()  # no terminal codes in a non-terminal stream
    with pytest.raises(TypeError, match='list'):
        extensions.PrintReport('epoch')


def test_print_report_with_own_log_report(setup_factory):
    s = setup_factory(stop=(2, 'epoch'))
    out = io.StringIO()
    log = extensions.LogReport(log_name=None)
    s.trainer.extend(extensions.PrintReport(['epoch'], log_report=log, out=out))
    s.trainer.run()
    assert out.getvalue().split() == ['epoch', '1', '2']


def test_progress_bar_plain_lines(setup_factory):
    s = setup_factory(stop=(3, 'epoch'))  # 15 iterations
    out = io.StringIO()
    s.trainer.extend(extensions.ProgressBar(update_interval=4, out=out))
    s.trainer.run()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith('iteration 4, epoch 0.80/3 (26.7%), elapsed ')
    assert lines[2].startswith('iteration 12, epoch 2.40/3 (80.0%)')
    assert all('ETA' in line and 'iters/sec' in line for line in lines)


def test_progress_bar_iteration_length_and_tqdm(setup_factory):
    s = setup_factory(stop=(6, 'iteration'))
    out = io.StringIO()
    s.trainer.extend(extensions.ProgressBar(update_interval=3, out=out))
    s.trainer.run()
    assert out.getvalue().splitlines()[1].startswith('iteration 6/6 (100.0%), epoch 1.20')

    tqdm = pytest.importorskip('tqdm')

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    s = setup_factory(stop=(6, 'iteration'))
    term = Terminal()
    bar = extensions.ProgressBar(update_interval=3, out=term)
    s.trainer.extend(bar)
    s.trainer.run()
    assert bar._bar is None  # closed by finalize
    text = term.getvalue()
    assert '6/6' in text and 'iter 6' in text and tqdm is not None


def test_plot_report_writes_png(setup_factory):
    pytest.importorskip('matplotlib')
    s = setup_factory(stop=(2, 'epoch'))
    plot = extensions.PlotReport(['main/loss', 'missing'], 'epoch', filename='loss.png')
    s.trainer.extend(plot)
    s.trainer.run()
    path = os.path.join(s.trainer.out, 'loss.png')
    with open(path, 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'
    assert [x for x, _ in plot._data['main/loss']] == [1, 2]
    assert plot._data['missing'] == []
    assert os.listdir(s.trainer.out) == ['loss.png']
    assert extensions.PlotReport.available()


def test_plot_report_without_matplotlib_warns(monkeypatch):
    from chainlet.training.extensions import plot_report
    monkeypatch.setattr(plot_report, '_matplotlib_available', lambda: False)
    with pytest.warns(UserWarning, match=r'pip install "chainlet-dl\[plot\]"'):
        ext = extensions.PlotReport('main/loss')
    assert not ext.available()


def run_schedule(setup_factory, ext, iterations, attr='lr'):
    s = setup_factory(stop=(iterations, 'iteration'), optimizer='sgd')
    values = []
    s.trainer.extend(ext)
    s.trainer.extend(lambda tr: values.append(getattr(s.optimizer, attr)), name='watch',
                     priority=-10)
    s.trainer.run()
    return values


def test_exponential_shift_schedule(setup_factory):
    values = run_schedule(setup_factory, extensions.ExponentialShift('lr', 0.5, init=0.8,
                                                                     target=0.1), 5)
    assert values == pytest.approx([0.4, 0.2, 0.1, 0.1, 0.1])
    grow = run_schedule(setup_factory, extensions.ExponentialShift('lr', 2.0, target=0.5), 3)
    assert grow == pytest.approx([0.2, 0.4, 0.5])  # init taken from the optimizer (0.1)
    with pytest.raises(ValueError, match='rate'):
        extensions.ExponentialShift('lr', -1)


def test_linear_step_and_warmup_shift_schedules(setup_factory):
    linear = run_schedule(setup_factory, extensions.LinearShift('lr', (0.1, 0.5), (1, 5)), 6)
    assert linear == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.5])
    step = run_schedule(setup_factory, extensions.StepShift('lr', 0.1, 2), 5)
    assert step == pytest.approx([0.1, 0.01, 0.01, 0.001, 0.001])
    warm = run_schedule(setup_factory, extensions.WarmupShift('lr', 0.0, 4, init=0.2), 6)
    assert warm == pytest.approx([0.05, 0.1, 0.15, 0.2, 0.2, 0.2])


def test_shift_sets_initial_value_and_resumes(setup_factory):
    s = setup_factory(stop=(3, 'iteration'), optimizer='sgd')
    shift = extensions.WarmupShift('lr', 0.01, 10, init=0.11)
    s.trainer.extend(shift)
    first = []
    s.trainer.extend(lambda tr: first.append(s.optimizer.lr), name='first',
                     priority=400, call_before_training=True)
    s.trainer.run()
    assert first[0] == pytest.approx(0.01)  # set by initialize, before the first update
    saved = chainlet.serializers.DictionarySerializer()
    shift.serialize(saved)
    resumed = extensions.WarmupShift('lr', 0.01, 10, init=0.11)
    resumed.serialize(chainlet.serializers.NpzDeserializer(saved.target))
    s2 = setup_factory(stop=(1, 'iteration'), optimizer='sgd')
    s2.trainer.extend(resumed)
    s2.trainer.run()
    assert resumed._t == 4 and s2.optimizer.lr == pytest.approx(0.05)


def test_observe_lr_and_observe_value(setup_factory):
    s = setup_factory(stop=(2, 'epoch'), optimizer='sgd')
    log = extensions.LogReport(log_name=None)
    s.trainer.extend(extensions.observe_lr(), trigger=(1, 'iteration'))
    s.trainer.extend(extensions.observe_value('it', lambda tr: tr.updater.iteration))
    s.trainer.extend(log)
    s.trainer.run()
    assert [e['lr'] for e in log.log] == [0.1, 0.1]
    assert [e['it'] for e in log.log] == [5, 10]  # default trigger: once per epoch


def test_fail_on_nonnumber(setup_factory):
    s = setup_factory(stop=(5, 'iteration'))

    def poison(trainer):
        if trainer.updater.iteration == 2:
            s.model.predictor.b.array[0] = np.nan
    s.trainer.extend(poison, name='poison', priority=400)
    s.trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match=r"'/predictor/b'.*'main'.*iteration 2"):
        s.trainer.run(show_loop_exception_msg=False)


def test_dump_graph(setup_factory):
    s = setup_factory(stop=(3, 'iteration'))
    s.trainer.extend(extensions.dump_graph('main/loss', filename='graph.dot'))
    s.trainer.run()
    with open(os.path.join(s.trainer.out, 'graph.dot')) as f:
        text = f.read()
    assert text.startswith('digraph') and '->' in text
    assert chainlet.config.keep_graph_on_report is False  # restored


def test_micro_average(setup_factory):
    s = setup_factory(stop=(2, 'epoch'))
    counts = iter([(3, 8), (8, 8), (1, 4), (0, 8), (2, 4)] * 2)

    def report_counts(trainer):
        correct, total = next(counts)
        trainer.observation.update(correct=correct, total=total)
    s.trainer.extend(report_counts, name='counts', priority=400)
    s.trainer.extend(extensions.MicroAverage('correct', 'total', 'micro'))
    log = extensions.LogReport(log_name=None)
    s.trainer.extend(log)
    s.trainer.run()
    assert [e['micro'] for e in log.log] == [pytest.approx(14 / 32)] * 2


def test_inverse_polynomial_multistep_shift_schedules(setup_factory):
    inverse = run_schedule(setup_factory, extensions.InverseShift('lr', 1.0, 1.0, init=0.6), 3)
    assert inverse == pytest.approx([0.3, 0.2, 0.15])
    poly = run_schedule(setup_factory, extensions.PolynomialShift('lr', 1.0, 4), 5)
    assert poly == pytest.approx([0.075, 0.05, 0.025, 0.0, 0.0])  # from the optimizer's 0.1
    poly_floor = run_schedule(setup_factory,
                              extensions.PolynomialShift('lr', 1.0, 4, target=0.04), 4)
    assert poly_floor == pytest.approx([0.075, 0.05, 0.04, 0.04])
    multi = run_schedule(setup_factory, extensions.MultistepShift('lr', 0.5, [2, 3]), 4)
    assert multi == pytest.approx([0.1, 0.05, 0.025, 0.025])


def _screen(text):
    """What a terminal shows for ``text``: ``\\r`` returns to column 0, ``ESC[K``/``ESC[J``
    erase to the end of the line/screen, ``ESC[nA`` moves up, printed characters overwrite."""
    import re
    rows, r, c = [[]], 0, 0
    for tok in re.findall(r'\x1b\[\d*[A-Za-z]|\r|\n|[^\x1b\r\n]', text):
        while len(rows) <= r:
            rows.append([])
        if tok == '\n':
            r, c = r + 1, 0
        elif tok == '\r':
            c = 0
        elif tok.startswith('\x1b'):
            if tok[-1] == 'A':
                r = max(r - int(tok[2:-1] or 1), 0)
            elif tok[-1] in 'KJ':
                del rows[r][c:]
                if tok[-1] == 'J':
                    del rows[r + 1:]
        else:
            row = rows[r]
            row.extend(' ' * (c - len(row)))
            row[c:c + 1] = [tok]
            c += 1
    return [''.join(row).rstrip() for row in rows if ''.join(row).strip()]


def test_progress_bar_with_print_report_in_a_terminal():
    # Issue 13, item 9: in a terminal the table rows were glued to the tqdm bar, the epoch
    # counter printed as 0.7111111111111111/3, and the bar stayed at its last update (95%).
    pytest.importorskip('tqdm')

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    rng = np.random.RandomState(0)
    x = rng.rand(90, 4).astype(np.float32)
    train = chainlet.datasets.TupleDataset(x, (x.sum(1) > 2).astype(np.int32))
    model = chainlet.links.Classifier(chainlet.links.Linear(4, 2))
    optimizer = chainlet.optimizers.SGD().setup(model)
    updater = training.updaters.StandardUpdater(iterators.SerialIterator(train, 32), optimizer)
    trainer = training.Trainer(updater, (3, 'epoch'))  # 9 iterations; epoch 3.2 at the end
    term = Terminal()
    trainer.extend(extensions.LogReport(log_name=None))
    trainer.extend(extensions.PrintReport(['epoch', 'main/loss'], out=term))
    trainer.extend(extensions.ProgressBar(update_interval=4, out=term))
    trainer.run()
    shown = _screen(term.getvalue())
    assert shown[0].split() == ['epoch', 'main/loss']
    assert [row.split()[0] for row in shown[1:4]] == ['1', '2', '3']
    assert all(len(row.split()) == 2 for row in shown[1:4]), shown  # nothing glued to a row
    assert len(shown) == 5 and shown[4].startswith('100%|') and '| 3.00/3 ' in shown[4]
    assert '0.7111' not in term.getvalue()
