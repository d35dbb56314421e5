"""Memory behaviour: nothing is retained unless asked, intermediate grads are freed."""
import gc
import sys
import tracemalloc

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import Variable


def _mlp_step(x, t, params):
    w1, b1, w2, b2 = params
    h = F.tanh(x @ w1 + b1)
    y = h @ w2 + b2
    loss = F.sum((y - t) ** 2) * (1.0 / len(x))
    for p in params:
        p.cleargrad()
    loss.backward()
    for p in params:
        p.array -= 0.01 * p.grad
    return loss


@pytest.fixture
def mlp():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    t = rng.standard_normal((8, 3)).astype(np.float32)
    params = [Variable(rng.standard_normal(s).astype(np.float32) * 0.1)
              for s in [(5, 16), (16,), (16, 3), (3,)]]
    return x, t, params


def test_mlp_loop_keeps_object_count_and_memory_flat(mlp):
    x, t, params = mlp
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        # Warm up under tracing: constant caches and CPython's free lists (up to 2000 objects
        # per size class) fill once, and memory parked there stays attributed to its allocator.
        for _ in range(1000):
            _mlp_step(x, t, params)
        n0 = len(gc.get_objects())
        m0 = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            _mlp_step(x, t, params)
        n1 = len(gc.get_objects())
        m1 = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        gc.enable()
    # Reference counting alone must free every graph: no cycles, no growth.
    assert n1 - n0 < 50, f'gc-tracked objects grew from {n0} to {n1}'
    assert m1 - m0 < 10_000, f'traced memory grew by {m1 - m0} bytes'


def _peak_bytes(fn):
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


def test_chain_of_mul_by_scalar_peaks_below_six_arrays():
    x = Variable(np.ones(4_000_000, np.float32))
    nbytes = x.array.nbytes

    def run():
        y = x
        for _ in range(30):
            y = y * 2.0
        y.grad = np.ones_like(x.array)
        y.backward()
    peak = _peak_bytes(run)
    assert peak < 6 * nbytes, f'peak {peak / nbytes:.2f} arrays'
    np.testing.assert_array_equal(x.grad[:3], [2.0 ** 30] * 3)


def test_chain_of_tanh_peaks_at_retained_outputs_plus_two_working_arrays():
    x = Variable(np.full(4_000_000, 0.1, np.float32))
    nbytes = x.array.nbytes

    def run():
        y = x
        for _ in range(50):
            y = F.tanh(y)
        y.grad = np.ones_like(x.array)  # the initial gradient counts as a working array
        y.backward()
    peak = _peak_bytes(run)
    assert peak <= 1.05 * (50 + 2) * nbytes, f'peak {peak / nbytes:.2f} arrays'


