"""The ONNX graph under construction: names, nodes, initializers and opset-aware helpers.

Converters (``chainlet.onnx._converters``) only talk to :class:`GraphBuilder`; it hides the
differences between opsets (``ReduceMean``'s axes became an input in opset 18) and tracks which
values depend on a graph input, so that shape arguments can keep the batch dimension dynamic.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy

INT64_MAX = numpy.iinfo(numpy.int64).max
INT64_MIN = numpy.iinfo(numpy.int64).min


class UnsupportedFunctionError(ValueError):
    """A traced function has no ONNX converter (or one of its settings cannot be expressed).

    The message names the function (its ``label`` and class), its input shapes and its place in
    the traced forward pass.
    """


class GraphBuilder:
    """Collects ONNX nodes and initializers for :func:`chainlet.onnx.export`.

    Args:
        onnx: The imported ``onnx`` module.
        opset: The ONNX opset version the nodes are written for.
    """

    def __init__(self, onnx: Any, opset: int) -> None:
        self.onnx = onnx
        self.opset = opset
        self.nodes: list = []
        self.initializers: list = []
        self.dynamic: set[str] = set()  # names whose value depends on a graph input
        self.batch_source: Optional[str] = None  # a graph input whose axis 0 is the batch
        self._counts: dict[str, int] = {}
        self._scalars: dict[tuple, str] = {}
        self._batch: Optional[str] = None
        # function -> the same call in the trace with one more row (None when the second
        # trace did not line up with the first)
        self.twin: Callable[[Any], Any] = lambda f: None

    def twin_shape(self, f: Any, i: int) -> Optional[tuple]:
        """The shape of ``f``'s output ``i`` in the trace with one more row (or ``None``)."""
        twin = self.twin(f)
        node = twin.outputs[i]() if twin is not None and twin.outputs else None
        return None if node is None else tuple(node.shape)

    def fresh(self, hint: str) -> str:
        """A new unique value name starting with ``hint``."""
        n = self._counts.get(hint, 0)
        self._counts[hint] = n + 1
        return f'{hint}_{n}'

    def reserve(self, name: str) -> str:
        """Mark ``name`` as taken (graph inputs, outputs, parameters)."""
        self._counts.setdefault(name, 0)
        return name

    def const(self, value: Any, hint: str = 'Const', name: Optional[str] = None) -> str:
        """Add ``value`` (an array) as an initializer and return its name."""
        array = numpy.array(value, order="C")  # (ascontiguousarray would make 0-d 1-d)
        name = name or self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def scalar(self, value: Any, dtype: Any) -> str:
        """A 0-d constant of ``dtype`` (shared between nodes)."""
        array = numpy.asarray(value, dtype=dtype)
        key = (array.dtype.str, array.tobytes())
        if key not in self._scalars:
            self._scalars[key] = self.const(array, 'Scalar')
        return self._scalars[key]

    def ints(self, values: Sequence[int]) -> str:
        """A 1-d int64 constant (shapes, axes, starts)."""
        return self.const(numpy.asarray(list(values), dtype=numpy.int64), 'Ints')

    def op(self, op_type: str, inputs: Sequence[str], out: Optional[str] = None,
           **attrs: Any) -> str:
        """Append a single-output node and return its output's name."""
        return self.op_multi(op_type, inputs, [out or self.fresh(op_type)], **attrs)[0]

    def op_multi(self, op_type: str, inputs: Sequence[str], outs: Sequence[str],
                 **attrs: Any) -> list[str]:
        """Append a node with the given output names and return them."""
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.onnx.helper.make_node(
            op_type, list(inputs), list(outs), name=self.fresh(f'node_{op_type}'), **attrs))
        if any(i in self.dynamic for i in inputs):
            self.dynamic.update(outs)
        return list(outs)

    # -- opset-aware helpers --

    def reduce(self, op_type: str, x: str, axes: Optional[Sequence[int]], keepdims: bool,
               out: Optional[str] = None) -> str:
        """``ReduceSum``/``ReduceMean``/``ReduceMax``/...; ``axes=None`` reduces every axis."""
        if axes is None:
            return self.op(op_type, [x], out, keepdims=int(keepdims))
        axes = [int(a) for a in axes]
        if op_type == 'ReduceSum' or self.opset >= 18:
            return self.op(op_type, [x, self.ints(axes)], out, keepdims=int(keepdims))
        return self.op(op_type, [x], out, axes=axes, keepdims=int(keepdims))

    def unsqueeze(self, x: str, axes: Sequence[int], out: Optional[str] = None) -> str:
        return self.op('Unsqueeze', [x, self.ints(axes)], out)

    def squeeze(self, x: str, axes: Sequence[int], out: Optional[str] = None) -> str:
        return self.op('Squeeze', [x, self.ints(axes)], out)

    def batch_size(self) -> str:
        """A 1-d int64 value holding the batch size of the graph's first input."""
        if self._batch is None:
            source = self.batch_source
            assert source is not None  # set with the exporter's batch, which callers check
            shape = self.op('Shape', [source])
            self._batch = self.op('Slice', [shape, self.ints([0]), self.ints([1])])
        return self._batch
