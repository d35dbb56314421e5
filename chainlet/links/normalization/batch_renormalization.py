"""``BatchRenormalization``: batch normalization whose batch statistics are corrected towards
the running ones (Ioffe, 2017), so training and inference outputs agree.

It is a :class:`BatchNormalization` (same parameters, persistents and fine-tuning mode) whose
training step calls :func:`chainlet.functions.batch_renormalization`; at test time it
normalizes with the running statistics like its parent.
"""
from __future__ import annotations

from typing import Any, Sequence, Union

from chainlet import _config
from chainlet.functions.normalization.batch_normalization import fixed_batch_normalization
from chainlet.functions.normalization.batch_renormalization import batch_renormalization
from chainlet.links.normalization.batch_normalization import BatchNormalization
from chainlet.variable import Variable


class BatchRenormalization(BatchNormalization):
    """Batch renormalization layer.

    Args:
        size: Channel shape (an int or a tuple).
        rmax: Upper bound of the variance correction ``r`` (lower bound ``1 / rmax``).
        dmax: Bound of the mean correction ``|d|``.
        decay: Decay rate of the running averages.
        eps: Added to the variances before the square root.
        dtype: dtype of the parameters and statistics (``chainlet.config.dtype``, float32 by
            default, when ``None``).
        use_gamma, use_beta, initial_gamma, initial_beta, initial_avg_mean, initial_avg_var:
            As in :class:`BatchNormalization`.
        freeze_running_statistics: Leave ``avg_mean``/``avg_var`` unchanged in training (so
            ``r`` and ``d`` stay fixed, e.g. for a numerical gradient check).

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> brn = L.BatchRenormalization(2, rmax=3.0, dmax=5.0)
        >>> brn(np.array([[0.0, 1.0], [2.0, 3.0]], np.float32)).shape
        (2, 2)
    """

    # Statistics at the start of the last forward run under F.forget, read by its replay.
    _prev_avg_mean: Any = None
    _prev_avg_var: Any = None

    def __init__(self, size: Union[int, Sequence[int]], rmax: float = 1, dmax: float = 0,
                 decay: float = 0.9, eps: float = 2e-5, dtype: Any = None,
                 use_gamma: bool = True, use_beta: bool = True, initial_gamma: Any = None,
                 initial_beta: Any = None, initial_avg_mean: Any = None,
                 initial_avg_var: Any = None, freeze_running_statistics: bool = False) -> None:
        super().__init__(size, decay, eps, dtype, use_gamma, use_beta, initial_gamma,
                         initial_beta, initial_avg_mean=initial_avg_mean,
                         initial_avg_var=initial_avg_var)
        self.rmax = rmax
        self.dmax = dmax
        self.freeze_running_statistics = freeze_running_statistics

    def forward(self, x: Any, finetune: bool = False) -> Variable:  # type: ignore[override]
        """Normalize ``x``; in training mode with the renormalized batch statistics.

        Args:
            x: Input of shape ``(N, *size, ...)``.
            finetune: Accumulate the exact population statistics (decay ``1 - 1 / N``).

        Returns:
            Variable of the shape and dtype of ``x``.
        """
        xp = self.xp
        gamma = self.gamma if self.gamma is not None else \
            xp.ones(self.avg_mean.shape, self._dtype)
        beta = self.beta if self.beta is not None else \
            xp.zeros(self.avg_mean.shape, self._dtype)
        if _config.config.train:
            avg_mean, avg_var = self.avg_mean, self.avg_var
            recomputing = _config.config.in_recomputing
            if recomputing:
                # F.forget's replay: the first run already updated the statistics (and N), and
                # r and d must be those of the first run, from the statistics it started with.
                if self._prev_avg_mean is not None:
                    avg_mean, avg_var = self._prev_avg_mean, self._prev_avg_var
            elif _config.config._will_recompute:
                self._prev_avg_mean = avg_mean.copy()
                self._prev_avg_var = avg_var.copy()
            if finetune and not recomputing:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            update = not (self.freeze_running_statistics or recomputing)
            return batch_renormalization(
                x, gamma, beta, self.rmax, self.dmax, self.eps, avg_mean, avg_var,
                decay, update_statistics=update)
        return fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var, self.eps)

    def _repr_args(self) -> dict:
        args = super()._repr_args()
        args.update(rmax=self.rmax, dmax=self.dmax)
        return args