def test_intermediate_gradients_are_freed_during_backward():
    freed = []

    class Probe(chainlet.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 1.0,

        def backward(self, indexes, grad_outputs):
            import weakref
            freed.append(weakref.ref(grad_outputs[0]))
            return grad_outputs[0] * 1.0,
    x = Variable(np.ones(3))
    y = x
    for _ in range(5):
        y = Probe().apply((y,))[0]
    y.grad = np.ones(3)
    y.backward()
    gc.collect()
    # Every gradient handed to a backward is gone afterwards (backward consumes the output's
    # own .grad too, as in Chainer 7).
    alive = [r() for r in freed if r() is not None]
    assert alive == [] and y.grad_var is None


def _chain(x, op, n=100):
    y = x
    for _ in range(n):
        y = op(y)
    return y


def _new_tracked_objects(build, collect=True):
    """``build()``'s result and the objects the cyclic GC tracks that it left alive.

    ``collect=False`` counts them before a collection has untracked the tuples that cannot
    be in a cycle: each of those still counts toward the next collection while it lives.
    """
    gc.collect()
    gc.disable()
    try:
        before = {id(o) for o in gc.get_objects()}
        result = build()
        if collect:
            gc.collect()  # untracks what cannot be in a cycle (the shape tuples)
        return result, [o for o in gc.get_objects() if id(o) not in before]
    finally:
        gc.enable()


def test_a_recorded_one_input_op_keeps_three_objects_for_the_cyclic_gc():
    # Every object a graph keeps alive is scanned by each garbage collection while the graph
    # lives; for small arrays that scanning is a large part of the op's cost
    # (docs/performance.md). A recorded one-input op keeps its FunctionNode, its output's
    # VariableNode and the function's weak reference to that node: no tuple around the single
    # input node, no weak reference from the node back to its Variable.
    x = Variable(np.ones(3, np.float32))
    y, kept = _new_tracked_objects(lambda: _chain(x, lambda v: v * 2.0))
    # Before Python 3.11 an instance's attributes live in a dict of its own, a fourth object
    # that chainlet cannot avoid there; it is counted apart.
    dicts = sum(type(o) is dict for o in kept)
    others = len(kept) - dicts
    assert others <= 3 * 100 + 5, f'{others / 100:.2f} gc-tracked objects per op'
    assert dicts <= (100 if sys.version_info < (3, 11) else 0) + 5, f'{dicts} dicts'
    y.grad = np.ones(3, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.full(3, 2.0 ** 100, np.float32))


def test_a_fan_out_of_elementwise_ops_keeps_no_shape_tuples_for_the_cyclic_gc():
    # Every tracked object a graph keeps alive brings the next collection nearer, even a tuple
    # of ints that the collector will untrack when it gets there: the fan-out benchmark (x * i,
    # exp, a running sum; docs/performance.md) spent a fifth of its forward in the collector.
    # An output node shares its input's shape tuple where the shapes are equal, and Add reads
    # its inputs' shapes from their nodes in backward instead of keeping copies. What is left
    # per branch: Add's pair of input nodes and Exp's retained output.
    x = Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))

    def build(n=50):
        total = F.exp(x * 0)
        for i in range(1, n):
            total = total + F.exp(x * i)
        return total

    total, kept = _new_tracked_objects(build, collect=False)
    tuples = sum(type(o) is tuple for o in kept)
    assert tuples <= 2 * 50 + 5, f'{tuples / 50:.2f} tracked tuples per branch'
    F.sum(total).backward()
    expected = sum(i * np.exp(i * x.array.astype(np.float64)) for i in range(50))
    np.testing.assert_allclose(x.grad, expected, rtol=1e-5)


def test_add_and_sub_still_sum_a_broadcast_gradient_to_each_inputs_shape():
    a = Variable(np.ones((2, 3), np.float32))
    b = Variable(np.ones((3,), np.float32))
    c = Variable(np.ones((2, 1), np.float32))
    F.sum((a + b) - c).backward()
    assert a.grad.shape == (2, 3) and b.grad.shape == (3,) and c.grad.shape == (2, 1)
    np.testing.assert_array_equal(b.grad, np.full(3, 2, np.float32))
    np.testing.assert_array_equal(c.grad, np.full((2, 1), -3, np.float32))
    gb, = chainlet.grad([F.sum(F.add(a, b, b) ** 2)], [b], enable_double_backprop=True)
    assert gb.shape == (3,) and gb.creator_node is not None


def test_a_leafs_gradient_graph_is_freed_with_the_leaf_by_reference_counting():
    # After double backprop a leaf's gradient carries a graph that reaches the leaf's own node;
    # the gradient is kept on the Variable (not on the node), so no reference cycle forms.
    import weakref

    def run():
        x = Variable(np.ones(3, np.float32))
        F.sum(F.tanh(x) ** 3).backward(enable_double_backprop=True)
        assert x.grad_var.creator_node is not None
        return weakref.ref(x.grad_var.creator_node)

    gc.disable()
    try:
        creator = run()
        assert creator() is None
    finally:
        gc.enable()


@pytest.mark.skipif(sys.version_info < (3, 11), reason='an instance dict per object before 3.11')
def test_instances_made_without_backprop_first_do_not_give_later_ones_a_dict():
    # Python shares one key table among a class's instances, and it takes new keys only from
    # the first instances. A class whose first instances were applied under no_backprop_mode
    # (which sets none of the graph's attributes) must not leave every later recorded op with a
    # dict of its own: a fourth object for the cyclic GC to scan.
    class Double(chainlet.FunctionNode):
        def __init__(self, factor):
            self.factor = factor

        def forward(self, inputs):
            return inputs[0] * self.factor,

    with chainlet.no_backprop_mode():
        for _ in range(50):
            Double(2.0).apply((np.ones(3, np.float32),))
    x = Variable(np.ones(3, np.float32))
    _, kept = _new_tracked_objects(lambda: _chain(x, lambda v: Double(2.0).apply((v,))[0]))
    assert sum(type(o) is dict for o in kept) <= 5
    assert len(kept) <= 3 * 100 + 5
