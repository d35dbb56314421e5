"""Link hooks: ``LinkHook``, ``Link.add_hook``/``delete_hook``, thread-wide hooks and
``chainlet.link_hooks.TimerHook``."""
import io
import re
import threading
import time

import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet import _hooks, link_hook
from chainlet.link_hooks import TimerHook


class Recorder(chainlet.LinkHook):
    """Appends ``(hook name, event, details)`` to a shared list."""

    def __init__(self, name, log):
        self.name = name
        self.log = log

    def added(self, link):
        self.log.append((self.name, 'added', link))

    def deleted(self, link):
        self.log.append((self.name, 'deleted', link))

    def forward_preprocess(self, args):
        self.log.append((self.name, 'pre', args))

    def forward_postprocess(self, args):
        self.log.append((self.name, 'post', args))


class Echo(chainlet.Link):
    """Returns its arguments, and logs the call."""

    def __init__(self, log=None):
        super().__init__()
        self.__dict__['log'] = [] if log is None else log

    def forward(self, *args, **kwargs):
        self.log.append(('link', 'forward', args))
        return ('out', args, kwargs)


class Sleepy(chainlet.Link):
    def __init__(self, seconds, child=None):
        super().__init__()
        self.seconds, self.child = seconds, child

    def forward(self, x):
        time.sleep(self.seconds)
        return x if self.child is None else self.child(x)


def events(log):
    return [(name, event) for name, event, _ in log]


# -- LinkHook and Link.__call__ --

def test_no_hooks_leaves_the_link_untouched():
    layer = L.Linear(3, 2)
    layer(np.zeros((1, 3), np.float32))
    assert layer._local_link_hooks is None
    assert link_hook.get_link_hooks() == {}
    assert _hooks.links.active == 0


def test_global_then_local_hooks_in_registration_order_with_their_arguments():
    log = []
    link = Echo(log)
    link.add_hook(Recorder('l1', log)).add_hook(Recorder('l2', log))
    with Recorder('g1', log), Recorder('g2', log):
        out = link(1, 2, key='v')
    assert events(log) == [
        ('l1', 'added'), ('l2', 'added'), ('g1', 'added'), ('g2', 'added'),
        ('g1', 'pre'), ('g2', 'pre'), ('l1', 'pre'), ('l2', 'pre'), ('link', 'forward'),
        ('g1', 'post'), ('g2', 'post'), ('l1', 'post'), ('l2', 'post'),
        ('g2', 'deleted'), ('g1', 'deleted')]
    assert out == ('out', (1, 2), {'key': 'v'})
    pre, post = log[4][2], log[9][2]
    expected = (link, 'forward', (1, 2), {'key': 'v'})
    assert (pre.link, pre.forward_name, pre.args, pre.kwargs) == expected
    assert not hasattr(pre, 'out')
    assert (post.link, post.forward_name, post.args, post.kwargs) == expected
    assert post.out is out
    assert [entry[2] for entry in log if entry[1] in ('added', 'deleted')] == \
        [link, link, None, None, None, None]
    assert re.fullmatch(r"_ForwardPostprocessCallbackArgs\(link=Echo\(\), forward_name="
                        r"'forward', args=\(1, 2\), kwargs=\{'key': 'v'\}, out=\(.*\)\)",
                        repr(post))


def test_global_hook_sees_every_link_of_a_chain():
    log = []
    model = chainlet.Sequential(L.Linear(4, 3), L.Linear(3, 2))
    x = np.zeros((5, 4), np.float32)
    with Recorder('g', log):
        y = model(x)
    calls = [(event, type(args.link).__name__) for _, event, args in log
             if event in ('pre', 'post')]
    assert calls == [('pre', 'Sequential'), ('pre', 'Linear'), ('post', 'Linear'),
                     ('pre', 'Linear'), ('post', 'Linear'), ('post', 'Sequential')]
    assert log[-2][2].out is y
    log.clear()
    model(x)  # the with block is over
    assert log == []


def test_local_hook_replaces_the_global_hook_of_the_same_name():
    log = []
    link = Echo(log)
    link.add_hook(Recorder('same', log))
    other = Echo(log)
    with Recorder('same', []):        # logs nothing: the local one runs instead, for `link`
        link(0)
        n = len(log)
        other(0)
    assert events(log)[1:] == [('same', 'pre'), ('link', 'forward'), ('same', 'post'),
                               ('link', 'forward')]
    assert n == 4


def test_add_hook_returns_the_link_and_accepts_another_name():
    log = []
    hook = Recorder('r', log)
    link = Echo(log)
    assert link.add_hook(hook) is link
    assert link.add_hook(hook, name='again') is link
    assert list(link.local_link_hooks) == ['r', 'again']
    link(0)
    assert events(log).count(('r', 'pre')) == 2


