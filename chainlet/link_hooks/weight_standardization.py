"""``WeightStandardization``: standardize a link's weight per output channel in every forward.

Weight Standardization (S. Qiao et al., 2019, https://arxiv.org/abs/1903.10520) replaces the
weight ``W`` of a layer by ``(W - mean) / sqrt(var + eps)``, the mean and variance taken over
all axes but the first (the output channels of ``Linear``, ``Convolution*D``, ``EmbedID``'s
rows). Combined with group normalization it trains with small batches about as well as batch
normalization does with large ones. The standardization is part of the graph (it is
``group_normalization`` with one group and no affine transform), so gradients flow through
it to ``W``.

As with :class:`~chainlet.link_hooks.SpectralNormalization`, the link's attribute holds the
standardized Variable only during ``forward``; it is the :class:`~chainlet.Parameter` again
afterwards, so optimizers and serializers see the raw weight.

Example:
    >>> import numpy as np, chainlet.links as L
    >>> from chainlet.link_hooks import WeightStandardization
    >>> layer = L.Linear(4, 2).add_hook(WeightStandardization(eps=0.0))
    >>> w = layer(np.eye(4, dtype=np.float32)).array.T     # the standardized W, as b is 0
    >>> np.allclose(w.mean(axis=1), 0, atol=1e-6), np.allclose(w.std(axis=1), 1, atol=1e-5)
    (True, True)
    >>> type(layer.W).__name__
    'Parameter'
"""
from __future__ import annotations

import numbers
from typing import Any, Optional

import chainlet
from chainlet.functions.normalization.group_normalization import group_normalization
from chainlet.link import Link
from chainlet.link_hook import LinkHook
from chainlet.link_hooks.spectral_normalization import SpectralNormalization
from chainlet.variable import Variable


class WeightStandardization(LinkHook):
    """Link hook that replaces a weight by its per-output-channel standardization.

    Args:
        eps: Added to the variance before the square root (keyword-only).
        weight_name: Name of the link's weight parameter (keyword-only).
        name: Registration name of the hook; ``'WeightStandardization'`` by default.

    Raises:
        ValueError: (when added) the link has no attribute ``weight_name``.
    """

    name = 'WeightStandardization'
    # Set by __init__; declared for mypy, which defers __init__ (its isinstance checks narrow
    # to intersection types) and would not know their types in the other methods.
    eps: float
    weight_name: str

    def __init__(self, *, eps: float = 1e-5, weight_name: str = 'W',
                 name: Optional[str] = None) -> None:
        cls = type(self).__name__
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not eps >= 0:
            raise ValueError(f'{cls}: argument eps: expected a float >= 0, got {eps!r}')
        if not isinstance(weight_name, str) or not weight_name:
            raise TypeError(f'{cls}: argument weight_name: expected a non-empty str, got '
                            f'{weight_name!r}')
        self.eps = float(eps)
        self.weight_name = weight_name
        if name is not None:
            self.name = name

    def __enter__(self) -> 'WeightStandardization':
        raise NotImplementedError(f'{type(self).__name__} is a hook of one link, not a '
                                  f'thread-wide hook: register it with link.add_hook(hook) '
                                  f'instead of using it in a with statement')

    def __exit__(self, *exc_info: Any) -> None:
        raise NotImplementedError(f'{type(self).__name__} cannot be used in a with statement')

    @property
    def _stash_name(self) -> str:
        # Where the Parameter waits while the link's attribute holds the standardized weight.
        return f'_{self.weight_name}_before_standardization'

    def added(self, link: Optional[Link]) -> None:
        if link is not None and not hasattr(link, self.weight_name):
            raise ValueError(f'{type(self).__name__}: argument weight_name: the link '
                             f'{type(link).__name__} has no weight {self.weight_name!r}')

    def deleted(self, link: Optional[Link]) -> None:
        if link is not None and self._stash_name in link.__dict__:
            # a forward raised before the postprocess could put the Parameter back
            setattr(link, self.weight_name, link.__dict__.pop(self._stash_name))

    def forward_preprocess(self, args: Any) -> None:
        link = args.link
        # A stashed Parameter means an earlier forward raised: that one is the real weight.
        weight = link.__dict__.pop(self._stash_name, None)
        if weight is None:
            weight = getattr(link, self.weight_name)
        if weight.array is None:
            SpectralNormalization._initialize_weight(link, args.args, args.kwargs)
        link.__dict__[self._stash_name] = weight
        setattr(link, self.weight_name, self.standardize(link, weight))

    def forward_postprocess(self, args: Any) -> None:
        link = args.link
        setattr(link, self.weight_name, link.__dict__.pop(self._stash_name))

    def standardize(self, link: Link, weight: Variable) -> Variable:
        """``(W - mean) / sqrt(var + eps)`` per output channel (axis 0), in ``weight``'s graph.
        """
        if weight.ndim < 2:
            raise ValueError(f'{type(self).__name__}: the weight {self.weight_name!r} of '
                             f'{type(link).__name__} has shape {weight.shape}: expected at '
                             f'least 2 axes (output channels first)')
        with chainlet.using_device(link.device):
            xp = link.xp
            gamma = xp.ones((weight.shape[1],), dtype=weight.dtype)
            beta = xp.zeros((weight.shape[1],), dtype=weight.dtype)
        return group_normalization(weight, 1, gamma, beta, eps=self.eps)
