import numpy as np
import pytest

import chainlet.functions as F
from chainlet import gradient_check


def _reference(emb, labels, delta_v, delta_d, n, norm, alpha, beta, gamma):
    """Loop form of the three terms, one image and one instance at a time."""
    dist = (lambda v: np.abs(v).sum(axis=0)) if norm == 1 else \
        (lambda v: np.sqrt((v ** 2).sum(axis=0)))
    B = emb.shape[0]
    means = np.zeros((n, B, emb.shape[1]))
    l_var = 0.0
    for c in range(n):
        m = labels == c + 1
        total = 0.0
        for b in range(B):
            if m[b].any():
                means[c, b] = emb[b][:, m[b]].mean(axis=1)
                d = dist(emb[b][:, m[b]] - means[c, b][:, None])
                total += (np.maximum(d - delta_v, 0) ** 2).sum()
        l_var += total / max(m.sum(), 1)
    l_var /= n
    l_dist = sum((np.maximum(2 * delta_d - dist((means[a] - means[b]).T), 0) ** 2).sum()
                 for a in range(n) for b in range(a + 1, n)) / max(n * (n - 1) // 2 * B, 1)
    l_reg = sum(dist(means[c].reshape(-1)) if norm == 1 else
                np.sqrt((means[c] ** 2).sum()) for c in range(n)) / (n * B)
    return alpha * l_var, beta * l_dist, gamma * l_reg


@pytest.mark.parametrize('norm', [1, 2])
def test_discriminative_loss_matches_loops(norm):
    emb = np.random.uniform(-1, 1, (2, 3, 4, 5))
    labels = np.random.randint(0, 4, (2, 4, 5))
    args = (0.2, 0.8, 3, norm, 1.0, 0.5, 0.1)
    got = F.discriminative_margin_based_clustering_loss(emb, labels, *args)
    for g, e in zip(got, _reference(emb, labels, *args)):
        np.testing.assert_allclose(g.array, e, rtol=1e-10)


def test_discriminative_loss_chainer_values():
    shape = (5, 5, 10, 10)
    emb = np.linspace(0, 100, np.prod(shape)).reshape(shape)
    labels = np.linspace(0, 10, 500).astype(np.int32).reshape(5, 10, 10)
    out = F.discriminative_margin_based_clustering_loss(emb, labels, 0.5, 5, 5, 1, 1, 1, 0.001)
    np.testing.assert_allclose([float(v.array) for v in out], [6.0776708, 64.0, 0.03419368])


def test_discriminative_loss_gradient():
    labels = np.random.randint(0, 3, (2, 3, 3))

    def f(e):
        return sum(F.discriminative_margin_based_clustering_loss(e, labels, 0.1, 2.0, 2))

    gradient_check.check_backward(f, (np.random.uniform(-1, 1, (2, 2, 3, 3)),), np.ones(()))


def test_discriminative_loss_errors():
    emb, labels = np.zeros((1, 2, 2, 2)), np.zeros((1, 2, 2), np.int32)
    with pytest.raises(ValueError, match='argument norm'):
        F.discriminative_margin_based_clustering_loss(emb, labels, 1, 1, 2, norm=3)
    with pytest.raises(ValueError, match='argument embeddings'):
        F.discriminative_margin_based_clustering_loss(emb, labels, 1, 1, 3)
    with pytest.raises(ValueError, match='argument labels'):
        F.discriminative_margin_based_clustering_loss(emb, labels[0], 1, 1, 2)
