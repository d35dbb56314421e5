"""Sequential names its children in Chainer 7's order, so parameter names and saved files match
Chainer's (a model trained with Chainer loads with each layer's own weights).

The expected orders below were produced by Chainer 7.8.1 itself for the same operations: for each
step, the index of its link among ``children()`` ('fn' for a function step).
"""
import numpy as np

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import serializers


def order(seq):
    children = list(seq.children())
    return [str(next(i for i, c in enumerate(children) if c is step))
            if isinstance(step, chainlet.Link) else 'fn' for step in seq]


def test_orders_match_chainer_7():
    s = chainlet.Sequential(L.Linear(2, 3), F.relu, L.Linear(3, 4), F.relu, L.Linear(4, 5))
    assert order(s) == ['0', 'fn', '2', 'fn', '1']
    s.append(L.Linear(5, 6))
    assert order(s) == ['0', 'fn', '3', 'fn', '2', '1']
    s.insert(1, L.Linear(3, 3))
    assert order(s) == ['0', '1', 'fn', '4', 'fn', '3', '2']
    s.insert(0, L.Linear(1, 2))
    assert order(s) == ['0', '1', '2', 'fn', '5', 'fn', '4', '3']
    del s[3]
    assert order(s) == ['0', '1', '2', '5', 'fn', '4', '3']
    s[2] = L.Linear(7, 7)
    assert order(s) == ['0', '2', '1', '5', 'fn', '4', '3']
    s.pop()
    assert order(s) == ['0', '2', '1', '4', 'fn', '3']
    assert order(s.copy()) == ['0', '4', '3', '2', 'fn', '1']
    t = s + chainlet.Sequential(L.Linear(9, 9), L.Linear(8, 8))
    assert order(t) == ['0', '6', '5', '4', 'fn', '3', '2', '1']
    s.remove_by_layer_type('relu')
    assert order(s) == ['0', '2', '1', '4', '3']
    s2 = chainlet.Sequential(F.relu, L.Linear(2, 2), F.relu, L.Linear(2, 2))
    assert order(s2) == ['fn', '0', 'fn', '1']
    for i, child in enumerate(s.children()):
        assert child.name == str(i)


def test_a_file_in_chainer_layout_loads_into_the_right_layers(tmp_path):
    # Chainer saves Sequential(l0, relu, l1, relu, l2) with l2 as child '1' and l1 as '2'.
    rng = np.random.RandomState(0)
    weights = [rng.rand(4, 4).astype(np.float32) for _ in range(3)]
    path = str(tmp_path / 'mlp.npz')
    np.savez(path, **{'0/W': weights[0], '0/b': np.zeros(4, np.float32),
                      '1/W': weights[2], '1/b': np.zeros(4, np.float32),
                      '2/W': weights[1], '2/b': np.zeros(4, np.float32)})
    model = chainlet.Sequential(L.Linear(4, 4), F.relu, L.Linear(4, 4), F.relu, L.Linear(4, 4))
    serializers.load_npz(path, model)
    for layer, w in zip((model[0], model[2], model[4]), weights):
        np.testing.assert_array_equal(layer.W.array, w)
    saved = str(tmp_path / 'again.npz')
    serializers.save_npz(saved, model)
    with np.load(saved) as f:
        np.testing.assert_array_equal(f['1/W'], weights[2])
