"""SMORMS3: RMSprop whose averaging window adapts per element to how noisy the gradient is."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend, optimizer
from chainlet.optimizers._util import check_eps, check_range

_default_hyperparam = optimizer.Hyperparameter()
_default_hyperparam.lr = 0.001
_default_hyperparam.eps = 1e-16


def _check_args(where: str, lr: Optional[float], eps: Optional[float],
                optional: bool = False) -> None:
    # A rule's arguments may be None (inherit the parent's value); an optimizer's may not.
    if lr is not None or not optional:
        check_range(where, 'lr', lr, 0.0)
    if eps is not None or not optional:
        check_range(where, 'eps', eps, 0.0)


def _update(xp: Any, hp: optimizer.Hyperparameter, state: dict, param: Any) -> None:
    lr, eps = float(hp.lr), float(hp.eps)
    grad, data = param.grad, param.array
    mem, g, g2 = state['mem'], state['g'], state['g2']
    check_eps('SMORMS3', eps, data.dtype)
    # r = 1 / (mem + 1): the weight of the new gradient in both running averages
    r = xp.add(mem, 1.0, out=xp.empty_like(mem))
    xp.reciprocal(r, out=r)
    # g += r (grad - g);  g2 += r (grad^2 - g2)
    tmp = xp.subtract(grad, g, out=xp.empty_like(g))
    tmp *= r
    g += tmp
    xp.multiply(grad, grad, out=tmp)
    tmp -= g2
    tmp *= r
    g2 += tmp
    # x = g^2 / (g2 + eps) lies in [0, 1]: near 1 when the gradient is consistent, near 0
    # when it is mostly noise. It caps the step and shortens the memory.
    xp.add(g2, eps, out=r)
    xp.multiply(g, g, out=tmp)
    tmp /= r
    xp.subtract(1.0, tmp, out=r)
    mem *= r
    mem += 1.0
    # w -= grad min(lr, x) / (sqrt(g2) + eps)
    xp.minimum(tmp, lr, out=tmp)
    tmp *= grad
    xp.sqrt(g2, out=r)
    r += eps
    tmp /= r
    data -= tmp


class SMORMS3Rule(optimizer.UpdateRule):
    """Update rule of :class:`SMORMS3` (states ``mem``, ``g`` and ``g2``).

    ``mem`` starts at one, ``g`` and ``g2`` (running means of the gradient and of its square)
    at zero.

    Args:
        parent_hyperparam: Hyperparameter to fall back to.
        lr: Learning rate (the largest factor a step can have).
        eps: Small value for numerical stability.

    Raises:
        TypeError: ``lr`` or ``eps`` is not a real number.
        ValueError: ``lr`` or ``eps`` is negative.
    """

    _fp16_intermediate = True  # float16 parameters update through float32 temporaries

    def __init__(self, parent_hyperparam: Optional[optimizer.Hyperparameter] = None,
                 lr: Optional[float] = None, eps: Optional[float] = None) -> None:
        _check_args('SMORMS3Rule', lr, eps, optional=True)
        super().__init__(parent_hyperparam or _default_hyperparam)
        if lr is not None:
            self.hyperparam.lr = lr
        if eps is not None:
            self.hyperparam.eps = eps

    def init_state(self, param: Any) -> None:
        xp = backend.get_array_module(param.array)
        self.state['mem'] = xp.ones_like(param.array)
        self.state['g'] = xp.zeros_like(param.array)
        self.state['g2'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        _update(numpy, self.hyperparam, self.state, param)

    def update_core_gpu(self, param: Any) -> None:
        _update(backend.get_array_module(param.array), self.hyperparam, self.state, param)


class SMORMS3(optimizer.GradientMethod):
    """Simon Funk's SMORMS3 ("squared mean over root mean squared, cubed"), 2015.

    Each element keeps a memory length :math:`m` (starting at 1) that sets the weight
    :math:`r = 1 / (m + 1)` of the new gradient in the running means of :math:`g` and
    :math:`g^2`. Their ratio :math:`x` says how consistent the gradient is; it caps the
    step and shrinks the memory when the gradient is noisy:

    .. math::
        \\bar g &\\leftarrow (1 - r)\\,\\bar g + r g, \\qquad
        \\overline{g^2} \\leftarrow (1 - r)\\,\\overline{g^2} + r g^2 \\\\
        x &= \\frac{\\bar g^2}{\\overline{g^2} + \\epsilon}, \\qquad
        w \\leftarrow w - \\frac{\\min(\\eta, x)\\, g}{\\sqrt{\\overline{g^2}} + \\epsilon},
        \\qquad m \\leftarrow 1 + m (1 - x)

    See http://sifter.org/~simon/journal/20150420.html.

    Args:
        lr: Learning rate :math:`\\eta`.
        eps: :math:`\\epsilon`, for numerical stability. The default ``1e-16`` is zero in
            float16; float16 parameters need a larger ``eps`` or ``use_fp32_update()``.

    Raises:
        TypeError: ``lr`` or ``eps`` is not a real number.
        ValueError: ``lr`` or ``eps`` is negative.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import optimizers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
        >>> opt = optimizers.SMORMS3(lr=0.01).setup(link)
        >>> link.w.grad = np.array([4.0, -0.5], np.float32)
        >>> opt.update()
        >>> link.w.array  # the first step is lr * sign(g) * sqrt(2)
        array([-0.01414214,  0.01414214], dtype=float32)
        >>> link.w.update_rule.state['mem']  # 1 + 1 * (1 - x) with x = 1/2
        array([1.5, 1.5], dtype=float32)
    """

    lr = optimizer.HyperparameterProxy('lr')
    eps = optimizer.HyperparameterProxy('eps')

    def __init__(self, lr: float = _default_hyperparam.lr,
                 eps: float = _default_hyperparam.eps) -> None:
        _check_args('SMORMS3', lr, eps)
        super().__init__()
        self.hyperparam.lr = lr
        self.hyperparam.eps = eps

    def create_update_rule(self) -> SMORMS3Rule:
        return SMORMS3Rule(self.hyperparam)
