"""``FailOnNonNumber``: stop training when a parameter (or gradient) becomes NaN or Inf.

Example:
    >>> from chainlet.training import extensions
    >>> extensions.FailOnNonNumber().check_grad
    True
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet.training import extension


class FailOnNonNumber(extension.Extension):
    """Raise ``RuntimeError`` when a parameter of an optimized link is not finite.

    Diverged training otherwise goes on computing NaNs until the stop trigger.

    Args:
        check_grad: Also check the gradients.
    """

    def __init__(self, check_grad: bool = True) -> None:
        self.check_grad = check_grad

    def __call__(self, trainer: Any) -> None:
        """Check every parameter of every optimizer's target.

        Raises:
            RuntimeError: naming the optimizer and the parameter that is not finite.
        """
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            for path, param in optimizer.target.namedparams():
                arrays = [('value', param.array)]
                if self.check_grad:
                    arrays.append(('gradient', param.grad))
                for what, array in arrays:
                    if array is None:
                        continue
                    xp = backend.get_array_module(array)
                    if not bool(xp.isfinite(array).all()):
                        raise RuntimeError(
                            f'FailOnNonNumber: the {what} of parameter {path!r} of optimizer '
                            f'{name!r} contains NaN or Inf at iteration '
                            f'{trainer.updater.iteration}; training diverged')