def test_delete_hook_stops_the_calls():
    log = []
    link = Echo(log)
    link.add_hook(Recorder('r', log))
    link(0)
    link.delete_hook('r')
    assert events(log)[-1] == ('r', 'deleted') and log[-1][2] is link
    log.clear()
    link(0)
    assert events(log) == [('link', 'forward')]
    assert link.local_link_hooks == {}


def test_name_clash_and_unknown_names_raise():
    link = Echo()
    link.add_hook(Recorder('r', []))
    with pytest.raises(KeyError, match=r"Echo.add_hook: argument name: a hook named 'r' is "
                                       r"already registered"):
        link.add_hook(Recorder('r', []))
    with pytest.raises(KeyError, match=r"Echo.delete_hook: argument name: expected the name of "
                                       r"a hook of this link \('r'\), got 'nope'"):
        link.delete_hook('nope')
    with Recorder('g', []):
        with pytest.raises(KeyError, match="Recorder: a link hook named 'g' is already active"):
            with Recorder('g', []):
                pass
        assert list(link_hook.get_link_hooks()) == ['g']
    assert link_hook.get_link_hooks() == {} and _hooks.links.active == 0


def test_add_hook_checks_its_arguments():
    link = Echo()
    with pytest.raises(TypeError, match='Echo.add_hook: argument hook: expected a '
                                        'chainlet.LinkHook, got function'):
        link.add_hook(lambda args: None)
    with pytest.raises(TypeError, match='Echo.add_hook: argument name: expected a str or None, '
                                        'got int'):
        link.add_hook(Recorder('r', []), name=3)
    assert link.local_link_hooks == {}


def test_a_hook_refusing_the_link_is_not_registered():
    class Refuse(chainlet.LinkHook):
        name = 'Refuse'

        def added(self, link):
            raise ValueError('no')

    link = Echo()
    with pytest.raises(ValueError, match='no'):
        link.add_hook(Refuse())
    assert link.local_link_hooks == {}
    with pytest.raises(ValueError, match='no'):
        with Refuse():
            pass
    assert link_hook.get_link_hooks() == {} and _hooks.links.active == 0


def test_forward_that_raises_runs_no_postprocess_and_the_with_block_cleans_up():
    class Boom(chainlet.Link):
        def forward(self, x):
            raise RuntimeError('boom')

    log = []
    with pytest.raises(RuntimeError, match='boom'):
        with Recorder('g', log):
            Boom()(0)
    assert events(log) == [('g', 'added'), ('g', 'pre'), ('g', 'deleted')]
    assert link_hook.get_link_hooks() == {} and _hooks.links.active == 0


def test_global_hooks_belong_to_their_thread():
    log = []
    link = Echo([])
    with Recorder('g', log):
        worker = threading.Thread(target=link, args=(0,))
        worker.start()
        worker.join()
        assert _hooks.links.active == 1
        assert events(log) == [('g', 'added')]  # the other thread's call was not hooked
        link(0)
    assert events(log)[1:3] == [('g', 'pre'), ('g', 'post')]


def test_copy_shares_hooks_in_share_mode_and_copies_them_otherwise():
    hook = Recorder('r', [])
    link = Echo().add_hook(hook)
    assert link.copy('share').local_link_hooks['r'] is hook
    copied = link.copy('copy').local_link_hooks['r']
    assert copied is not hook and isinstance(copied, Recorder)


def test_base_hook_callbacks_do_nothing():
    hook = chainlet.LinkHook()
    assert hook.name == 'LinkHook'
    layer = L.Linear(2, 2).add_hook(hook)
    with chainlet.LinkHook() as same:
        assert same.name == 'LinkHook'
        layer(np.ones((1, 2), np.float32))


def test_public_names():
    assert chainlet.LinkHook is link_hook.LinkHook
    assert chainlet.link_hooks.TimerHook is TimerHook
    assert hasattr(chainlet.link_hooks, 'SpectralNormalization')


# -- TimerHook --

def test_timer_counts_and_times_nested_links():
    inner = Sleepy(0.01)
    outer = Sleepy(0.02, child=inner)
    with TimerHook() as hook:
        outer(0)
        inner(0)
    assert [name for name, _ in hook.call_history] == ['Sleepy'] * 3
    # The first entry to end is the inner call.
    inner_time, outer_time, alone = (t for _, t in hook.call_history)
    assert inner_time >= 0.01 and alone >= 0.01 and outer_time >= 0.03
    assert outer_time >= inner_time
    assert hook.total_time() == pytest.approx(outer_time + alone)
    assert hook.summary() == {'Sleepy': {'elapsed_time': pytest.approx(
        inner_time + outer_time + alone), 'occurrence': 3}}


def test_timer_summary_per_link_class_and_local_registration():
    model = chainlet.Sequential(L.Linear(4, 3), L.Linear(3, 2))
    x = np.zeros((5, 4), np.float32)
    with TimerHook() as hook:
        for _ in range(3):
            model(x)
    summary = hook.summary()
    assert list(summary) == ['Linear', 'Sequential']
    assert [r['occurrence'] for r in summary.values()] == [6, 3]
    assert hook.total_time() == pytest.approx(summary['Sequential']['elapsed_time'])
    local = TimerHook()
    model[1].add_hook(local)
    model(x)
    assert local.summary()['Linear']['occurrence'] == 1 and len(local.call_history) == 1


