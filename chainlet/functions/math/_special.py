"""SciPy's special functions behind chainlet's: where they come from and what a node shares.

Digamma, log-gamma, polygamma, zeta, erfcx, erfinv, erfcinv, ndtri and log_ndtr have no NumPy
counterpart, so, as in Chainer, the CPU forward calls ``scipy.special`` and the GPU forward
``cupyx.scipy.special``. SciPy is an optional extra (``pip install "chainlet-dl[special]"``): it is
imported the first time such a function runs, and when it is missing the ``ImportError`` names
the function and the extra. The gradients are written with chainlet functions, so they can be
differentiated again.

A member of the family is a node class that names itself and its SciPy routine and writes
``backward``: :class:`UnarySpecial` for one float input, :class:`BinarySpecial` for two
broadcastable inputs of which only the second gets a gradient (polygamma, zeta).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode


def special_function(func: str, name: str, xp: Any) -> Callable:
    """``scipy.special.<name>`` for NumPy arrays, ``cupyx.scipy.special.<name>`` for CuPy.

    Args:
        func: Public name of the chainlet function, for the error message.
        name: Name of the routine in ``scipy.special``.
        xp: The array module of the inputs.

    Raises:
        ImportError: SciPy is needed on the CPU and is not installed.
    """
    if xp is numpy:
        try:
            from scipy import special
        except ImportError:
            raise ImportError(
                f'{func}: SciPy is required to compute {func} on the CPU; install it with '
                f'pip install "chainlet-dl[special]"') from None
    else:
        from cupyx.scipy import special
    return getattr(special, name)


def module_getattr(module: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` giving Chainer's flag ``available_cpu``: whether SciPy, which
    the CPU forward needs, imports (probed on first access, so importing stays cheap)."""
    def __getattr__(name: str) -> Any:
        if name == 'available_cpu':
            try:
                import scipy.special  # noqa: F401
            except ImportError:
                return False
            return True
        raise AttributeError(f'module {module!r} has no attribute {name!r}')
    return __getattr__


def evaluate(func: str, name: str, *args: Any, dtype: Any) -> Any:
    """Evaluate a special function on arrays and return an ndarray of ``dtype``.

    float16 inputs are computed in float32 (SciPy has no half-precision loops) and rounded.
    """
    xp = backend.get_array_module(*args)
    y = special_function(func, name, xp)(*args)
    return xp.asarray(y).astype(dtype, copy=False)


class SpecialNode(FunctionNode):
    """A node named after its public function ``name`` that calls ``scipy_name`` forward."""

    name = ''
    scipy_name = ''

    @property
    def label(self) -> str:
        return self.name


class UnarySpecial(SpecialNode):
    """Base of the one-input special functions: a float check and the SciPy forward.

    Subclasses set ``name`` (the public name) and ``scipy_name`` and write ``backward``;
    ``retain`` names what backward needs: the input ``'x'``, the output ``'y'``, or both.
    """

    retain: Any = 'x'  # a name or a tuple of names

    def _check_arrays(self, in_data):
        type_check.count(self.name, in_data, 1)
        type_check.float_input(self.name, 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        y = evaluate(self.name, self.scipy_name, x, dtype=x.dtype)
        if 'x' in self.retain:
            self.retain_inputs((0,))
        if 'y' in self.retain:
            self.retain_outputs((0,))
        return y,


class BinarySpecial(SpecialNode):
    """Base of the two-input special functions ``f(a, b)``, differentiable in ``b`` only.

    Subclasses set ``name``, ``scipy_name`` and ``args`` (the two argument names, for error
    messages), may widen ``first_kind`` (the dtype kinds accepted for ``a``; float by
    default), and write :meth:`grad_b`, the gradient with respect to ``b`` before it is
    summed back to ``b``'s shape. The output has the broadcast shape and ``b``'s dtype.
    """

    args = ('a', 'b')
    first_kind = 'f'

    def _check_arrays(self, in_data):
        type_check.count(self.name, in_data, 2)
        a, b = in_data
        type_check.argument(self.name, self.args[0], a, kind=self.first_kind)
        type_check.float_input(self.name, self.args[1], b)
        type_check.broadcastable(self.name, self.args, in_data)

    def forward(self, inputs):
        a, b = inputs
        self.retain_inputs((0, 1))
        return evaluate(self.name, self.scipy_name, a, b, dtype=b.dtype),

    def grad_b(self, a: Any, b: Any, gy: Any) -> Any:
        """Gradient with respect to ``b`` (a Variable of the broadcast shape)."""
        raise TypeError(f'{type(self).__name__} does not define grad_b')

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.sum_to import sum_to
        a, b = self.get_retained_inputs()
        gb = self.grad_b(a, b, grad_outputs[0])
        if gb.shape != b.shape:
            gb = sum_to(gb, b.shape)
        return None, gb
