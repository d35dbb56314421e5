"""Names Chainer 7.8.1 offers under module paths other than chainlet's home for them.

Chainer code imports by module path (``from chainer.functions.math.trigonometric import
arccos``); chainlet keeps one definition and re-exports it there. These tests check that the
re-exports are the very objects (no copies) and that the few real additions behave as Chainer's.
"""
import importlib
import os
import sys

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check

SAME_OBJECT = [
    ('chainlet.functions.math.trigonometric', 'arccos', F.arccos),
    ('chainlet.functions.math.trigonometric', 'arcsin', F.arcsin),
    ('chainlet.functions.math.trigonometric', 'arctan', F.arctan),
    ('chainlet.functions.math.trigonometric', 'arctan2', F.arctan2),
    ('chainlet.functions.math.exponential', 'log2', F.log2),
    ('chainlet.functions.math.exponential', 'log10', F.log10),
    ('chainlet.functions.math.sqrt', 'rsqrt', F.rsqrt),
    ('chainlet.functions.math.sum', 'sum_to', F.sum_to),
    ('chainlet.functions.math.basic_math', 'absolute', F.absolute),
    ('chainlet.functions.math.matmul', 'batch_matmul', F.batch_matmul),
    ('chainlet.functions.activation.clipped_relu', 'relu6', F.relu6),
    ('chainlet.functions.activation.log_softmax', 'logsumexp', F.logsumexp),
    ('chainlet.functions.array.broadcast', 'broadcast', F.broadcast),
    ('chainlet.functions.pooling.max_pooling_nd', 'max_pooling_2d', F.max_pooling_2d),
    ('chainlet.functions.loss.absolute_error', 'absolute_error', F.absolute_error),
    ('chainlet.functions.loss.squared_error', 'squared_error', F.squared_error),
    ('chainlet.functions.loss.squared_error', 'squared_difference', F.squared_difference),
    ('chainlet.function_node', 'grad', chainlet.grad),
    ('chainlet.gradient_check', 'assert_allclose', chainlet.testing.assert_allclose),
    ('chainlet', 'get_function_hooks', chainlet.function_node.get_function_hooks),
]


@pytest.mark.parametrize('module, name, expected', SAME_OBJECT,
                         ids=[f'{m}.{n}' for m, n, _ in SAME_OBJECT])
def test_reexport_is_the_same_object(module, name, expected):
    mod = importlib.import_module(module)
    assert getattr(mod, name) is expected
    ns = {}
    exec(f'from {module} import {name}', ns)
    assert ns[name] is expected


NODE_ALIASES = [
    ('chainlet.functions.evaluation.r2_score', 'R2_score', 'R2Score'),
    ('chainlet.functions.connection.shift', 'Shift', 'ShiftFunction'),
    ('chainlet.functions.math.trigonometric', 'Arccos', None),
    ('chainlet.functions.math.exponential', 'Log2', None),
    ('chainlet.functions.math.sum', 'SumTo', None),
    ('chainlet.functions.array.broadcast', 'Broadcast', None),
    ('chainlet.functions.loss.squared_error', 'SquaredError', None),
]


@pytest.mark.parametrize('module, name, home', NODE_ALIASES,
                         ids=[f'{m}.{n}' for m, n, _ in NODE_ALIASES])
def test_node_class_names(module, name, home):
    mod = importlib.import_module(module)
    cls = getattr(mod, name)
    assert issubclass(cls, chainlet.FunctionNode)
    if home is not None:
        assert cls is getattr(mod, home)


def test_missing_name_still_raises_attribute_error():
    from chainlet.functions.math import sum as sum_module
    with pytest.raises(AttributeError, match='no attribute'):
        sum_module.no_such_name
    with pytest.raises(ImportError):
        exec('from chainlet.function_node import no_such_name', {})


@pytest.mark.parametrize('op, expected', [('rsub', lambda x, c: c - x),
                                          ('rdiv', lambda x, c: c / x),
                                          ('rpow', lambda x, c: c ** x)])
def test_reflected_operators(op, expected):
    from chainlet.functions.math import basic_math
    f = getattr(basic_math, op)
    x = np.random.uniform(0.5, 2, (3, 2)).astype(np.float32)
    y = f(chainlet.Variable(x), np.float32(3))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, expected(x, np.float32(3)), rtol=1e-6)
    gradient_check.check_backward(lambda a: f(a, 3.0), x.astype(np.float64),
                                  np.ones((3, 2)), dtype=np.float64)


