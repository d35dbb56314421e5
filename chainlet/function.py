"""Old-style ``Function``: forward and backward on arrays, as Chainer 1 and 2 code writes them.

Many Chainer code bases still define functions the old way::

    class MulAdd(chainlet.Function):
        def check_type_forward(self, in_types):
            type_check.expect(in_types.size() == 3)

        def forward(self, inputs):          # arrays in, tuple of arrays out
            x, y, z = inputs
            return x * y + z,

        def backward(self, inputs, grad_outputs):   # arrays in, arrays out
            x, y, z = inputs
            gw, = grad_outputs
            return y * gw, x * gw, gw

    w = MulAdd()(x, y, z)                   # Variables (or arrays) in, Variable out

Such a function joins the graph through a :class:`FunctionAdapter`, a
:class:`~chainlet.FunctionNode` that delegates to it: ``apply`` runs the checks and
``Function.forward``; backward hands ``Function.backward`` the arrays of all inputs (old-style
functions keep every input unless ``retain_inputs`` says otherwise) and of the output
gradients. Because that backward works on arrays, its gradients cannot be differentiated again:
double backprop through an old-style function raises ``RuntimeError`` naming it.

Ownership follows Chainer: before the call the ``Function`` owns its adapter; once applied, the
adapter (held by the graph) owns the ``Function``, which keeps only a weak reference back, so the
graph, not the user's handle, decides how long they live.

Example:
    >>> import numpy as np, chainlet
    >>> class Double(chainlet.Function):
    ...     def forward(self, inputs):
    ...         return inputs[0] * 2,
    ...     def backward(self, inputs, grad_outputs):
    ...         return grad_outputs[0] * 2,
    >>> x = chainlet.Variable(np.array([1.0, 2.0]))
    >>> y = Double()(x)
    >>> y.grad = np.ones(2)
    >>> y.backward()
    >>> x.grad
    array([2., 2.])
"""
from __future__ import annotations

import warnings
import weakref
from typing import Any, Iterable, Optional

import numpy

from chainlet import _devices
from chainlet import backend
from chainlet._config import force_backprop_mode, no_backprop_mode  # noqa: F401 (Chainer's home)
from chainlet.function_node import FunctionNode


