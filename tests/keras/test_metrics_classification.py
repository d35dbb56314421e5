"""Confusion-matrix metrics (TP/FP/TN/FN, Precision, Recall, AUC), MAPE and the other metric
classes, against NumPy references written here."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras

M = keras.metrics


def _counts(t, p, thr, w=None):
    p = np.asarray(p, np.float64)
    w = np.ones_like(p) if w is None else np.broadcast_to(np.asarray(w, np.float64), p.shape)
    t, p, w = np.asarray(t, bool).ravel(), p.ravel(), w.ravel()
    pos = p > thr
    return (np.sum(w * (pos & t)), np.sum(w * (pos & ~t)), np.sum(w * (~pos & ~t)),
            np.sum(w * (~pos & t)))


@pytest.fixture
def batches():
    rng = np.random.default_rng(0)
    return [(rng.integers(0, 2, (16, 3)), rng.random((16, 3)), rng.random(16))
            for _ in range(3)]


@pytest.mark.parametrize('cls,cell', [(M.TruePositives, 0), (M.FalsePositives, 1),
                                      (M.TrueNegatives, 2), (M.FalseNegatives, 3)])
def test_confusion_counts_accumulate_with_thresholds_and_weights(batches, cls, cell):
    m = cls()
    multi = cls(thresholds=[0.25, 0.5, 0.9])
    weighted = cls(thresholds=0.3)
    for t, p, w in batches:
        m.update_state(t, p)
        multi.update_state(t, p)
        weighted.update_state(t, p, sample_weight=w[:, None])
    t = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    w = np.concatenate([b[2] for b in batches])[:, None]
    assert m.result() == pytest.approx(_counts(t, p, 0.5)[cell])
    np.testing.assert_allclose(multi.result(), [_counts(t, p, th)[cell]
                                                for th in (0.25, 0.5, 0.9)], rtol=1e-6)
    assert weighted.result() == pytest.approx(_counts(t, p, 0.3, w)[cell])
    m.reset_state()
    assert m.result() == 0.0


def test_precision_recall_against_counts(batches):
    prec, rec = M.Precision(), M.Recall()
    prec2 = M.Precision(thresholds=[0.2, 0.7])
    for t, p, _ in batches:
        prec.update_state(t, p)
        rec.update_state(t, p)
        prec2.update_state(t, p)
    t = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    tp, fp, _, fn = _counts(t, p, 0.5)
    assert prec.result() == pytest.approx(tp / (tp + fp))
    assert rec.result() == pytest.approx(tp / (tp + fn))
    ref = [(lambda c: c[0] / (c[0] + c[1]))(_counts(t, p, th)) for th in (0.2, 0.7)]
    np.testing.assert_allclose(prec2.result(), ref, rtol=1e-6)
    # no predicted positive: 0, not NaN (Keras's divide_no_nan)
    empty = M.Precision()
    empty.update_state([1, 0], [0.1, 0.2])
    assert empty.result() == 0.0


def test_precision_class_id_and_top_k():
    t = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]])
    p = np.array([[0.2, 0.6, 0.7], [0.1, 0.9, 0.8], [0.3, 0.2, 0.25]])
    by_class = M.Precision(class_id=2)
    by_class.update_state(t, p)
    # class 2: predicted positive in rows 0 and 1, correct in row 0
    assert by_class.result() == pytest.approx(0.5)
    top1 = M.Precision(top_k=1)
    top1.update_state(t, p)
    # top-1 predictions: class 2, class 1, class 0: all correct
    assert top1.result() == pytest.approx(1.0)
    rec_top1 = M.Recall(top_k=1)
    rec_top1.update_state(t, p)
    assert rec_top1.result() == pytest.approx(1.0)


def _auc_reference(t, p, num_thresholds, curve, method='interpolation'):
    t = np.asarray(t, bool).ravel()
    p = np.asarray(p, np.float64).ravel()
    thr = [-1e-7] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + \
        [1 + 1e-7]
    c = np.array([_counts(t, p, th) for th in thr])
    tp, fp, tn, fn = c.T
    if curve == 'PR' and method == 'interpolation':
        total = 0.0
        for i in range(len(thr) - 1):
            dtp = tp[i] - tp[i + 1]
            p0, p1 = tp[i] + fp[i], tp[i + 1] + fp[i + 1]
            slope = dtp / (p0 - p1) if p0 - p1 > 0 else 0.0
            intercept = tp[i + 1] - slope * p1
            ratio = p0 / p1 if p0 > 0 and p1 > 0 else 1.0
            denom = tp[i + 1] + fn[i + 1]
            if denom > 0:
                total += slope * (dtp + intercept * np.log(ratio)) / denom
        return total
    rec = np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1e-300), 0.0)
    if curve == 'ROC':
        x, y = np.where(fp + tn > 0, fp / np.maximum(fp + tn, 1e-300), 0.0), rec
    else:
        x, y = rec, np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1e-300), 0.0)
    if method == 'interpolation':
        h = (y[:-1] + y[1:]) / 2
    elif method == 'minoring':
        h = np.minimum(y[:-1], y[1:])
    else:
        h = np.maximum(y[:-1], y[1:])
    return float(np.sum((x[:-1] - x[1:]) * h))


@pytest.mark.parametrize('curve', ['ROC', 'PR'])
@pytest.mark.parametrize('method', ['interpolation', 'minoring', 'majoring'])
def test_auc_matches_reference(batches, curve, method):
    m = M.AUC(num_thresholds=50, curve=curve, summation_method=method)
    for t, p, _ in batches:
        m.update_state(t, p)
    t = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    assert m.result() == pytest.approx(_auc_reference(t, p, 50, curve, method), rel=1e-6)


def test_auc_roc_approaches_the_exact_area():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 2, 2000)
    p = np.clip(0.3 * t + rng.random(2000) * 0.7, 0, 1)
    m = M.AUC(num_thresholds=1000)
    m.update_state(t, p)
    pos, neg = p[t == 1], p[t == 0]
    exact = np.mean(pos[:, None] > neg[None, :]) + 0.5 * np.mean(pos[:, None] == neg[None, :])
    assert m.result() == pytest.approx(exact, abs=2e-3)


def test_auc_from_logits_multi_label_and_errors():
    rng = np.random.default_rng(4)
    t = rng.integers(0, 2, (40, 2))
    logits = rng.normal(size=(40, 2))
    a = M.AUC(from_logits=True, num_thresholds=30)
    b = M.AUC(num_thresholds=30)
    a.update_state(t, logits)
    b.update_state(t, 1 / (1 + np.exp(-logits)))
    assert a.result() == pytest.approx(b.result())
    ml = M.AUC(num_thresholds=30, multi_label=True)
    ml.update_state(t, 1 / (1 + np.exp(-logits)))
    per = [_auc_reference(t[:, j], 1 / (1 + np.exp(-logits[:, j])), 30, 'ROC')
           for j in range(2)]
    assert ml.result() == pytest.approx(np.mean(per), rel=1e-6)
    weighted = M.AUC(num_thresholds=30, multi_label=True, label_weights=[1.0, 3.0])
    weighted.update_state(t, 1 / (1 + np.exp(-logits)))
    assert weighted.result() == pytest.approx((per[0] + 3 * per[1]) / 4, rel=1e-6)
    with pytest.raises(ValueError, match='curve'):
        M.AUC(curve='XY')
    with pytest.raises(ValueError, match='num_thresholds'):
        M.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match='summation_method'):
        M.AUC(summation_method='simpson')
    assert M.AUC().result() == 0.0


def test_auc_and_precision_in_fit_logs():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1,
                                                                          activation='sigmoid')])
    model.compile('adam', 'binary_crossentropy', metrics=['auc', 'precision', M.Recall()])
    hist = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert sorted(hist.history) == ['auc', 'loss', 'precision', 'recall']
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    pred = model.predict(x, verbose=0)
    tp, fp, _, fn = _counts(y, pred, 0.5)
    assert logs['precision'] == pytest.approx(tp / (tp + fp) if tp + fp else 0.0)
    assert logs['recall'] == pytest.approx(tp / (tp + fn) if tp + fn else 0.0)
    assert logs['auc'] == pytest.approx(_auc_reference(y, pred, 200, 'ROC'), rel=1e-5)


def test_mape_and_regression_metrics():
    t = np.array([[1.0, 2.0], [4.0, -1.0]], np.float32)
    p = np.array([[1.5, 2.0], [3.0, 0.0]], np.float32)
    m = M.MeanAbsolutePercentageError()
    m.update_state(t, p)
    assert m.result() == pytest.approx(100 * np.mean(np.abs(t - p) / np.abs(t)), rel=1e-6)
    zero = M.mape(np.zeros((1, 1)), np.ones((1, 1)))
    assert zero[0] == pytest.approx(100 / 1e-7)          # denominator floored at 1e-7
    rmse = M.RootMeanSquaredError()
    rmse.update_state(t, p)
    assert rmse.result() == pytest.approx(np.sqrt(np.mean((t - p) ** 2)), rel=1e-6)
    msle = M.MeanSquaredLogarithmicError()
    msle.update_state(np.abs(t), np.abs(p))
    ref = np.mean((np.log1p(np.maximum(np.abs(p), 1e-7)) -
                   np.log1p(np.maximum(np.abs(t), 1e-7))) ** 2)
    assert msle.result() == pytest.approx(ref, rel=1e-5)
    cos = M.CosineSimilarity()
    cos.update_state(t, p)
    ref = np.mean(np.sum(t * p, -1) / np.linalg.norm(t, axis=-1) / np.linalg.norm(p, axis=-1))
    assert cos.result() == pytest.approx(ref, rel=1e-5)
    lc = M.LogCoshError()
    lc.update_state(t, p)
    assert lc.result() == pytest.approx(np.mean(np.log(np.cosh(p - t))), rel=1e-5)
    po = M.Poisson()
    po.update_state(np.abs(t), np.abs(p))
    assert po.result() == pytest.approx(np.mean(np.abs(p) - np.abs(t) *
                                                np.log(np.abs(p) + 1e-7)), rel=1e-5)
    sh = M.SquaredHinge()
    sh.update_state(np.array([[0.0, 1.0]]), np.array([[0.3, 0.4]]))
    assert sh.result() == pytest.approx(np.mean(np.maximum(1 - np.array([-1, 1]) *
                                                           np.array([0.3, 0.4]), 0) ** 2))


def test_crossentropy_metrics_match_the_losses():
    rng = np.random.default_rng(6)
    p = rng.dirichlet(np.ones(3), 5).astype(np.float32)
    labels = rng.integers(0, 3, 5)
    onehot = np.eye(3, dtype=np.float32)[labels]
    cce, scce = M.CategoricalCrossentropy(), M.SparseCategoricalCrossentropy()
    cce.update_state(onehot, p)
    scce.update_state(labels, p)
    ref = -np.mean(np.log(p[np.arange(5), labels]))
    assert cce.result() == pytest.approx(ref, rel=1e-5)
    assert scce.result() == pytest.approx(ref, rel=1e-5)
    bce = M.BinaryCrossentropy(from_logits=True)
    z = rng.normal(size=(5, 1)).astype(np.float32)
    tb = rng.integers(0, 2, (5, 1)).astype(np.float32)
    bce.update_state(tb, z)
    s = 1 / (1 + np.exp(-z))
    assert bce.result() == pytest.approx(-np.mean(tb * np.log(s) + (1 - tb) * np.log(1 - s)),
                                         rel=1e-5)


def test_metric_names_and_get():
    for name, cls in [('precision', M.Precision), ('recall', M.Recall), ('auc', M.AUC),
                      ('AUC', M.AUC), ('true_positives', M.TruePositives),
                      ('mape', M.MeanAbsolutePercentageError),
                      ('root_mean_squared_error', M.RootMeanSquaredError)]:
        assert isinstance(M.get(name), cls), name
    assert M.get('mape').name == 'mape'
    restored = M.deserialize(M.serialize(M.AUC(num_thresholds=7, curve='PR')))
    assert restored.num_thresholds == 7 and restored.curve == 'PR'
    restored = M.deserialize(M.serialize(M.Precision(thresholds=[0.1, 0.2], class_id=1)))
    assert restored.thresholds == [0.1, 0.2] and restored.class_id == 1
    with pytest.raises(ValueError, match='thresholds'):
        M.TruePositives(thresholds=[1.5])


def test_keras_metric_list_is_covered():
    # the metric classes of keras.metrics that chainlet provides (see docs/keras.md for the
    # ones it does not)
    names = ['AUC', 'Accuracy', 'BinaryAccuracy', 'BinaryCrossentropy', 'CategoricalAccuracy',
             'CategoricalCrossentropy', 'CosineSimilarity', 'FalseNegatives', 'FalsePositives',
             'Hinge', 'KLDivergence', 'LogCoshError', 'Mean', 'MeanAbsoluteError',
             'MeanAbsolutePercentageError', 'MeanMetricWrapper', 'MeanSquaredError',
             'MeanSquaredLogarithmicError', 'Metric', 'Poisson', 'Precision', 'Recall',
             'RootMeanSquaredError', 'SparseCategoricalAccuracy',
             'SparseCategoricalCrossentropy', 'SparseTopKCategoricalAccuracy', 'SquaredHinge',
             'Sum', 'TopKCategoricalAccuracy', 'TrueNegatives', 'TruePositives', 'F1Score',
             'FBetaScore', 'R2Score']
    assert [n for n in names if not hasattr(M, n)] == []


def _f_beta_reference(t, pred, beta, average, w=None):
    w = np.ones((len(t), 1)) if w is None else np.asarray(w, np.float64).reshape(-1, 1)
    tp = (pred * t * w).sum(0)
    fp = (pred * (1 - t) * w).sum(0)
    fn = ((1 - pred) * t * w).sum(0)
    if average == 'micro':
        tp, fp, fn = tp.sum(), fp.sum(), fn.sum()
    p = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1e-300), 0.0)
    r = np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1e-300), 0.0)
    d = beta ** 2 * p + r
    f = np.where(d > 0, (1 + beta ** 2) * p * r / np.maximum(d, 1e-300), 0.0)
    if average == 'macro':
        return np.mean(f)
    if average == 'weighted':
        support = (t * w).sum(0)
        return np.sum(f * support / support.sum())
    return f


@pytest.mark.parametrize('average', [None, 'micro', 'macro', 'weighted'])
@pytest.mark.parametrize('beta,threshold', [(1.0, None), (2.0, 0.4)])
def test_fbeta_and_f1_against_reference(average, beta, threshold):
    rng = np.random.default_rng(7)
    batches = [(np.eye(4)[rng.integers(0, 4, 12)], rng.random((12, 4)), rng.random(12))
               for _ in range(2)]
    m = M.FBetaScore(average=average, beta=beta, threshold=threshold)
    for t, p, w in batches:
        m.update_state(t, p, sample_weight=w)
    t = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    w = np.concatenate([b[2] for b in batches])
    pred = (p == p.max(-1, keepdims=True)) if threshold is None else (p > threshold)
    ref = _f_beta_reference(t, pred.astype(float), beta, average, w)
    np.testing.assert_allclose(m.result(), ref, rtol=1e-5)
    if beta == 1.0:
        f1 = M.F1Score(average=average, threshold=threshold)
        for t_, p_, w_ in batches:
            f1.update_state(t_, p_, sample_weight=w_)
        np.testing.assert_allclose(f1.result(), m.result(), rtol=1e-6)
    with pytest.raises(ValueError, match='average'):
        M.F1Score(average='sum')
    with pytest.raises(ValueError, match='beta'):
        M.FBetaScore(beta=0)
    with pytest.raises(ValueError, match='threshold'):
        M.F1Score(threshold=1.5)
    with pytest.raises(ValueError, match='num_classes'):
        M.F1Score().update_state(np.zeros(3), np.zeros(3))


def test_r2_score_against_reference():
    rng = np.random.default_rng(8)
    t = rng.normal(size=(30, 2))
    p = t + rng.normal(scale=0.5, size=(30, 2))
    per_output = 1 - ((t - p) ** 2).sum(0) / ((t - t.mean(0)) ** 2).sum(0)
    m = M.R2Score(class_aggregation=None)
    m.update_state(t[:10], p[:10])
    m.update_state(t[10:], p[10:])
    np.testing.assert_allclose(m.result(), per_output, rtol=1e-6)
    uni = M.R2Score()
    uni.update_state(t, p)
    assert uni.result() == pytest.approx(per_output.mean(), rel=1e-6)
    var = ((t - t.mean(0)) ** 2).sum(0)
    vw = M.R2Score(class_aggregation='variance_weighted_average')
    vw.update_state(t, p)
    assert vw.result() == pytest.approx(np.sum(per_output * var) / var.sum(), rel=1e-6)
    adj = M.R2Score(num_regressors=3)
    adj.update_state(t, p)
    assert adj.result() == pytest.approx(1 - (1 - per_output.mean()) * 29 / 26, rel=1e-6)
    one_d = M.R2Score()
    one_d.update_state(t[:, 0], p[:, 0])
    assert one_d.result() == pytest.approx(per_output[0], rel=1e-6)
    with pytest.raises(ValueError, match='class_aggregation'):
        M.R2Score(class_aggregation='max')
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.0), 'mse', metrics=[M.R2Score(), 'f1_score'])
    logs = model.evaluate(t.astype(np.float32), p.astype(np.float32), verbose=0,
                          return_dict=True)
    pred = model.predict(t.astype(np.float32), verbose=0)
    ref = 1 - ((p - pred) ** 2).sum(0) / ((p - p.mean(0)) ** 2).sum(0)
    assert logs['r2_score'] == pytest.approx(ref.mean(), rel=1e-4)


def test_new_metrics_survive_save_and_load(tmp_path):
    rng = np.random.default_rng(9)
    x = rng.random((16, 2)).astype(np.float32)
    y = rng.integers(0, 2, (16, 1)).astype(np.float32)
    model = keras.Sequential([keras.Input(shape=(2,)),
                              keras.layers.Dense(1, activation='sigmoid')])
    model.compile('adam', 'binary_crossentropy',
                  metrics=['auc', M.Precision(thresholds=0.3), M.F1Score(threshold=0.5)])
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / 'm.keras')
    loaded = keras.models.load_model(tmp_path / 'm.keras')
    a = model.evaluate(x, y, verbose=0, return_dict=True)
    b = loaded.evaluate(x, y, verbose=0, return_dict=True)
    assert sorted(a) == sorted(b) == ['auc', 'f1_score', 'loss', 'precision']
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-6)
    assert isinstance(a['f1_score'], np.ndarray) and a['f1_score'].shape == (1,)


def _iou_reference(t, p, n, ids, w=None):
    w = np.ones(t.size) if w is None else w
    cm = np.zeros((n, n))
    for a, b, c in zip(t.ravel(), p.ravel(), w.ravel()):
        cm[a, b] += c
    tp = np.diag(cm)
    den = cm.sum(0) + cm.sum(1) - tp
    vals = [tp[i] / den[i] for i in ids if den[i] > 0]
    return float(np.mean(vals)) if vals else 0.0


def test_iou_family_against_reference():
    rng = np.random.default_rng(10)
    t = rng.integers(0, 3, (4, 5, 5))
    scores = rng.random((4, 5, 5, 3))
    p = scores.argmax(-1)
    w = rng.random(4)
    m = M.IoU(num_classes=3, target_class_ids=[0, 2])
    m.update_state(t, p, sample_weight=w)
    wp = np.broadcast_to(w[:, None, None], t.shape).ravel()
    assert m.result() == pytest.approx(_iou_reference(t, p, 3, [0, 2], wp), rel=1e-5)
    mean = M.MeanIoU(num_classes=3)
    mean.update_state(t[:2], p[:2])
    mean.update_state(t[2:], p[2:])
    assert mean.result() == pytest.approx(_iou_reference(t, p, 3, [0, 1, 2]), rel=1e-5)
    onehot = M.OneHotMeanIoU(num_classes=3)
    onehot.update_state(np.eye(3)[t], scores)
    assert onehot.result() == pytest.approx(mean.result(), rel=1e-6)
    one = M.OneHotIoU(num_classes=3, target_class_ids=[1])
    one.update_state(np.eye(3)[t], scores)
    assert one.result() == pytest.approx(_iou_reference(t, p, 3, [1]), rel=1e-5)
    ignore = M.MeanIoU(num_classes=3, ignore_class=0)
    ignore.update_state(t, p)
    keep = t != 0
    assert ignore.result() == pytest.approx(_iou_reference(t[keep], p[keep], 3, [0, 1, 2]),
                                            rel=1e-5)
    b = M.BinaryIoU(target_class_ids=[1], threshold=0.3)
    tb, pb = rng.integers(0, 2, 50), rng.random(50)
    b.update_state(tb, pb)
    assert b.result() == pytest.approx(_iou_reference(tb, (pb > 0.3).astype(int), 2, [1]),
                                       rel=1e-5)
    with pytest.raises(ValueError, match='target_class_ids'):
        M.IoU(num_classes=2, target_class_ids=[2])
    with pytest.raises(ValueError, match='outside'):
        M.MeanIoU(num_classes=2).update_state([0, 3], [0, 1])
    restored = M.deserialize(M.serialize(M.MeanIoU(num_classes=4, ignore_class=3)))
    assert isinstance(restored, M.MeanIoU) and restored.target_class_ids == [0, 1, 2, 3]
    assert restored.ignore_class == 3


@pytest.mark.parametrize('cls,arg', [(M.SensitivityAtSpecificity, 0.6),
                                     (M.SpecificityAtSensitivity, 0.7),
                                     (M.PrecisionAtRecall, 0.5),
                                     (M.RecallAtPrecision, 0.6)])
def test_rate_at_constraint_metrics(batches, cls, arg):
    m = cls(arg, num_thresholds=40)
    for t, p, _ in batches:
        m.update_state(t, p)
    t = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches])
    thr = [-1e-7] + [(i + 1) / 39 for i in range(38)] + [1 + 1e-7]
    best = 0.0
    for th in thr:
        tp, fp, tn, fn = _counts(t, p, th)
        rates = {'sens': tp / (tp + fn) if tp + fn else 0.0,
                 'spec': tn / (tn + fp) if tn + fp else 0.0,
                 'prec': tp / (tp + fp) if tp + fp else 0.0}
        constraint, dependent = {
            M.SensitivityAtSpecificity: ('spec', 'sens'),
            M.SpecificityAtSensitivity: ('sens', 'spec'),
            M.PrecisionAtRecall: ('sens', 'prec'),
            M.RecallAtPrecision: ('prec', 'sens')}[cls]
        if rates[constraint] >= arg:
            best = max(best, rates[dependent])
    assert m.result() == pytest.approx(best, rel=1e-6)
    assert 0 < best <= 1
    restored = M.deserialize(M.serialize(m))
    assert type(restored) is cls and restored.value == arg
    with pytest.raises(ValueError, match=cls._arg):
        cls(1.5)


def test_categorical_hinge():
    t = np.array([[0, 1, 0], [1, 0, 0]], np.float32)
    p = np.array([[0.2, 0.6, 0.9], [0.1, 0.5, 0.3]], np.float32)
    m = M.CategoricalHinge()
    m.update_state(t, p)
    ref = np.maximum((1 - t) * p, 0).max(-1) - (t * p).sum(-1) + 1
    assert m.result() == pytest.approx(np.mean(np.maximum(ref, 0)), rel=1e-6)
    assert isinstance(M.get('categorical_hinge'), M.CategoricalHinge)