def test_timer_report():
    with TimerHook() as hook:
        Sleepy(0.002)(0)
        Echo()(0)
    out = io.StringIO()
    hook.print_report(unit='ms', file=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ['LinkName', 'ElapsedTime', 'Occurrence']
    assert re.fullmatch(r'\s*Sleepy\s+\d+\.\d\dms\s+1', lines[1])
    assert re.fullmatch(r'\s*Echo\s+\d+\.\d\dms\s+1', lines[2])
    out = io.StringIO()
    hook.print_report(unit='auto_foreach', file=out)
    assert re.search(r'Echo\s+\d+\.\d\d(us|ns)\s+1', out.getvalue())
    out = io.StringIO()
    hook.print_report(file=out)
    assert re.search(r'Sleepy\s+\d+\.\d\dms', out.getvalue())
    with pytest.raises(ValueError, match="TimerHook.print_report: argument unit: expected one "
                                         "of 'sec', .*, got 'hours'"):
        hook.print_report(unit='hours')


def test_timer_print_report_defaults_to_stdout(capsys):
    TimerHook().print_report()
    assert capsys.readouterr().out.split() == ['LinkName', 'ElapsedTime', 'Occurrence']


def test_timer_recovers_from_a_caught_exception_in_an_inner_link():
    class Fails(chainlet.Link):
        def forward(self, x):
            raise ValueError('inner')

    class Catches(chainlet.Link):
        def __init__(self):
            super().__init__()
            self.__dict__['inner'] = Fails()

        def forward(self, x):
            try:
                self.inner(x)
            except ValueError:
                pass
            return x

    with TimerHook() as hook:
        Catches()(0)
        Catches()(0)
    assert [name for name, _ in hook.call_history] == ['Catches', 'Catches']
    assert hook.total_time() == pytest.approx(sum(t for _, t in hook.call_history))


def test_timer_ignores_a_postprocess_without_its_preprocess():
    hook = TimerHook()
    link = Echo()
    hook.forward_postprocess(link_hook._ForwardPostprocessCallbackArgs(link, 'forward', (0,),
                                                                       {}, 0))
    assert hook.call_history == [] and hook.total_time() == 0


@pytest.mark.gpu
def test_timer_on_a_gpu_link():
    cupy = pytest.importorskip('cupy')
    if not chainlet.backend.gpu_available():
        pytest.skip('no CUDA device')
    layer = L.Linear(3, 2).to_device('@cupy:0')
    with TimerHook() as hook:
        layer(cupy.ones((4, 3), np.float32))
    assert hook.summary()['Linear']['occurrence'] == 1 and hook.total_time() > 0


def test_hooks_call_a_link_that_keeps_its_own_forward_attribute():
    # Chainer models use `self._forward` for their own data (ResNet's BuildingBlock keeps the
    # names of its steps there); the hook machinery must not take it for its own.
    from chainlet.links.model.vision.resnet import BuildingBlock
    block = BuildingBlock(2, 4, 2, 8, 1)
    x = np.zeros((1, 4, 4, 4), np.float32)
    expected = block(x).array
    log = []
    with Recorder('r', log):
        y = block(x)
    np.testing.assert_array_equal(y.array, expected)
    assert [args.link for _, event, args in log if event == 'pre'][0] is block


def test_a_hook_assigned_into_the_registry_dict_is_called_as_in_chainer():
    # Chainer code (Chainer Chemistry's saliency calculators) registers link hooks by assigning
    # into the dict chainer._get_link_hooks() returns, and function hooks likewise.
    import numpy as np
    import chainlet
    import chainlet.functions as F
    import chainlet.links as L

    seen = []

    class Post(chainlet.LinkHook):
        name = 'post'

        def forward_postprocess(self, args):
            seen.append(args.out.shape)

    class Fn(chainlet.FunctionHook):
        name = 'fn'

        def forward_postprocess(self, function, in_data):
            seen.append(function.label)

    link_hooks = chainlet._get_link_hooks()
    function_hooks = chainlet.get_function_hooks()
    link_hooks['post'] = Post()
    function_hooks['fn'] = Fn()
    try:
        L.Linear(2, 3)(np.ones((1, 2), np.float32))
        F.relu(np.ones(2, np.float32))
    finally:
        del link_hooks['post']
        function_hooks.pop('fn')
    F.relu(np.ones(2, np.float32))
    L.Linear(2, 3)(np.ones((1, 2), np.float32))
    assert (1, 3) in seen and 'ReLU' in seen
    assert len(seen) == 3            # nothing after the hooks were removed
    assert not link_hooks and not function_hooks
