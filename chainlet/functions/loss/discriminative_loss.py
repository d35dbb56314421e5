"""Discriminative margin-based clustering loss for instance segmentation (De Brabandere et al.
2017), a composition of chainlet functions.

Instance ``c`` (label value ``c + 1``; label 0 is background) has a mean embedding per image.
Three terms: *variance* pulls each pixel's embedding to within ``delta_v`` of its instance
mean, *distance* pushes the means of different instances at least ``2 * delta_d`` apart, and a
small *regularization* keeps the means near the origin. Distances are L1 or L2 norms. The
computation is vectorized over instances, images and pixels with one ``(C, B, E, H, W)``
broadcast, where ``C = max_embedding_dim`` instance slots.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet.functions.activation.relu import relu
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.cast import cast
from chainlet.functions.math.absolute import absolute
from chainlet.functions.math.sqrt import sqrt
from chainlet.functions.math.sum import sum as _sum
from chainlet.variable import as_array, as_variable


def _norm(p: int) -> Any:
    if p == 1:
        return lambda x, axis: _sum(absolute(x), axis=axis)
    return lambda x, axis: sqrt(_sum(x * x, axis=axis))


def discriminative_margin_based_clustering_loss(
        embeddings: Any, labels: Any, delta_v: float, delta_d: float, max_embedding_dim: int,
        norm: int = 1, alpha: float = 1.0, beta: float = 1.0, gamma: float = 0.001) -> tuple:
    """Discriminative margin-based clustering loss.

    Args:
        embeddings: Float Variable or array of shape ``(B, E, H, W)``: an ``E``-dimensional
            embedding per pixel.
        labels: Integer array of shape ``(B, H, W)``; value ``c`` in ``1..E`` marks instance
            ``c``, other values (0 for background) are ignored.
        delta_v: Margin of the variance term: pixels closer than this to their instance mean
            are not penalized.
        delta_d: Margin of the distance term: instance means further apart than
            ``2 * delta_d`` are not penalized.
        max_embedding_dim: Number of instance slots; must equal ``E``.
        norm: 1 (L1) or 2 (L2) distance.
        alpha: Weight of the variance term.
        beta: Weight of the distance term.
        gamma: Weight of the regularization term.

    Returns:
        Tuple of three 0-d Variables: ``(alpha * variance, beta * distance,
        gamma * regularization)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> emb = np.zeros((1, 2, 2, 2)); emb[0, :, 0, :] = 1.0   # instance 1 in row 0
        >>> labels = np.array([[[1, 1], [2, 2]]])
        >>> l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
        ...     emb, labels, 0.5, 1.5, 2, norm=1, gamma=1.0)
        >>> float(l_var.array), float(l_dist.array), float(l_reg.array)
        (0.0, 1.0, 1.0)

    See: `Semantic Instance Segmentation with a Discriminative Loss Function
    <https://arxiv.org/abs/1708.02551>`_.
    """
    if max_embedding_dim <= 0:
        raise ValueError(f'discriminative_margin_based_clustering_loss: argument '
                         f'max_embedding_dim: expected a positive number, got {max_embedding_dim}')
    if norm not in (1, 2):
        raise ValueError(f'discriminative_margin_based_clustering_loss: argument norm: expected '
                         f'1 or 2, got {norm!r}')
    embeddings = as_variable(embeddings)
    labels = as_array(labels)
    if embeddings.ndim != 4 or embeddings.shape[1] != max_embedding_dim:
        raise ValueError(f'discriminative_margin_based_clustering_loss: argument embeddings: '
                         f'expected shape (B, {max_embedding_dim}, H, W), '
                         f'got {embeddings.shape}')
    if labels.shape != embeddings.shape[:1] + embeddings.shape[2:]:
        raise ValueError(f'discriminative_margin_based_clustering_loss: argument labels: '
                         f'expected shape {embeddings.shape[:1] + embeddings.shape[2:]}, '
                         f'got {labels.shape}')
    if embeddings.dtype == numpy.float16:
        # The per-instance sums and pixel counts pass float16's 65504 on a 256x256 image:
        # the loss runs in float32 and its three terms are rounded back to float16.
        terms = discriminative_margin_based_clustering_loss(
            cast(embeddings, numpy.float32), labels, delta_v, delta_d, max_embedding_dim, norm,
            alpha, beta, gamma)
        return tuple(cast(t, numpy.float16) for t in terms)
    dist = _norm(norm)
    xp = backend.get_array_module(embeddings.array)
    dtype = embeddings.dtype
    n_slots = max_embedding_dim
    batch = embeddings.shape[0]

    # masks[c, b, 0, h, w] = 1 where pixel (b, h, w) belongs to instance c + 1.
    ids = xp.arange(1, n_slots + 1).reshape(n_slots, 1, 1, 1)
    masks = (labels[None] == ids)[:, :, None].astype(dtype)
    shape = (n_slots,) + embeddings.shape
    emb = broadcast_to(embeddings[None], shape)
    counts = masks.sum(axis=(2, 3, 4))  # (C, B)
    means = _sum(emb * masks, axis=(3, 4)) / xp.maximum(counts, 1)[:, :, None]  # (C, B, E)

    l_reg = _sum(dist(means, (1, 2))) / float(n_slots * batch)

    spread = dist((broadcast_to(means[:, :, :, None, None], shape) - emb) * masks, 2)
    l_var = _sum(relu(spread - delta_v) ** 2, axis=(1, 2, 3))
    l_var = _sum(l_var / xp.maximum(counts.sum(axis=1), 1)) / float(n_slots)

    l_dist = None
    n_pairs = 0
    for a in range(n_slots):
        for b in range(a + 1, n_slots):
            term = _sum(relu(2 * delta_d - dist(means[a] - means[b], 1)) ** 2)
            l_dist = term if l_dist is None else l_dist + term
            n_pairs += 1
    if l_dist is None:
        l_dist = as_variable(xp.zeros((), dtype))
    l_dist = l_dist / float(max(n_pairs * batch, 1))
    return alpha * l_var, beta * l_dist, gamma * l_reg