def test_einsum_and_erfinv_constants():
    from chainlet.functions.math import einsum, erfcinv, erfinv
    assert einsum.einsum_symbols == 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
    assert einsum.einsum_symbols_set == set(einsum.einsum_symbols)
    assert erfinv.BACKWORDC == pytest.approx(np.sqrt(np.pi) / 2)
    assert erfcinv.BACKWORDC == erfinv.BACKWORDC


def _rnn_args(n_layers, directions, in_size=3, out_size=4, n_weights=2, lstm=False):
    rng = np.random.RandomState(0)
    xs = [rng.randn(b, in_size).astype(np.float32) for b in (2, 2, 1)]  # per time step
    hx = rng.randn(n_layers * directions, 2, out_size).astype(np.float32)
    ws, bs = [], []
    for layer in range(n_layers * directions):
        i = in_size if layer < directions else out_size * directions
        ws.append([rng.randn(out_size, i if k < n_weights // 2 else out_size).astype(np.float32)
                   for k in range(n_weights)])
        bs.append([rng.randn(out_size).astype(np.float32) for _ in range(n_weights)])
    return hx, ws, bs, xs


@pytest.mark.parametrize('bi', [False, True])
def test_n_step_base_functions_match_the_named_ones(bi):
    from chainlet.functions.rnn import n_step_gru, n_step_lstm, n_step_rnn
    d = 2 if bi else 1
    hx, ws, bs, xs = _rnn_args(2, d)
    got = n_step_rnn.n_step_rnn_base(2, 0.0, hx, ws, bs, xs, 'relu', bi)
    want = (F.n_step_birnn if bi else F.n_step_rnn)(2, 0.0, hx, ws, bs, xs, activation='relu')
    np.testing.assert_allclose(got[0].array, want[0].array)
    hx, ws, bs, xs = _rnn_args(1, d, n_weights=6)
    got = n_step_gru.n_step_gru_base(1, 0.0, hx, ws, bs, xs, bi)
    want = (F.n_step_bigru if bi else F.n_step_gru)(1, 0.0, hx, ws, bs, xs)
    np.testing.assert_allclose(got[0].array, want[0].array)
    hx, ws, bs, xs = _rnn_args(1, d, n_weights=8)
    got = n_step_lstm.n_step_lstm_base(1, 0.0, hx, hx, ws, bs, xs, bi)
    want = (F.n_step_bilstm if bi else F.n_step_lstm)(1, 0.0, hx, hx, ws, bs, xs)
    for g, w in zip(got[:2], want[:2]):
        np.testing.assert_allclose(g.array, w.array)
    with pytest.raises(ValueError, match='argument train: not supported anymore'):
        n_step_rnn.n_step_rnn_base(1, 0.0, hx, ws, bs, xs, 'tanh', bi, train=True)


def test_top_level_fallback_and_compute_mode():
    assert repr(chainlet.Fallback) == 'Fallback'
    assert chainlet.get_compute_mode() is None
    with chainlet.using_config('compute_mode', 'cudnn_fast'):
        assert chainlet.get_compute_mode() == 'cudnn_fast'
    hooks = chainlet.get_function_hooks()
    with chainlet.function_hooks.TimerHook() as hook:
        assert list(chainlet.get_function_hooks().values()) == [hook]
    assert hooks is chainlet.get_function_hooks()


def test_variable_repr_and_str_functions():
    from chainlet.variable import variable_repr, variable_str
    v = chainlet.Variable(np.array([[0., 1.]], np.float32), name='w')
    assert variable_repr(v) == repr(v) == 'variable w([[0., 1.]])'
    assert variable_str(v) == str(v) == 'variable w([[0. 1.]])'
    assert variable_repr(chainlet.Variable(np.zeros((0, 2)))) == 'variable([], shape=(0, 2))'


def test_dot_node():
    from chainlet.computational_graph import DotNode
    x = chainlet.Variable(np.zeros((2, 3), np.float32), name='x')
    y = F.relu(x)
    var = DotNode(x.node)
    assert var.id_ == id(x.node)
    assert var.attribute == {'label': 'x: (2, 3), float32', 'shape': 'oval'}
    assert DotNode(x.node, show_name=False).attribute['label'] == '(2, 3), float32'
    fn = DotNode(y.creator, {'style': 'filled', 'shape': 'record'})
    assert fn.attribute == {'label': 'ReLU', 'shape': 'record', 'style': 'filled'}
    assert fn.label == f'{id(y.creator)} [label="ReLU",shape="record",style="filled"];'
    with pytest.raises(TypeError, match='DotNode: argument node'):
        DotNode(x)


def test_inventory_tool_runs_and_its_data_is_consistent():
    root = os.path.join(os.path.dirname(__file__), '..', 'tools')
    sys.path.insert(0, root)
    try:
        inventory = importlib.import_module('chainer_inventory')
    finally:
        sys.path.remove(root)
    modules = {'chainlet' + m[len('chainer'):]: set(names.split())
               for m, names in inventory.INVENTORY.items()}
    for key in inventory.DELIBERATE:  # every deliberate entry names a real Chainer name
        module, _, name = key.partition(':')
        assert module in modules, key
        assert not name or name in modules[module], key
    gaps = inventory.compare()
    assert all(module in modules for module, _, _ in gaps)
    # names added for the inventory are no longer gaps
    assert ('chainlet.computational_graph', 'DotNode', None) not in gaps
    assert ('chainlet', 'Fallback', None) not in gaps


def test_link_module_paths_and_gru_base():
    import chainlet.links as L
    from chainlet.links.activation.simplified_dropconnect import SimplifiedDropconnect
    from chainlet.links.rnn.n_step_gru import NStepGRUBase
    assert SimplifiedDropconnect is L.SimplifiedDropconnect
    assert issubclass(L.NStepGRU, NStepGRUBase) and issubclass(L.NStepBiGRU, NStepGRUBase)
    assert NStepGRUBase.n_weights == 6
    bigru = L.NStepBiGRU(1, 2, 3, 0.0)
    assert len(bigru) == 2 and len(list(bigru[0].params())) == 12  # w0..w5, b0..b5


def test_prelu_node_name():
    from chainlet.functions.activation import prelu
    assert prelu.PReLUFunction is prelu.PReLU


def test_types_module():
    import typing
    from chainlet import types
    assert types.Shape == typing.Tuple[int, ...]
    assert int in typing.get_args(types.ShapeSpec)
    assert chainlet.types is types

    class Fill:
        dtype = None

        def __call__(self, array):
            array[...] = 1
    assert isinstance(types.AbstractInitializer, type) and callable(Fill())


def test_testing_availability_helpers():
    import unittest
    from chainlet.testing import condition, training, unary_math_function_test
    assert training.is_available() and training.get_error() is None
    training.check_available()
    assert unary_math_function_test.is_available()
    unary_math_function_test.check_available()

    class Case(unittest.TestCase):
        def test_fails(self):
            self.fail('no')

        def test_passes(self):
            pass
    result = condition.QuietTestRunner().run(unittest.TestLoader().loadTestsFromTestCase(Case))
    assert result.testsRun == 2 and len(result.failures) == 1


def test_distribution_constants():
    from chainlet.distributions import log_normal, multivariate_normal, normal
    assert normal.LOGPROBC == pytest.approx(-0.5 * np.log(2 * np.pi))
    assert normal.PROBC == pytest.approx(1 / np.sqrt(2 * np.pi))
    assert normal.ENTROPYC == pytest.approx(0.5 * np.log(2 * np.pi * np.e))
    d = chainlet.distributions.Normal(np.float64(0.), np.float64(1.))
    assert float(d.entropy.array) == pytest.approx(normal.ENTROPYC)
    assert float(d.log_prob(np.float64(0.)).array) == pytest.approx(normal.LOGPROBC)
    assert log_normal.LOGPROBC == normal.LOGPROBC == multivariate_normal.LOGPROBC
    assert multivariate_normal.ENTROPYC == normal.ENTROPYC


def test_availability_flags_are_computed_on_access():
    from chainlet.datasets import image_dataset
    from chainlet.function_hooks import cupy_memory_profile
    from chainlet.functions.math import erfcinv, erfcx, erfinv, ndtri
    try:
        import scipy.special  # noqa: F401
        have_scipy = True
    except ImportError:
        have_scipy = False
    for module in (erfinv, erfcinv, erfcx, ndtri):
        assert module.available_cpu is have_scipy
    try:
        import PIL  # noqa: F401
        have_pil = True
    except ImportError:
        have_pil = False
    assert image_dataset.available is have_pil
    flag = cupy_memory_profile.memory_hook_available
    assert isinstance(flag, bool)
    counter = cupy_memory_profile.CupyMemoryCumulativeHook()
    counter.malloc_preprocess(mem_size=8)
    counter.alloc_preprocess(mem_size=512)
    assert (counter.used_bytes, counter.acquired_bytes) == (8, 512)
    if not flag:
        assert cupy_memory_profile.MemoryHook is object
    with pytest.raises(AttributeError):
        erfinv.no_such_flag