class FunctionAdapter(FunctionNode):
    """The :class:`~chainlet.FunctionNode` standing for an old-style :class:`Function` in a graph.

    Args:
        function: The :class:`Function` to wrap.
    """

    _function: Optional['Function'] = None
    _weak_function: Optional[weakref.ref] = None

    def __init__(self, function: 'Function') -> None:
        self._weak_function = weakref.ref(function)
        function._owned_node = self

    @property
    def function(self) -> Optional['Function']:
        """The wrapped :class:`Function` (``None`` once the unapplied Function was freed)."""
        if self._function is not None:
            return self._function
        ref = self._weak_function
        return None if ref is None else ref()

    def _as_creator(self) -> Any:
        return self.function

    def _live_function(self) -> 'Function':
        function = self.function
        if function is None:
            raise RuntimeError('FunctionAdapter: the wrapped Function no longer exists')
        return function

    @property
    def label(self) -> str:
        return self._live_function().label

    @property
    def _impl_name(self) -> str:
        return type(self.function).__name__

    def check_type_forward(self, in_types: Any) -> None:
        self._live_function().check_type_forward(in_types)

    def forward(self, inputs: tuple) -> tuple:
        # Old-style backward receives every input, so all are kept unless the Function chose.
        self.retain_inputs(range(len(inputs)))
        outputs = self._live_function().forward(inputs)
        if not isinstance(outputs, tuple):
            raise TypeError(f'{self.label}.forward must return a tuple of arrays, '
                            f'got {type(outputs).__name__}')
        return outputs

    def backward(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        function = self._live_function()
        in_data: list = [None] * len(self.inputs)
        for i, x in zip(self._input_indexes_to_retain or (), self.get_retained_inputs()):
            in_data[i] = None if x is None else x.array
        grad_data = tuple(None if g is None else g.array for g in grad_outputs)
        arrays = [a for a in list(in_data) + list(grad_data) if a is not None]
        if arrays and backend.get_array_module(*arrays) is not numpy:
            with _devices.get_device_from_array(arrays[0]):
                gxs = function.backward(tuple(in_data), grad_data)
        else:
            gxs = function.backward(tuple(in_data), grad_data)
        if not isinstance(gxs, (tuple, list)):
            raise TypeError(f'{self.label}.backward must return a tuple of arrays (or None), '
                            f'got {type(gxs).__name__}')
        if len(gxs) != len(self.inputs):
            raise ValueError(f'{self.label}.backward returned {len(gxs)} gradients for '
                             f'{len(self.inputs)} inputs')
        # Bare arrays: the scheduler checks their shapes and dtypes, and under double backprop
        # marks them so that differentiating them again raises.
        return tuple(gxs[i] for i in target_input_indexes)


class Function:
    """Base class of old-style differentiable functions (see the module docstring).

    Implement ``forward`` (or ``forward_cpu``/``forward_gpu``) and ``backward`` (or
    ``backward_cpu``/``backward_gpu``) on arrays; optionally ``check_type_forward(in_types)``
    with :mod:`chainlet.utils.type_check`. Call the instance on Variables or arrays.
    """

    _node: Optional[weakref.ref] = None
    _owned_node: Optional[FunctionAdapter] = None

    def __call__(self, *inputs: Any) -> Any:
        """Apply the function and link it into the graph.

        Returns:
            One output :class:`~chainlet.Variable`, or a tuple of them when there are several.
        """
        node = self.node
        if node._applied:
            # Called again: Chainer reuses the adapter (and so rewires the earlier graph); each
            # call gets its own here, and the attributes below describe the latest call.
            node = FunctionAdapter(self)
        # The graph will hold the adapter, and the adapter this Function.
        node._function = self
        node._weak_function = None
        self._node = weakref.ref(node)
        self._owned_node = None
        outputs = node.apply(inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    @property
    def node(self) -> FunctionAdapter:
        """The :class:`FunctionAdapter` of this function (made on first access)."""
        node = (self._node and self._node()) or self._owned_node
        if node is None:
            node = FunctionAdapter(self)
        return node

    @property
    def inputs(self) -> Optional[tuple]:
        """The input :class:`~chainlet.VariableNode` s (``None`` before the call)."""
        return self.node.inputs

    @property
    def outputs(self) -> Optional[tuple]:
        """Weak references to the output :class:`~chainlet.VariableNode` s."""
        return self.node.outputs

    @property
    def rank(self) -> int:
        """Topological ordinal of the function in the graph."""
        return self.node.rank

    @property
    def stack(self) -> Optional[list]:
        """Where the function was applied (debug mode only)."""
        return self.node.stack

    @property
    def label(self) -> str:
        """Name shown in errors and graph dumps (the class name by default)."""
        return type(self).__name__

    @property
    def output_data(self) -> tuple:
        """Retained output arrays, ``None`` for outputs that were not retained."""
        return self.node.output_data()

    @property
    def local_function_hooks(self) -> Any:
        """Hooks registered on this function only."""
        return self.node.local_function_hooks

    def add_hook(self, hook: Any, name: Optional[str] = None) -> None:
        """Register a :class:`~chainlet.FunctionHook` on this function."""
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        """Unregister the local hook called ``name``."""
        self.node.delete_hook(name)

    def check_type_forward(self, in_types: Any) -> None:
        """Check the inputs with :mod:`chainlet.utils.type_check` (accepts anything by default)."""

    def forward(self, inputs: tuple) -> tuple:
        """Compute the outputs; dispatches to ``forward_cpu`` or ``forward_gpu``."""
        if any(backend.is_cupy_array(x) for x in inputs):
            return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple) -> tuple:
        """Forward on NumPy arrays; implement this or ``forward``."""
        raise TypeError(f'{self.label} implements neither forward nor forward_cpu')

    def forward_gpu(self, inputs: tuple) -> tuple:
        """Forward on CuPy arrays; implement this or ``forward``."""
        raise TypeError(f'{self.label} implements neither forward nor forward_gpu')

    def backward(self, inputs: tuple, grad_outputs: tuple) -> tuple:
        """Gradients of all inputs (arrays or ``None``); dispatches to the CPU or GPU method."""
        if any(backend.is_cupy_array(x) for x in inputs + grad_outputs):
            return self.backward_gpu(inputs, grad_outputs)
        return self.backward_cpu(inputs, grad_outputs)

    def backward_cpu(self, inputs: tuple, grad_outputs: tuple) -> tuple:
        """Backward on NumPy arrays; by default the function is not differentiable."""
        return tuple(None for _ in inputs)

    def backward_gpu(self, inputs: tuple, grad_outputs: tuple) -> tuple:
        """Backward on CuPy arrays; by default the function is not differentiable."""
        return tuple(None for _ in inputs)

    def unchain(self) -> None:
        """Cut the function out of the graph."""
        self.node.unchain()

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Keep only the inputs at ``indexes`` for backward (call it in ``forward``).

        The others reach ``backward`` as ``None``; by default every input is kept.
        """
        self.node.retain_inputs(indexes)

    def retain_outputs(self, indexes: Iterable[int], retain_after_backward: bool = False) -> None:
        """Keep the outputs at ``indexes`` for backward, readable as :attr:`output_data`.

        ``retain_after_backward`` is accepted for old code and has no effect (as in Chainer 7).
        """
        if retain_after_backward:
            warnings.warn('retain_after_backward option has no effect', DeprecationWarning,
                          stacklevel=2)
        self.node.retain_outputs(indexes)
