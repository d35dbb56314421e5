import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet.gradient_check import check_backward
from chainlet.links.loss.hierarchical_softmax import TreeParser


def test_tree_parser_paths_codes_and_children():
    parser = TreeParser()
    parser.parse(((0, (1, 2)), (3, 4)))
    assert parser.size() == 4
    assert {w: p.tolist() for w, p in parser.get_paths().items()} == {
        0: [0, 1], 1: [0, 1, 2], 2: [0, 1, 2], 3: [0, 3], 4: [0, 3]}
    assert parser.get_codes()[1].tolist() == [1, -1, 1]
    assert parser.get_parent2child() == {0: (1, 3), 1: (-1, 2), 2: (-1, -1), 3: (-1, -1)}
    assert parser.get_node2word() == {0: (-1, -1), 1: (0, -1), 2: (1, 2), 3: (3, 4)}
    with pytest.raises(ValueError, match='two children'):
        parser.parse((0, 1, 2))


def test_huffman_tree():
    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(
        {'x': 8, 'y': 6, 'z': 5, 'w': 4, 'v': 3})
    assert tree == (('z', 'y'), (('v', 'w'), 'x'))
    with pytest.raises(ValueError, match='empty'):
        L.BinaryHierarchicalSoftmax.create_huffman_tree({})


def _probabilities(W, x):
    def s(n, code):
        return 1 / (1 + np.exp(-code * W[n] @ x))
    # tree ((0, 1), ((2, 3), 4)): nodes 0 (root), 1 (0, 1), 2 ((2, 3), 4), 3 (2, 3)
    return np.array([s(0, 1) * s(1, 1), s(0, 1) * s(1, -1),
                     s(0, -1) * s(2, 1) * s(3, 1), s(0, -1) * s(2, 1) * s(3, -1),
                     s(0, -1) * s(2, -1)])


def test_loss_gradient_and_sampling():
    rng = np.random.RandomState(0)
    with chainlet.using_config('dtype', np.float64):
        hsm = L.BinaryHierarchicalSoftmax(3, ((0, 1), ((2, 3), 4)))
    assert hsm.W.shape == (4, 3) and np.abs(hsm.W.array).max() <= 1
    x = rng.uniform(-1, 1, (2, 3))
    t = np.array([0, 2], np.int32)
    loss = hsm(x, t)
    p0, p1 = _probabilities(hsm.W.array, x[0]), _probabilities(hsm.W.array, x[1])
    np.testing.assert_allclose(loss.array, -np.log(p0[0]) - np.log(p1[2]), rtol=1e-10)
    np.testing.assert_allclose(p0.sum(), 1.0)
    check_backward(lambda x: hsm(x, t), x, None, params=[hsm.W], seed=0)
    np.random.seed(0)
    counts = np.zeros(5)
    for _ in range(2000):
        counts[hsm.sample(x[:1])[0]] += 1
    np.testing.assert_allclose(counts / 2000, p0, atol=0.04)
    with pytest.raises(ValueError, match='word ids'):
        hsm(x, np.array([0, 5], np.int32))
