"""Link hooks: callbacks around the ``forward`` of links (Chainer's ``chainer.link_hooks``).

- :class:`TimerHook` measures the time of each link's forward.
- :class:`SpectralNormalization` divides a link's weight by its largest singular value.
- :class:`WeightStandardization` standardizes a link's weight per output channel.

The base class is :class:`chainlet.LinkHook` (see :mod:`chainlet.link_hook`).

Example:
    >>> import numpy as np, chainlet.links as L
    >>> from chainlet import link_hooks
    >>> layer = L.Linear(3, 2).add_hook(link_hooks.SpectralNormalization())
    >>> with link_hooks.TimerHook() as timer:
    ...     _ = layer(np.ones((4, 3), np.float32))
    >>> list(timer.summary())
    ['Linear']
"""
from chainlet.link_hooks.spectral_normalization import SpectralNormalization  # noqa: F401
from chainlet.link_hooks.timer import TimerHook  # noqa: F401
from chainlet.link_hooks.weight_standardization import WeightStandardization  # noqa: F401
