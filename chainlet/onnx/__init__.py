"""ONNX export of chainlet models (onnx-chainer's ``export``), checked against onnxruntime.

:func:`export` runs the model once on example inputs with a function hook that records every
:class:`~chainlet.FunctionNode` applied, keeps those the outputs depend on (in the order they ran,
which is a topological order), and maps each to ONNX operators through a table of converters keyed
by the node's class name. Parameters become initializers named after their link paths, other
constants become initializers too (a constant that repeats one row across the traced batch, such
as an RNN's zero initial state, is stored once and expanded to the run's batch size), and axis 0
of every input is the dynamic ``batch`` dimension. Tracing rather than scripting means what is
exported is what ran: Python control flow is unrolled, test-mode semantics come from
``chainlet.using_config('train', False)``.

``onnx`` is an optional dependency (``pip install "chainlet-dl[onnx]"``): importing this package
does not import it; :func:`export` does.

Example:
    >>> import chainlet.onnx
    >>> 'LinearFunction' in chainlet.onnx.supported_functions()
    True
"""
from __future__ import annotations

from chainlet.onnx._converters import CONVERTERS as _CONVERTERS
from chainlet.onnx._export import DEFAULT_OPSET, export
from chainlet.onnx._graph import GraphBuilder, UnsupportedFunctionError

__all__ = ['export', 'supported_functions', 'UnsupportedFunctionError', 'GraphBuilder',
           'DEFAULT_OPSET']


def supported_functions() -> list[str]:
    """The FunctionNode class names :func:`export` converts (sorted).

    Returns:
        A list of class names such as ``'LinearFunction'`` or ``'Convolution2DFunction'``.

    Example:
        >>> from chainlet.onnx import supported_functions
        >>> 'LSTM' in supported_functions() and 'ReLU' in supported_functions()
        True
    """
    return sorted(_CONVERTERS)
