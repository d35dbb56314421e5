"""Snapshot writers: how the ``snapshot`` extensions put a file on disk.

Every writer here writes atomically: the save function writes a hidden temporary file in the
output folder, which is flushed and then renamed over the final name. A crash or a kill in the
middle of a save leaves the previous snapshots untouched and at most a stray ``.<name>.*.tmp``
file (ignored when looking for snapshots).

Example:
    >>> import os, tempfile, numpy as np, chainlet
    >>> from chainlet.training.extensions import snapshot_writers
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
    >>> out = tempfile.mkdtemp()
    >>> snapshot_writers.SimpleWriter()('model.npz', out, link)
    >>> os.listdir(out)
    ['model.npz']
"""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

from chainlet.training._files import atomic_write_path


def _default_savefun() -> Callable:
    from chainlet.serializers import save_npz
    return save_npz


class Writer:
    """Base class of snapshot writers: ``writer(filename, outdir, target)`` saves ``target``.

    Subclasses implement ``__call__``, usually with :meth:`save`.
    """

    def __init__(self) -> None:
        self._post_save_hooks: list = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Save ``target`` to ``outdir/filename``."""
        raise NotImplementedError

    def _add_cleanup_hook(self, hook: Callable[[], None]) -> None:
        self._post_save_hooks.append(hook)

    def save(self, filename: str, outdir: str, target: Any, savefun: Callable,
             **kwds: Any) -> None:
        """Run ``savefun(tmp_path, target, **kwds)`` and atomically rename the result.

        Then run the post-save hooks (e.g. the removal of old snapshots).
        """
        os.makedirs(outdir, exist_ok=True)
        with atomic_write_path(os.path.join(outdir, filename)) as tmp:
            savefun(tmp, target, **kwds)
        for hook in self._post_save_hooks:
            hook()

    def finalize(self) -> None:
        """Wait for pending writes (nothing to wait for in synchronous writers)."""


class SimpleWriter(Writer):
    """Save synchronously, in the training loop.

    Args:
        savefun: ``savefun(path, target, **kwds)``; :func:`chainlet.serializers.save_npz` by
            default.
        kwds: Extra keyword arguments for ``savefun``.
    """

    def __init__(self, savefun: Optional[Callable] = None, **kwds: Any) -> None:
        super().__init__()
        self._savefun = savefun if savefun is not None else _default_savefun()
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        """Save ``target`` to ``outdir/filename`` now."""
        self.save(filename, outdir, target, self._savefun, **self._kwds)
