"""Tests of ``static_graph`` / ``static_code``: a static chain gives the define-by-run results.

Each model is built twice with the same parameters, once plain and once with its ``forward``
decorated; both get the same inputs (and the same random state, for dropout), and the outputs,
the gradients of the inputs and parameters, and the state after optimizer updates must be equal.
A counter in the Python body of the decorated method shows when it ran (recording) and when it
did not (replay).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.function_hooks import FunctionHook
from chainlet.graph_optimizations import StaticGraphFallbackWarning, static_code
from chainlet.graph_optimizations.static_graph import static_graph


@pytest.fixture(autouse=True)
def _fallback_is_an_error():
    # A fallback where none is expected must fail the test; tests expecting one catch it.
    with warnings.catch_warnings():
        warnings.simplefilter('error', StaticGraphFallbackWarning)
        yield


class MLP(chainlet.Chain):
    """Linear (lazy input size), batch normalization, dropout: state, randomness, persistents."""

    def __init__(self, n_units=6, n_out=3, dropout=0.25):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.bn = L.BatchNormalization(n_units)
            self.l2 = L.Linear(n_units, n_out)
        self.dropout = dropout
        self.body_runs = 0

    def forward(self, x):
        self.body_runs += 1
        h = self.bn(F.relu(self.l1(x)))
        return self.l2(F.dropout(h, self.dropout))


class StaticMLP(MLP):
    forward = static_graph(MLP.forward)


def make_pair(cls=MLP, static_cls=StaticMLP, shape=(5, 4), dtype=np.float32, **kwargs):
    """A plain and a static model with equal parameters (initialized by one call each)."""
    with chainlet.using_config('dtype', np.dtype(dtype)):
        plain, static = cls(**kwargs), static_cls(**kwargs)
        x = np.zeros(shape, dtype)
        for model in (plain, static):  # initializes the lazy parameters, records nothing
            with chainlet.using_config('use_static_graph', False):
                model(x)
    static.copyparams(plain)
    plain.body_runs = static.body_runs = 0
    return plain, static


def run_step(model, x, t, seed):
    """Forward, loss, backward with the random state set; returns output, loss and grads."""
    np.random.seed(seed)
    y = model(x)
    loss = F.sum(F.square(y - t))
    model.cleargrads()
    x.cleargrad()
    loss.backward()
    grads = {name: p.grad.copy() for name, p in model.namedparams()}
    return y.array.copy(), loss.array.copy(), x.grad.copy(), grads


def assert_same_step(a, b, rtol=1e-6, atol=1e-6):
    ya, la, gxa, ga = a
    yb, lb, gxb, gb = b
    np.testing.assert_allclose(yb, ya, rtol=rtol, atol=atol)
    np.testing.assert_allclose(lb, la, rtol=rtol, atol=atol)
    np.testing.assert_allclose(gxb, gxa, rtol=rtol, atol=atol)
    assert ga.keys() == gb.keys()
    for name in ga:
        np.testing.assert_allclose(gb[name], ga[name], rtol=rtol, atol=atol, err_msg=name)


def data(rng, shape, dtype=np.float32):
    return chainlet.Variable(rng.standard_normal(shape).astype(dtype))


@pytest.mark.parametrize('dtype,tol', [(np.float16, 1e-2), (np.float32, 1e-6),
                                       (np.float64, 1e-12)])
def test_training_equals_define_by_run_with_optimizer_updates(dtype, tol):
    rng = np.random.default_rng(0)
    plain, static = make_pair(dtype=dtype)
    opts = []
    for model in (plain, static):
        opt = chainlet.optimizers.MomentumSGD(0.01)
        opt.setup(model)
        opts.append(opt)
    for it in range(6):
        x = data(rng, (5, 4), dtype)
        t = rng.standard_normal((5, 3)).astype(dtype)
        xs = chainlet.Variable(x.array.copy())
        a = run_step(plain, x, t, seed=it)
        b = run_step(static, xs, t, seed=it)
        assert_same_step(a, b, rtol=tol, atol=tol)
        for opt in opts:
            opt.update()  # both models see their new parameters on the next call
    # Recorded on the first two calls, replayed (body not run) on the other four.
    assert plain.body_runs == 6
    assert static.body_runs == 2
    np.testing.assert_allclose(static.bn.avg_mean, plain.bn.avg_mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(static.l1.W.array, plain.l1.W.array, rtol=tol, atol=tol)


def test_replay_gives_new_outputs_for_new_inputs():
    plain, static = make_pair()
    rng = np.random.default_rng(1)
    ys = []
    for _ in range(4):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        np.random.seed(3)
        ya = plain(x).array
        np.random.seed(3)
        yb = static(x).array
        np.testing.assert_allclose(yb, ya, rtol=1e-6, atol=1e-6)
        ys.append(yb)
    assert not np.allclose(ys[2], ys[3])


def test_shape_change_records_a_new_schedule():
    plain, static = make_pair()
    rng = np.random.default_rng(2)
    for batch in (5, 5, 5, 7, 7, 7, 5):
        x = data(rng, (batch, 4))
        t = rng.standard_normal((batch, 3)).astype(np.float32)
        a = run_step(plain, x, t, seed=batch)
        b = run_step(static, chainlet.Variable(x.array.copy()), t, seed=batch)
        assert_same_step(a, b)
    assert static.body_runs == 4  # two recordings per batch size, the last 5 is a replay


def test_dtype_change_records_a_new_schedule():
    class Net(chainlet.Chain):
        body_runs = 0

        @static_graph
        def forward(self, x):
            self.body_runs += 1
            return F.tanh(x) * 2

    net = Net()
    for dtype in (np.float32, np.float32, np.float32, np.float64, np.float64, np.float64):
        y = net(np.full((2,), 0.5, dtype))
        assert y.dtype == dtype
        np.testing.assert_allclose(y.array, 2 * np.tanh(0.5), rtol=1e-6)
    assert net.body_runs == 4


@pytest.mark.parametrize('no_backprop', [False, True])
def test_test_mode_equals_define_by_run(no_backprop):
    plain, static = make_pair()
    rng = np.random.default_rng(3)
    for _ in range(5):  # train-mode calls update the running statistics
        x = rng.standard_normal((5, 4)).astype(np.float32)
        np.random.seed(0)
        plain(x)
        np.random.seed(0)
        static(x)
    runs = static.body_runs
    with chainlet.using_config('train', False), \
            chainlet.using_config('enable_backprop', not no_backprop):
        for _ in range(4):
            x = rng.standard_normal((5, 4)).astype(np.float32)
            ya, yb = plain(x), static(x)
            assert isinstance(yb, chainlet.Variable)
            np.testing.assert_allclose(yb.array, ya.array, rtol=1e-6, atol=1e-6)
    assert static.body_runs == runs + 2  # test mode is a key of its own


def test_force_test_define_by_run():
    class Net(chainlet.Chain):
        body_runs = 0

        @static_graph(force_test_define_by_run=True)
        def forward(self, x):
            self.body_runs += 1
            return F.relu(x)

    net = Net()
    with chainlet.using_config('train', False):
        for _ in range(4):
            net(np.ones(2, np.float32))
    assert net.body_runs == 4
    for _ in range(4):
        net(np.ones(2, np.float32))
    assert net.body_runs == 6


def test_use_static_graph_config_off_runs_define_by_run():
    plain, static = make_pair()
    with chainlet.using_config('use_static_graph', False):
        for _ in range(4):
            static(np.ones((5, 4), np.float32))
    assert static.body_runs == 4


def test_minimize_cache_size_drops_schedules_when_train_mode_changes():
    class Net(chainlet.Chain):
        body_runs = 0

        @static_graph(minimize_cache_size=True)
        def forward(self, x):
            self.body_runs += 1
            return F.relu(x)

    net = Net()
    x = np.ones(2, np.float32)
    for train in (True, True, True, False, True):
        with chainlet.using_config('train', train):
            net(x)
    # Train: 2 recordings + 1 replay; test: 1 recording; train again: recorded afresh.
    assert net.body_runs == 4


def test_input_gradient_and_parameter_gradients_accumulate():
    plain, static = make_pair(dropout=0.0)
    rng = np.random.default_rng(4)
    for _ in range(4):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        grads = []
        for model in (plain, static):
            xv = chainlet.Variable(x.copy())
            model.cleargrads()
            for _ in range(2):  # two backward passes without clearing: gradients add up
                F.sum(model(xv) ** 2).backward()
            grads.append((xv.grad, model.l1.W.grad.copy(), model.bn.gamma.grad.copy()))
        for ga, gb in zip(*grads):
            np.testing.assert_allclose(gb, ga, rtol=1e-5, atol=1e-6)


def test_chain_called_twice_in_one_iteration():
    class Cell(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lin = L.Linear(3, 3)

        def forward(self, h, x):
            return F.tanh(self.lin(h) + x)

    class StaticCell(Cell):
        forward = static_graph(Cell.forward)

    plain, static = Cell(), StaticCell()
    static.copyparams(plain)
    rng = np.random.default_rng(5)
    for _ in range(4):
        xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
        grads = []
        for model in (plain, static):
            h = chainlet.Variable(np.zeros((2, 3), np.float32))
            for x in xs:  # unrolled: each call is its own node in the graph
                h = model(h, x)
            model.cleargrads()
            F.sum(h).backward()
            grads.append((h.array, model.lin.W.grad.copy(), model.lin.b.grad.copy()))
        for ga, gb in zip(*grads):
            np.testing.assert_allclose(gb, ga, rtol=1e-5, atol=1e-6)


def test_nested_arguments_keywords_and_results():
    class Net(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lin = L.Linear(2, 2)

        def forward(self, pair, extra=None, scale=1.0):
            a, b = pair
            y = self.lin(a) * scale + b
            return {'y': y, 'both': (y, F.exp(extra['z'])), 'input': a, 'tag': 'ok'}

    class StaticNet(Net):
        forward = static_graph(Net.forward)

    plain, static = Net(), StaticNet()
    static.copyparams(plain)
    rng = np.random.default_rng(6)
    for scale in (1.0, 1.0, 1.0, 2.0, 2.0, 2.0):
        a = chainlet.Variable(rng.standard_normal((3, 2)).astype(np.float32))
        b = rng.standard_normal((3, 2)).astype(np.float32)
        z = chainlet.Variable(rng.standard_normal((2,)).astype(np.float32))
        outs = [m((a, b), extra={'z': z}, scale=scale) for m in (plain, static)]
        for out in outs:
            assert sorted(out) == ['both', 'input', 'tag', 'y']
            assert out['input'] is a and out['tag'] == 'ok'
            assert isinstance(out['both'], tuple)
        np.testing.assert_allclose(outs[1]['y'].array, outs[0]['y'].array, rtol=1e-6)
        np.testing.assert_allclose(outs[1]['both'][1].array, np.exp(z.array), rtol=1e-6)
        z.cleargrad()
        F.sum(outs[1]['both'][1]).backward()
        np.testing.assert_allclose(z.grad, np.exp(z.array), rtol=1e-6)


def test_double_backprop_when_enabled():
    class Net(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lin = L.Linear(3, 2)

        def forward(self, x):
            return F.sum(F.tanh(self.lin(x)) ** 2)

    class StaticNet(Net):
        forward = static_graph(enable_double_backprop=True)(Net.forward)

    plain, static = Net(), StaticNet()
    static.copyparams(plain)
    rng = np.random.default_rng(7)
    for _ in range(4):
        x0 = rng.standard_normal((4, 3))
        results = []
        for model in (plain, static):
            x = chainlet.Variable(x0.astype(np.float32))
            gx, = chainlet.grad([model(x)], [x], enable_double_backprop=True)
            model.cleargrads()
            F.sum(gx * gx).backward()
            results.append((gx.array, x.grad, model.lin.W.grad.copy()))
        for ra, rb in zip(*results):
            np.testing.assert_allclose(rb, ra, rtol=1e-5, atol=1e-6)


def test_double_backprop_without_the_flag_raises():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return F.sum(F.tanh(x) ** 2)

    net = Net()
    for _ in range(4):
        x = chainlet.Variable(np.linspace(-1, 1, 3))
        gx, = chainlet.grad([net(x)], [x], enable_double_backprop=True)
        np.testing.assert_allclose(gx.array, 2 * np.tanh(x.array) / np.cosh(x.array) ** 2)
        with pytest.raises(RuntimeError, match='static_graph'):
            F.sum(gx).backward()


def test_static_code_runs_on_every_call_with_the_current_arrays():
    seen = []

    @static_code
    def record(h, note='x'):
        seen.append((note, float(h.array.sum())))

    class Net(chainlet.Chain):
        body_runs = 0

        @static_graph
        def forward(self, x):
            self.body_runs += 1
            h = F.relu(x)
            record(h, note='relu')
            return h * 2

    net = Net()
    for v in (1.0, 2.0, 3.0, 4.0, 5.0):
        y = net(np.full((3,), v, np.float32))
        np.testing.assert_allclose(y.array, 2 * v)
    assert net.body_runs == 2
    assert seen == [('relu', 3.0 * v) for v in (1.0, 2.0, 3.0, 4.0, 5.0)]


def test_static_code_result_feeds_later_functions():
    @static_code(func_name='scale')
    def scale(x, inputs=None):
        return x * float(inputs[0].sum())  # reads the current array it is given

    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x, w):
            return F.tanh(scale(x, inputs=[w]))

    net = Net()
    for v in (1.0, 2.0, 3.0, 4.0):
        x = chainlet.Variable(np.ones((2,), np.float32))
        w = np.full((2,), v, np.float32)
        y = net(x, w)
        np.testing.assert_allclose(y.array, np.tanh(2 * v), rtol=1e-6)
        y.grad = np.ones(2, np.float32)
        y.backward()
        np.testing.assert_allclose(x.grad, 2 * v * (1 - np.tanh(2 * v) ** 2), rtol=1e-4,
                                   atol=1e-6)


def test_static_code_outside_a_static_chain_is_a_plain_call():
    @static_code
    def add_one(a):
        return a + 1

    assert add_one(1) == 2
    with pytest.raises(TypeError, match='static_code'):
        static_code(1, 2)


def test_parameter_reassigned_with_a_new_shape_records_again():
    class Net(chainlet.Chain):
        body_runs = 0

        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainlet.Parameter(np.ones((3,), np.float32))

        @static_graph
        def forward(self, x):
            self.body_runs += 1
            return F.sum(x * F.broadcast_to(self.w, x.shape))

    net = Net()
    for _ in range(3):
        assert float(net(np.ones(3, np.float32)).array) == 3.0
    net.w.array = np.full((1,), 2.0, np.float32)  # broadcast now: the recorded checks are stale
    for _ in range(3):
        assert float(net(np.ones(3, np.float32)).array) == 6.0
    assert net.body_runs == 4


def test_parameter_update_in_place_and_by_reassignment_is_seen():
    class Net(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainlet.Parameter(np.ones((2,), np.float32))

        @static_graph
        def forward(self, x):
            return x * self.w

    net = Net()
    x = np.ones(2, np.float32)
    for _ in range(3):
        net(x)
    net.w.array[...] = 3.0
    np.testing.assert_allclose(net(x).array, 3.0)
    net.w.array = np.full((2,), 5.0, np.float32)
    np.testing.assert_allclose(net(x).array, 5.0)


def test_function_hooks_see_replayed_functions():
    class Count(FunctionHook):
        name = 'Count'

        def __init__(self):
            self.labels = []

        def forward_postprocess(self, function, in_data):
            self.labels.append(function.label)

    plain, static = make_pair(dropout=0.0)
    for _ in range(3):
        static(np.ones((5, 4), np.float32))
    with Count() as hook:
        static(np.ones((5, 4), np.float32))
    with Count() as expected:
        plain(np.ones((5, 4), np.float32))
    assert hook.labels == expected.labels
    assert static.body_runs == 2


def test_copy_of_a_static_chain_uses_its_own_parameters():
    _, static = make_pair(dropout=0.0)
    x = np.ones((5, 4), np.float32)
    with chainlet.using_config('train', False):
        for _ in range(3):
            before = static(x).array
        copy = static.copy(mode='copy')
        copy.l2.b.array[...] = 100.0
        for _ in range(3):
            np.testing.assert_allclose(copy(x).array, before - static.l2.b.array + 100.0,
                                       rtol=1e-5)
            np.testing.assert_allclose(static(x).array, before)


# -- code that is not static: one warning, then define-by-run --

def _expect_fallback(net, inputs, match):
    with pytest.warns(StaticGraphFallbackWarning, match=match):
        for x in inputs[:2]:
            net(x)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # a single warning
        for x in inputs[2:]:
            net(x)


def test_changed_number_of_function_calls_falls_back():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            h = x
            for _ in range(int(x.array[0])):  # Python control flow on array values
                h = F.tanh(h)
            return h

    net = Net()
    inputs = [chainlet.Variable(np.full((2,), v, np.float32)) for v in (1.0, 2.0, 3.0, 1.0)]
    _expect_fallback(net, inputs, 'number of recorded function calls changed from 1 to 2')
    y = net(chainlet.Variable(np.full((2,), 3.0, np.float32)))
    np.testing.assert_allclose(y.array, np.tanh(np.tanh(np.tanh(3.0))), rtol=1e-6)


def test_data_dependent_branch_falls_back():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return F.relu(x) if float(x.array.sum()) > 0 else F.tanh(x)

    net = Net()
    inputs = [chainlet.Variable(np.full((2,), v, np.float32)) for v in (1.0, -1.0, -2.0)]
    _expect_fallback(net, inputs, 'changed from ReLU to Tanh')
    y = net(chainlet.Variable(np.full((2,), -2.0, np.float32)))
    np.testing.assert_allclose(y.array, np.tanh(-2.0), rtol=1e-6)


def test_hyper_parameter_computed_from_data_falls_back():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return F.leaky_relu(x, slope=float(abs(x.array).max()) / 10)

    net = Net()
    inputs = [chainlet.Variable(np.full((2,), v, np.float32)) for v in (-1.0, -2.0, -3.0)]
    _expect_fallback(net, inputs, 'hyper-parameter or a constant array changed')
    y = net(chainlet.Variable(np.full((2,), -3.0, np.float32)))
    np.testing.assert_allclose(y.array, -0.9, rtol=1e-6)


def test_array_computed_with_raw_numpy_falls_back():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            mask = (x.array > 0).astype(x.dtype)  # outside function nodes: a "constant"
            return x * mask

    net = Net()
    inputs = [chainlet.Variable(np.array(v, np.float32)) for v in ([1, -1], [-1, 1], [2, 2])]
    _expect_fallback(net, inputs, 'constant array changed')
    y = net(chainlet.Variable(np.array([3, -3], np.float32)))
    np.testing.assert_allclose(y.array, [3, 0])


def test_old_style_function_falls_back():
    class Double(chainlet.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0] * 2,

    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return Double()(x)

    net = Net()
    inputs = [np.ones(2, np.float32)] * 3
    with pytest.warns(StaticGraphFallbackWarning, match='old-style Function'):
        net(inputs[0])
    for x in inputs:
        np.testing.assert_allclose(net(x).array, 2.0)


def test_output_not_made_by_a_function_falls_back():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return chainlet.Variable(x.array * 2)

    net = Net()
    with pytest.warns(StaticGraphFallbackWarning, match='not computed by a function node'):
        y = net(chainlet.Variable(np.ones(2, np.float32)))
    np.testing.assert_allclose(y.array, 2.0)


def test_unhashable_argument_falls_back():
    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x, options):
            return x * options.scale

    class Options:
        __hash__ = None
        scale = 2.0

    net = Net()
    with pytest.warns(StaticGraphFallbackWarning, match='neither an array'):
        y = net(chainlet.Variable(np.ones(2, np.float32)), Options())
    np.testing.assert_allclose(y.array, 2.0)


# -- the decorator's arguments --

def test_unknown_keyword_argument_raises():
    with pytest.raises(TypeError, match="unknown keyword argument.*'force_test_mode'"):
        static_graph(force_test_mode=True)


def test_positional_arguments_raise():
    with pytest.raises(TypeError, match='bare'):
        static_graph(1, 2)


def test_verbosity_prints_when_schedules_are_made(capsys):
    class Net(chainlet.Chain):
        @static_graph(verbosity_level=1)
        def forward(self, x):
            return F.relu(x)

    net = Net()
    for _ in range(3):
        net(np.ones(2, np.float32))
    out = capsys.readouterr().out
    assert 'Net.forward: recorded 1 calls' in out
    assert 'verified' in out


def test_chainer_names():
    assert chainlet.static_graph is static_graph
    assert chainlet.static_code is static_code
    import chainlet.graph_optimizations as go
    assert go.static_code is static_code
    assert go.static_graph.static_graph is static_graph  # the module, as in Chainer


@pytest.mark.gpu
def test_gpu_equals_define_by_run():
    import cupy
    plain, static = make_pair(dropout=0.0)
    plain.to_device('@cupy:0')
    static.to_device('@cupy:0')
    rng = np.random.default_rng(8)
    for _ in range(4):
        x = cupy.asarray(rng.standard_normal((5, 4)).astype(np.float32))
        outs = []
        for model in (plain, static):
            xv = chainlet.Variable(x.copy())
            model.cleargrads()
            F.sum(model(xv) ** 2).backward()
            outs.append((cupy.asnumpy(xv.grad), cupy.asnumpy(model.l1.W.grad)))
        for a, b in zip(*outs):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert static.body_runs == 2


def _count_calls(monkeypatch, cls, name):
    calls = []
    method = getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(name)
        return method(self, *args, **kwargs)
    monkeypatch.setattr(cls, name, counted)
    return calls


def test_replay_runs_forward_and_backward_on_arrays(monkeypatch):
    from chainlet.graph_optimizations import _schedule
    plain, static = make_pair()
    rng = np.random.default_rng(9)
    steps = []
    for it in range(5):
        if it == 2:  # the schedules are verified after two recorded steps
            forward = _count_calls(monkeypatch, _schedule.Schedule, 'replay_arrays')
            backward = _count_calls(monkeypatch, _schedule.BackwardSchedule, 'replay')
            applied = _count_calls(monkeypatch, _schedule.Schedule, 'replay_apply')
        x = data(rng, (5, 4))
        t = rng.standard_normal((5, 3)).astype(np.float32)
        a = run_step(plain, x, t, seed=it)
        b = run_step(static, chainlet.Variable(x.array.copy()), t, seed=it)
        assert_same_step(a, b)
        steps.append(b)
    assert len(forward) == len(backward) == 3 and not applied


def test_backward_recorded_after_replay_starts(monkeypatch):
    """Two forward-only calls verify the forward; the backward is then recorded from replays
    (their nodes linked into a graph), verified, and replayed."""
    from chainlet.graph_optimizations import _schedule
    plain, static = make_pair()
    rng = np.random.default_rng(10)
    for _ in range(2):
        x = rng.standard_normal((5, 4)).astype(np.float32)
        np.random.seed(0)
        plain(chainlet.Variable(x))
        np.random.seed(0)
        static(chainlet.Variable(x))
    backward = _count_calls(monkeypatch, _schedule.BackwardSchedule, 'replay')
    for it in range(4):
        x = data(rng, (5, 4))
        t = rng.standard_normal((5, 3)).astype(np.float32)
        a = run_step(plain, x, t, seed=it)
        b = run_step(static, chainlet.Variable(x.array.copy()), t, seed=it)
        assert_same_step(a, b)
    assert static.body_runs == 2
    assert len(backward) == 2  # steps 3 and 4: two recordings first


def test_backward_for_other_outputs_is_recorded_separately():
    class Net(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lin = L.Linear(3, 4)

        def forward(self, x):
            h = self.lin(x)
            return F.tanh(h), F.sigmoid(h)

    class StaticNet(Net):
        forward = static_graph(Net.forward)

    plain, static = Net(), StaticNet()
    static.copyparams(plain)
    rng = np.random.default_rng(11)
    for it in range(8):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        which = it % 2  # alternately differentiate one output, then the other
        grads = []
        for model in (plain, static):
            y = model(x)[which]
            model.cleargrads()
            F.sum(y * y).backward()
            grads.append((model.lin.W.grad.copy(), model.lin.b.grad.copy()))
        for ga, gb in zip(*grads):
            np.testing.assert_allclose(gb, ga, rtol=1e-5, atol=1e-6)


def test_nested_static_chain_is_part_of_the_outer_recording():
    class Inner(chainlet.Chain):
        body_runs = 0

        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lin = L.Linear(3, 3)

        @static_graph
        def forward(self, x):
            self.body_runs += 1
            return F.tanh(self.lin(x))

    class Outer(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = Inner()

        def forward(self, x):
            return F.sum(self.inner(self.inner(x)))

    class StaticOuter(Outer):
        forward = static_graph(Outer.forward)

    plain, static = Outer(), StaticOuter()
    static.copyparams(plain)
    rng = np.random.default_rng(12)
    for _ in range(5):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        results = []
        for model in (plain, static):
            model.cleargrads()
            y = model(x)
            y.backward()
            results.append((y.array, model.inner.lin.W.grad.copy()))
        for ra, rb in zip(*results):
            np.testing.assert_allclose(rb, ra, rtol=1e-5, atol=1e-6)
    assert static.inner.body_runs == 4  # two recordings of the outer chain, two calls each


def test_variable_from_outside_the_chain_falls_back():
    shared = chainlet.Parameter(np.full((2,), 3.0, np.float32))

    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return x * shared  # not a parameter of this chain: its gradient must not be lost

    net = Net()
    with pytest.warns(StaticGraphFallbackWarning, match='neither an argument'):
        net(chainlet.Variable(np.ones(2, np.float32)))
    for _ in range(3):
        shared.cleargrad()
        F.sum(net(chainlet.Variable(np.full((2,), 2.0, np.float32)))).backward()
        np.testing.assert_allclose(shared.grad, 2.0)


def test_backward_with_raw_array_code_is_differentiated_not_replayed(monkeypatch):
    from chainlet.graph_optimizations import _schedule

    class Square(chainlet.FunctionNode):
        def forward(self, inputs):
            self.x = inputs[0]
            return inputs[0] ** 2,

        def backward(self, indexes, grad_outputs):
            # Raw NumPy outside function nodes: a recording cannot tell it from a constant.
            return chainlet.Variable(2 * self.x * grad_outputs[0].array),

    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x):
            return Square().apply((x,))[0]

    net = Net()
    replays = _count_calls(monkeypatch, _schedule.BackwardSchedule, 'replay')
    for v in (1.0, 1.0, 1.0, 2.0, 3.0, 4.0):  # the first two calls even see the same data
        x = chainlet.Variable(np.full((2,), v))
        F.sum(net(x)).backward()
        np.testing.assert_allclose(x.grad, 2 * v)
    assert not replays


def test_chain_that_computes_nothing():
    class Net(chainlet.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainlet.Parameter(np.ones((2,), np.float32))

        @static_graph
        def forward(self, x):
            return x, self.w

    net = Net()
    for _ in range(4):
        x = chainlet.Variable(np.ones(2, np.float32))
        y, w = net(x)
        assert y is x and w is net.w


def test_decorating_call_instead_of_forward():
    class Net(chainlet.Chain):
        body_runs = 0

        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.lin = L.Linear(2, 2)

        @static_graph
        def __call__(self, x):
            self.body_runs += 1
            return F.relu(self.lin(x))

    net = Net()
    for _ in range(4):
        x = np.ones((1, 2), np.float32)
        np.testing.assert_allclose(net(x).array, np.maximum(net.lin(x).array, 0))
    assert net.body_runs == 2


def test_method_of_a_non_link_raises():
    class NotAChain:
        @static_graph
        def forward(self, x):
            return x

    with pytest.raises(TypeError, match='method of a Chain'):
        NotAChain().forward(np.ones(2))


def test_argument_values_that_keep_changing_bound_the_cache():
    from chainlet.graph_optimizations import static_graph as module

    class Net(chainlet.Chain):
        @static_graph
        def forward(self, x, scale):
            return x * scale

    net = Net()
    x = chainlet.Variable(np.ones(2, np.float32))
    with pytest.warns(StaticGraphFallbackWarning, match='more than 64 different'):
        for i in range(module._MAX_KEYS + 5):
            np.testing.assert_allclose(net(x, float(i)).array, float(i))
    for _ in range(3):  # a recent key is still kept and replays
        np.testing.assert_allclose(net(x, float(module._MAX_KEYS + 4)).array,
                                   module._MAX_KEYS + 4)


def test_schedule_manager_attribute_as_in_chainer():
    # Chainer sets chain.schedule_manager on the first call and asks code that runs several
    # forward passes before a backward to call schedule_manager.end_forward(); that code must
    # run unchanged (here there is nothing to release).
    import copy
    import pickle

    from chainlet.graph_optimizations.static_graph import ScheduleManager

    plain, static = make_pair()
    x = np.random.uniform(-1, 1, (5, 4)).astype(np.float32)
    assert not hasattr(static, 'schedule_manager')
    outs = []
    for _ in range(4):  # several forward passes, no backward in between
        np.random.seed(0)
        outs.append(static(x).array)
        static.schedule_manager.end_forward()
    np.random.seed(0)
    expected = plain(x).array
    for y in outs:
        np.testing.assert_allclose(y, expected, rtol=1e-6)
    manager = static.schedule_manager
    assert isinstance(manager, ScheduleManager)
    assert 'verified, replayed' in repr(manager) and 'StaticMLP' in repr(manager)
    # A copy (deep, shallow or pickled) starts with schedules of its own and its own manager.
    for clone in (copy.deepcopy(static), copy.copy(static), pickle.loads(pickle.dumps(static))):
        np.random.seed(0)
        np.testing.assert_allclose(clone(x).array, expected, rtol=1e-6)
        assert clone.schedule_manager is not manager
        assert clone.schedule_manager._belongs_to(clone) and 'recorded once' in repr(
            clone.schedule_manager)
    assert static.schedule_manager is manager
