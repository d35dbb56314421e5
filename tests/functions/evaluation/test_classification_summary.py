import numpy as np
import pytest

import chainlet.functions as F


def _reference(pred, true, n, beta):
    p, r, f, s = [], [], [], []
    for c in range(n):
        tp = ((pred == c) & (true == c)).sum()
        rel = (pred == c).sum()
        sup = (true == c).sum()
        pc = tp / rel if rel else np.nan
        rc = tp / sup if sup else np.nan
        b2 = beta * beta
        fc = (1 + b2) * pc * rc / (b2 * pc + rc) if pc + rc > 0 else np.nan
        p.append(pc), r.append(rc), f.append(fc), s.append(sup)
    return [np.array(a) for a in (p, r, f, s)]


@pytest.mark.parametrize('beta', [1.0, 2.0])
@pytest.mark.parametrize('shape', [(20, 4), (10, 3, 2)])
def test_matches_reference(shape, beta):
    y = np.random.uniform(-1, 1, shape).astype(np.float32)
    t = np.random.randint(0, shape[1], shape[:1] + shape[2:]).astype(np.int32)
    t.ravel()[:3] = -1
    pred = y.argmax(axis=1).ravel()
    true = t.ravel()
    keep = true != -1
    expected = _reference(pred[keep], true[keep], shape[1], beta)
    got = F.classification_summary(y, t, label_num=shape[1], beta=beta)
    for g, e in zip(got, expected):
        assert g.shape == (shape[1],)
        np.testing.assert_allclose(g.array, e, rtol=1e-5, equal_nan=True)
    assert got[0].dtype == np.float32


def test_default_label_num_and_shortcuts():
    y = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.6, 0.4, 0.0]], np.float32)
    t = np.array([0, 1, 1], np.int32)
    p, r, f, s = F.classification_summary(y, t)
    assert p.shape == (2,)
    np.testing.assert_allclose(p.array, [0.5, 1.0])
    np.testing.assert_allclose(r.array, [1.0, 0.5])
    np.testing.assert_allclose(f.array, [2 / 3, 2 / 3], rtol=1e-6)
    np.testing.assert_array_equal(s.array, [1, 2])
    np.testing.assert_allclose(F.precision(y, t)[0].array, p.array)
    np.testing.assert_allclose(F.recall(y, t)[0].array, r.array)
    np.testing.assert_allclose(F.f1_score(y, t)[0].array, f.array)
    np.testing.assert_allclose(F.fbeta_score(y, t, beta=1.0)[0].array, f.array)
    np.testing.assert_array_equal(F.precision(y, t)[1].array, s.array)


def test_unseen_class_gives_nan_without_warning():
    y = np.array([[0.9, 0.1, 0.0]], np.float32)
    p, r, f, s = F.classification_summary(y, np.array([0], np.int32), label_num=3)
    assert np.isnan(p.array[1]) and np.isnan(r.array[2])
    np.testing.assert_array_equal(s.array, [1, 0, 0])


def test_errors():
    y = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match='classification_summary: argument t'):
        F.classification_summary(y, np.array([0, 5, 1], np.int32), label_num=4)
    with pytest.raises(ValueError, match='classification_summary: argument label_num'):
        F.classification_summary(y, np.array([0, 1, 1], np.int32), label_num=-2)
    with pytest.raises(TypeError, match='classification_summary: argument t: expected shape'):
        F.classification_summary(y, np.array([0, 1], np.int32))
