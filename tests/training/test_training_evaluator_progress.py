from __future__ import annotations

import io
import sys

import pytest

import chainlet
from chainlet import iterators
from chainlet.training import extensions
from chainlet.training.extensions import evaluator as evaluator_module
from chainlet.training.extensions import progress_bar as progress_bar_module


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def make_evaluator(data_factory, model_factory, n=10, batch_size=4, **kwargs):
    it = iterators.SerialIterator(data_factory(n), batch_size, repeat=False, shuffle=False)
    return extensions.Evaluator(it, model_factory(0), **kwargs)


def test_no_output_without_progress_bar(capsys, data_factory, model_factory):
    result = make_evaluator(data_factory, model_factory)()
    assert capsys.readouterr() == ('', '')
    assert set(result) == {'main/loss', 'main/accuracy'}


def test_plain_line_when_not_a_terminal(capsys, data_factory, model_factory):
    plain = make_evaluator(data_factory, model_factory)()
    result = make_evaluator(data_factory, model_factory, progress_bar=True)()
    out, err = capsys.readouterr()
    assert err == ''
    lines = out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith('validation: 3/3 iterations (100.0%), 0:00:0')
    assert result == plain  # the bar changes nothing else


def test_plain_lines_every_interval(capsys, monkeypatch, data_factory, model_factory):
    monkeypatch.setattr(evaluator_module._EvaluationProgress, 'plain_interval', 2)
    make_evaluator(data_factory, model_factory, n=9, batch_size=2, progress_bar=True)()
    counts = [line.split()[1] for line in capsys.readouterr().out.splitlines()]
    assert counts == ['2/5', '4/5', '5/5']


def test_name_given_by_the_trainer(capsys, setup_factory, data_factory):
    s = setup_factory(stop=(1, 'epoch'), n=8)
    val = iterators.SerialIterator(data_factory(6), 3, repeat=False, shuffle=False)
    s.trainer.extend(extensions.Evaluator(val, s.model, progress_bar=True), name='val')
    s.trainer.run()
    assert capsys.readouterr().out.startswith('val: 2/2 iterations (100.0%)')


def test_unknown_length(capsys, data_factory, model_factory):
    class Batches:  # an iterator without dataset / batch_size
        def __init__(self):
            self.batches = [data_factory(4)[:2], data_factory(4)[2:]]

        def __iter__(self):
            return iter(self.batches)

    extensions.Evaluator({'main': Batches()}, model_factory(0), progress_bar=True)()
    assert capsys.readouterr().out.startswith('validation: 2 iterations, ')


def test_tqdm_bar_on_a_terminal(monkeypatch, data_factory, model_factory):
    pytest.importorskip('tqdm')
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, 'stdout', terminal)
    make_evaluator(data_factory, model_factory, progress_bar=True)()
    out = terminal.getvalue()
    # tqdm redraws at most every 0.1 s, so a quick sweep shows the opening bar; leave=False
    # erases it at the end (carriage return, blanks).
    assert out.startswith('\rvalidation:   0%|') and '0/3' in out
    assert out.endswith('\r') and 'iterations (' not in out


def test_plain_line_on_a_terminal_without_tqdm(monkeypatch, data_factory, model_factory):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, 'stdout', terminal)
    monkeypatch.setattr(progress_bar_module, '_tqdm_module', lambda: None)
    make_evaluator(data_factory, model_factory, progress_bar=True)()
    assert terminal.getvalue().startswith('validation: 3/3 iterations (100.0%)')


def test_progress_ends_when_evaluation_fails(capsys, data_factory, model_factory):
    def broken(x, t):
        raise RuntimeError('boom')

    evaluator = make_evaluator(data_factory, model_factory, progress_bar=True,
                               eval_func=broken)
    with pytest.raises(RuntimeError, match='boom'):
        evaluator()
    assert capsys.readouterr().out.startswith('validation: 0/3 iterations (0.0%)')


def test_progress_bar_is_keyword_only(data_factory, model_factory):
    it = iterators.SerialIterator(data_factory(4), 2, repeat=False)
    with pytest.raises(TypeError):
        extensions.Evaluator(it, model_factory(0), None, None, None, None, True)


def test_subclass_without_the_base_init(capsys, data_factory, model_factory):
    class OldStyle(extensions.Evaluator):  # sets the attributes itself, as Chainer 2 code did
        def __init__(self, iterator, target):
            self._iterators = {'main': iterator}
            self._targets = {'main': target}
            self.converter = chainlet.dataset.concat_examples
            self.device = None
            self.eval_hook = None
            self.eval_func = None

    it = iterators.SerialIterator(data_factory(4), 2, repeat=False, shuffle=False)
    assert set(OldStyle(it, model_factory(0))()) == {'main/loss', 'main/accuracy'}
    assert capsys.readouterr().out == ''
