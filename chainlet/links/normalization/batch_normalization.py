"""``BatchNormalization``: batch normalization with learned scale and shift and running
statistics for inference."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import _config, initializers
from chainlet.functions.normalization.batch_normalization import (
    batch_normalization, fixed_batch_normalization)
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.utils import argument
from chainlet.variable import Variable


def _parse_axis(axis: Any) -> Optional[tuple]:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else axis
    if isinstance(axis, bool) or not isinstance(axes, (tuple, list)) or any(
            isinstance(a, bool) or not isinstance(a, (int, numpy.integer)) for a in axes):
        raise TypeError(f'BatchNormalization: argument axis: expected None, an int or a tuple of '
                        f'ints, got {axis!r}')
    return tuple(int(a) for a in axes)


class _SizeOrAxisRequired(ValueError, RuntimeError):
    """Neither ``size`` nor ``axis`` given: a ``ValueError`` that is also the
    ``RuntimeError`` Chainer raises."""


class BatchNormalization(Link):
    """Batch normalization layer (Ioffe and Szegedy, 2015).

    Three modes:

    - training (``chainlet.config.train`` is ``True``, the default): normalize with the batch's
      mean and variance and update the running averages ``avg_mean`` and ``avg_var`` with
      ``decay`` (the variance with the unbiased ``m / (m - 1)`` correction);
    - fine-tuning (training with ``finetune=True``): same, but the running averages become the
      exact mean of all batches seen since :meth:`start_finetuning` (decay ``1 - 1 / N``);
    - testing (``chainlet.config.train`` is ``False``): normalize with ``avg_mean`` and
      ``avg_var``.

    Args:
        size: Channel shape (an int or a tuple), or ``None`` to take it from the first input
            (then ``axis`` is required).
        decay: Decay rate of the running averages.
        eps: Added to the variance before the square root.
        dtype: dtype of the parameters and statistics (default ``chainlet.config.dtype`` or
            float32).
        use_gamma: Learn a scale ``gamma`` (else 1).
        use_beta: Learn a shift ``beta`` (else 0).
        initial_gamma: Initializer of ``gamma``; default 1.
        initial_beta: Initializer of ``beta``; default 0.
        axis: Axes to average over (an int or a tuple); default: axis 0 and every axis after
            the channel axes (``(0, 2, 3)`` for images with ``size=C``).
        initial_avg_mean: Initializer of ``avg_mean``; default 0.
        initial_avg_var: Initializer of ``avg_var``; default 1.

    Attributes:
        gamma, beta: Parameters (or ``None`` when disabled).
        avg_mean, avg_var: Running statistics (persistent arrays, saved with the link).
        N: Number of batches seen in fine-tuning mode (persistent).

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L
        >>> bn = L.BatchNormalization(2)
        >>> x = np.array([[0.0, 10.0], [2.0, 30.0]], np.float32)
        >>> np.round(bn(x).array, 3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> bn.avg_mean
        array([0.1, 2. ], dtype=float32)
        >>> with chainlet.using_config('train', False):
        ...     y = bn(x)
        >>> bn.avg_mean                                  # unchanged at test time
        array([0.1, 2. ], dtype=float32)
        >>> lazy = L.BatchNormalization(axis=(0, 2, 3))
        >>> lazy(np.ones((2, 3, 4, 4), np.float32)).shape, lazy.avg_mean.shape
        ((2, 3, 4, 4), (3,))
    """

    gamma: Optional[Parameter] = None
    beta: Optional[Parameter] = None
    avg_mean: Any = None
    avg_var: Any = None

    def __init__(self, size: Union[int, Sequence[int], None] = None, decay: float = 0.9,
                 eps: float = 2e-5, dtype: Any = None, use_gamma: bool = True,
                 use_beta: bool = True, initial_gamma: Any = None, initial_beta: Any = None,
                 axis: Union[int, Sequence[int], None] = None, initial_avg_mean: Any = None,
                 initial_avg_var: Any = None) -> None:
        super().__init__()
        name = 'BatchNormalization'
        self.axis: Any = _parse_axis(axis)  # a tuple of axes, or None for the default
        if size is None and self.axis is None:
            raise _SizeOrAxisRequired(f'{name}: arguments size and axis: give size (the '
                                      f'channel shape) or axis (the axes to average over), got '
                                      f'neither')
        if not 0.0 <= decay <= 1.0:
            raise ValueError(f'{name}: argument decay: expected a value in [0, 1], got {decay}')
        self.decay = decay
        self.eps = eps
        # Parameters and statistics in mixed16 mode are float32 (the input stays float16).
        self._dtype = _config.get_dtype(dtype, map_mixed16=numpy.float32)
        self._initial_avg_mean = _util.get_initializer(
            initial_avg_mean, 0, self._dtype, name, 'initial_avg_mean')
        self._initial_avg_var = _util.get_initializer(
            initial_avg_var, 1, self._dtype, name, 'initial_avg_var')
        self.add_persistent('N', 0)
        with self.init_scope():
            if use_gamma:
                self.gamma = Parameter(_util.get_initializer(
                    initial_gamma, 1, self._dtype, name, 'initial_gamma'))
            if use_beta:
                self.beta = Parameter(_util.get_initializer(
                    initial_beta, 0, self._dtype, name, 'initial_beta'))
        if size is not None:
            if not isinstance(size, (int, numpy.integer, tuple, list)):
                raise TypeError(f'{name}: argument size: expected None, an int or a tuple of '
                                f'ints, got {type(size).__name__}')
            shape = (size,) if isinstance(size, (int, numpy.integer)) else tuple(size)
            for s in shape:
                _util.check_size(name, 'size', s)
            self._initialize_params(tuple(int(s) for s in shape))

    def _initialize_params(self, shape: tuple) -> None:
        for attr, init in (('avg_mean', self._initial_avg_mean),
                           ('avg_var', self._initial_avg_var)):
            self.add_persistent(attr, initializers.generate_array(init, shape, numpy,
                                                                  self._dtype))
        if self.gamma is not None:
            self.gamma.initialize(shape)
        if self.beta is not None:
            self.beta.initialize(shape)

    def forward(self, x: Any, **kwargs: Any) -> Variable:
        """forward(x, finetune=False)

        Normalize ``x`` (see the class docstring for the modes).

        Args:
            x: Input of shape ``(N, *size, ...)`` (default ``axis``) or any shape whose axes
                outside ``axis`` form the channel shape.
            finetune: In training mode, accumulate the exact population statistics. Keyword
                only, as in Chainer (a positional flag is a ``TypeError``; the ``test``
                argument of Chainer v1 is a ``ValueError`` pointing to ``using_config``).

        Returns:
            Variable of the shape and dtype of ``x``.
        """
        finetune, = argument.parse_kwargs(
            kwargs, ('finetune', False),
            test='BatchNormalization: the test argument is not supported anymore; use '
                 "chainlet.using_config('train', False)")
        if self.avg_mean is None:
            ndim = len(x.shape)
            axes = {a % ndim for a in self.axis if -ndim <= a < ndim}
            if len(axes) != len(self.axis):
                raise ValueError(f'BatchNormalization: argument axis: expected axes in '
                                 f'[{-ndim}, {ndim}) for x of shape {tuple(x.shape)}, got '
                                 f'{self.axis}')
            self._initialize_params(tuple(s for i, s in enumerate(x.shape) if i not in axes))
        xp = self.xp
        gamma = self.gamma if self.gamma is not None else \
            xp.ones(self.avg_mean.shape, self._dtype)
        beta = self.beta if self.beta is not None else \
            xp.zeros(self.avg_mean.shape, self._dtype)
        if _config.config.train:
            avg_mean, avg_var = self.avg_mean, self.avg_var
            if _config.config.in_recomputing:
                # F.forget replays this forward in backward: the statistics (and N) were
                # already updated by the first run.
                avg_mean = avg_var = None
                decay = self.decay
            elif finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            return batch_normalization(x, gamma, beta, eps=self.eps, running_mean=avg_mean,
                                       running_var=avg_var, decay=decay, axis=self.axis)
        return fixed_batch_normalization(x, gamma, beta, self.avg_mean, self.avg_var, self.eps,
                                         axis=self.axis)

    def start_finetuning(self) -> None:
        """Restart the count of fine-tuning batches (before a new pass over the data)."""
        self.N = 0

    def _repr_args(self) -> dict:
        size = None if self.avg_mean is None else tuple(self.avg_mean.shape)
        return {'size': size, 'decay': self.decay, 'eps': self.eps,
                'dtype': self._dtype.name}
