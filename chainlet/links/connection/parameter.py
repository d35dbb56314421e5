"""``Parameter`` (the link): a link that holds one array as a learnable parameter ``W``.

Useful to optimize a free array with the same machinery as a model: calling the link returns
the :class:`~chainlet.Parameter` itself, so it enters the graph like any other input.
"""
from __future__ import annotations

from typing import Any

from chainlet import parameter
from chainlet.link import Link


class Parameter(Link):
    """Link holding a single parameter array ``W``.

    Args:
        array: The initial value; the parameter holds this array itself (not a copy), as in
            Chainer.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> p = L.Parameter(np.array([1.0, 2.0], np.float32))
        >>> p().array, [name for name, _ in p.namedparams()]
        (array([1., 2.], dtype=float32), ['/W'])
    """

    def __init__(self, array: Any) -> None:
        super().__init__()
        with self.init_scope():
            self.W = parameter.Parameter(getattr(array, 'array', array))

    def forward(self, volatile: Any = None) -> parameter.Parameter:
        """Return the parameter ``W`` (``volatile`` is accepted for Chainer v1 code and
        ignored)."""
        return self.W
