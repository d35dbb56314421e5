"""Node/depth structure of functional graphs (shared layer, rejoining branch), built by the
engine's free functions and by Model."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras.engine import functional


def _shared_rejoin():
    keras.backend.clear_session()
    inputs = keras.Input(shape=(3,), name='x')
    shared = keras.layers.Dense(3, name='shared')
    a = shared(inputs)              # shared, node 0
    b = keras.layers.Dense(3, name='branch')(a)
    c = shared(b)                   # shared, node 1 (depends on node 0)
    joined = keras.layers.Add(name='join')([a, c])   # the branch rejoins
    out = keras.layers.Dense(2, name='head')(joined)
    return inputs, shared, out


def test_collect_nodes_and_depths_alone():
    inputs, shared, out = _shared_rejoin()
    nodes = functional.collect_nodes([inputs], [out])
    names = [n.layer.name for n in nodes]
    assert names[0] == 'x' and names[-1] == 'head'
    assert names.count('shared') == 2
    nodes_by_depth, layers_by_depth = functional.assign_depths(nodes, [inputs])
    depth = {}
    for d, ns in nodes_by_depth.items():
        for n in ns:
            depth[(n.layer.name, n.layer._inbound_nodes.index(n))] = d
    assert depth[('head', 0)] == 0
    assert depth[('join', 0)] == 1
    assert depth[('shared', 1)] == 2
    assert depth[('branch', 0)] == 3
    assert depth[('shared', 0)] == 4
    assert depth[('x', 0)] == 5
    # a node's depth exceeds that of every consumer
    for n in nodes:
        for p in n.parent_nodes:
            assert depth[(p.layer.name, p.layer._inbound_nodes.index(p))] > \
                depth[(n.layer.name, n.layer._inbound_nodes.index(n))]
    # a layer is listed once, at its deepest depth
    layer_names = [(d, [layer.name for layer in ls]) for d, ls in sorted(layers_by_depth.items())]
    assert (4, ['shared']) in layer_names


def test_model_graph_and_replay():
    inputs, shared, out = _shared_rejoin()
    model = keras.Model(inputs, out)
    assert [layer.name for layer in model.layers] == ['x', 'shared', 'branch', 'join', 'head']
    assert len(shared._inbound_nodes) == 2
    with pytest.raises(AttributeError, match='shared'):
        shared.output
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    a = x @ shared.kernel.array + shared.bias.array
    b = a @ model.get_layer('branch').kernel.array + model.get_layer('branch').bias.array
    c = b @ shared.kernel.array + shared.bias.array
    head = model.get_layer('head')
    expected = (a + c) @ head.kernel.array + head.bias.array
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)


def test_replay_builds_ordinary_function_nodes():
    inputs, _, out = _shared_rejoin()
    model = keras.Model(inputs, out)
    y = model(np.ones((2, 3), np.float32), training=True)
    assert y.creator is not None and not hasattr(y.creator, 'layer')
    y.grad = np.ones_like(y.array)
    y.backward()
    assert model.get_layer('shared').kernel.grad is not None


def test_disconnected_graph_error():
    a = keras.Input(shape=(3,), name='a')
    b = keras.Input(shape=(3,), name='b')
    out = keras.layers.Add()([keras.layers.Dense(3)(a), b])
    with pytest.raises(ValueError, match='Graph disconnected'):
        keras.Model(a, out)
    with pytest.raises(ValueError, match='Graph disconnected'):
        functional.collect_nodes([a], [out])
