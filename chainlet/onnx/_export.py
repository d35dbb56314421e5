"""Tracing a forward pass and assembling the ONNX model (see :func:`chainlet.onnx.export`)."""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

import numpy

import chainlet
from chainlet.function_hooks.function_hook import FunctionHook
from chainlet.onnx._converters import CONVERTERS
from chainlet.onnx._graph import GraphBuilder, UnsupportedFunctionError
from chainlet.serializers import atomic_path

#: The opset written when ``opset_version`` is not given: the oldest one the exporter targets,
#: so the files load in the widest range of runtimes.
DEFAULT_OPSET = 17
MIN_OPSET = 17


def _import_onnx() -> Any:
    try:
        import onnx
        import onnx.checker
        import onnx.helper
        import onnx.numpy_helper  # noqa: F401  (the submodules the builder uses)
    except ImportError as e:
        raise ImportError('chainlet.onnx.export needs the onnx package: '
                          'pip install "chainlet-dl[onnx]"') from e
    return onnx


class _Recorder(FunctionHook):
    """Records every applied function with its input arrays, in the order they ran."""

    name = 'chainlet.onnx.export'

    def __init__(self) -> None:
        self.calls: list = []

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        self.calls.append((function, in_data))


def _to_numpy(array: Any) -> numpy.ndarray:
    if hasattr(array, 'get') and not isinstance(array, numpy.ndarray):
        array = array.get()  # CuPy
    return numpy.asarray(array)


def _as_variable(value: Any, what: str) -> chainlet.Variable:
    if isinstance(value, chainlet.Variable):
        return value
    if isinstance(value, (numpy.ndarray, numpy.generic, int, float)) \
            or hasattr(value, '__array__') or hasattr(value, 'get'):
        array = value if hasattr(value, 'shape') and not isinstance(value, numpy.generic) \
            else numpy.asarray(value)
        return chainlet.Variable(array)
    raise TypeError(f'chainlet.onnx.export: argument {what}: expected an array or a Variable, '
                    f'got {type(value).__name__}')


def _names(given: Any, defaults: list[str], what: str) -> list[str]:
    if given is None:
        return defaults
    if isinstance(given, str):
        given = [given]
    if isinstance(given, dict):
        return [given.get(d, d) for d in defaults]
    given = list(given)
    if len(given) != len(defaults):
        raise ValueError(f'chainlet.onnx.export: argument {what}: expected {len(defaults)} '
                         f'names, got {len(given)}')
    if len(set(given)) != len(given):
        raise ValueError(f'chainlet.onnx.export: argument {what}: names must be unique, '
                         f'got {given}')
    return [str(n) for n in given]


def _describe_source(node: Any, names: dict) -> str:
    creator = node.creator_node
    if creator is not None:
        return creator.label
    name = names.get(id(node))
    return f'{name}' if name else 'a constant'


class _Exporter:
    """One export: the traced calls, the builder, and the names given to VariableNodes."""

    def __init__(self, onnx: Any, opset: int, model: Any, export_params: bool,
                 external_converters: Optional[dict]) -> None:
        self.g = GraphBuilder(onnx, opset)
        self.onnx = onnx
        self.export_params = export_params
        self.converters = dict(CONVERTERS)
        self.converters.update(external_converters or {})
        self.names: dict[int, str] = {}
        self.inputs_by_array: dict[int, str] = {}
        self.param_names: dict[int, tuple] = {}
        self.param_inputs: list = []
        self.batch: Optional[int] = None
        self.twins: dict[int, tuple] = {}  # id(f) -> (f, in_data) of the second trace
        self.persistent_names: dict[int, str] = {}
        if hasattr(model, 'namedlinks'):  # running statistics and other persistent arrays
            for path, link in model.namedlinks():
                for attr in getattr(link, '_persistent', ()):
                    value = getattr(link, attr, None)
                    if hasattr(value, 'shape'):
                        name = f'{path.strip("/")}_{attr}'.strip('_').replace('/', '_')
                        self.persistent_names[id(value)] = name
        if hasattr(model, 'namedparams'):
            for path, param in model.namedparams():
                name = path.strip('/').replace('/', '_') or 'param'
                self.param_names[id(param.node)] = (self.g.reserve(name), param)

    def add_input(self, var: chainlet.Variable, name: str) -> None:
        self.names[id(var.node)] = self.g.reserve(name)
        self.inputs_by_array[id(var.array)] = name
        self.g.dynamic.add(name)
        if self.g.batch_source is None and var.ndim >= 1:
            self.g.batch_source, self.batch = name, var.shape[0]

    def _parameter(self, node: Any, param: Any, name: Optional[str]) -> str:
        name = name or self.g.fresh('param')
        array = _to_numpy(param.array)
        if self.export_params:
            self.g.const(array, name=name)
        else:
            self.param_inputs.append(self.onnx.helper.make_tensor_value_info(
                name, self.onnx.helper.np_dtype_to_tensor_dtype(array.dtype), array.shape))
        return name

    def _constant(self, data: Any, twin: Any) -> str:
        array = _to_numpy(data)
        b = self.batch
        # A constant made for the batch (an RNN's zero initial state, a mask of ones) grows with
        # it in the second trace; if it repeats one row, store the row and expand it to the
        # run's batch size.
        if twin is not None and b is not None and array.ndim >= 1 and array.shape[0] == b \
                and tuple(twin.shape) == (b + 1,) + array.shape[1:] \
                and (array == array[:1]).all():
            row = self.g.const(array[:1], 'Constant')
            shape = self.g.op('Concat', [self.g.batch_size(), self.g.ints(array.shape[1:])],
                              axis=0)
            self.g.dynamic.add(shape)
            return self.g.op('Expand', [row, shape])
        name = self.persistent_names.get(id(data))
        if name is not None and name not in self.g._counts:
            return self.g.const(array, name=self.g.reserve(name))
        return self.g.const(array, 'Constant')

    def value(self, node: Any, data: Any, recorded: set, twin: Any = None) -> str:
        """The ONNX name of a function's input, adding an initializer or input if needed."""
        key = id(node)
        if key in self.names:
            return self.names[key]
        if id(data) in self.inputs_by_array:  # the model wrapped an input array again
            name = self.inputs_by_array[id(data)]
        elif key in self.param_names:
            name = self._parameter(node, *reversed(self.param_names[key]))
        elif isinstance(node.get_variable_or_none(), chainlet.Parameter):
            name = self._parameter(node, node.get_variable_or_none(), None)
        elif node.creator_node is None or id(node.creator_node) not in recorded:
            name = self._constant(data, twin)
        else:
            raise RuntimeError(f'chainlet.onnx.export: internal error: the value {node.label} '
                               f'is used before {node.creator_node.label} produced it')
        self.names[key] = name
        return name

    def convert(self, f: Any, in_data: tuple, position: int, total: int, recorded: set,
                out_names: dict) -> None:
        cls = type(f).__name__
        twin = self.twins.get(id(f))
        twin_data = twin[1] if twin is not None else (None,) * len(in_data)
        ins = [self.value(node, data, recorded, t)
               for node, data, t in zip(f.inputs, in_data, twin_data)]
        outs = []
        for ref in f.outputs:
            node = ref()
            name = out_names.pop(id(node), None) if node is not None else None
            name = name or self.g.fresh(type(f).__name__)
            if node is not None:
                self.names[id(node)] = name
            outs.append(name)
        cls = type(f).__name__
        conv = self.converters.get(cls)
        where = (f'function {position + 1} of {total} in the traced forward pass, applied to '
                 f'inputs of shapes {[tuple(n.shape) for n in f.inputs]} (from '
                 f'{", ".join(_describe_source(n, self.names) for n in f.inputs)})')
        stack = getattr(f, 'stack', None)
        if stack:
            frame = stack[-1]
            where += f', at {frame.filename}:{frame.lineno}'
        if conv is None:
            raise UnsupportedFunctionError(
                f'chainlet.onnx.export: no ONNX converter for {f.label} '
                f'({type(f).__module__}.{cls}), {where}; see chainlet.onnx.supported_functions() '
                f"or pass external_converters={{'{cls}': converter}}")
        try:
            conv(self.g, f, ins, outs)
        except UnsupportedFunctionError as e:
            raise UnsupportedFunctionError(f'chainlet.onnx.export: {e} ({where})') from None


def _grown(variables: list) -> list:
    """The inputs with one more row (a copy of the first) on axis 0."""
    grown = []
    for v in variables:
        a = v.array
        if v.ndim >= 1 and v.shape[0] >= 1:
            xp = chainlet.backend.get_array_module(a)
            a = xp.concatenate([a, a[:1]])
        grown.append(chainlet.Variable(a))
    return grown


def _trace(model: Any, args: Any, keys: list, variables: list, train: bool) -> tuple:
    """Run the model once under the recorder: ``(result, [(function, in_data), ...])``."""
    recorder = _Recorder()
    with chainlet.using_config('train', train), chainlet.using_config('enable_backprop', True):
        with recorder:
            result = model(**dict(zip(keys, variables))) if isinstance(args, dict) \
                else model(*variables)
    return result, recorder.calls


def _value_info(onnx: Any, name: str, var: chainlet.Variable, batch_dim: bool) -> Any:
    dims: list = list(var.shape)
    if batch_dim and dims:
        dims[0] = 'batch'
    return onnx.helper.make_tensor_value_info(
        name, onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(var.dtype)), dims)


def export(model: Any, args: Any, filename: Union[None, str, os.PathLike, Any] = None,
           export_params: bool = True, graph_name: str = 'Graph', save_text: bool = False,
           opset_version: Optional[int] = None, train: bool = False,
           return_named_inout: bool = False, external_converters: Optional[dict] = None,
           external_opset_imports: Optional[dict] = None,
           input_names: Union[None, str, Sequence[str], dict] = None,
           output_names: Union[None, str, Sequence[str], dict] = None) -> Any:
    """Export a model to ONNX by tracing one forward pass (onnx-chainer's signature).

    The model runs once on ``args`` under ``chainlet.using_config('train', train)`` (so dropout
    is off and batch normalization uses its running statistics by default); every function that
    ran on the way to the outputs is mapped to ONNX operators, the model's parameters become
    initializers, and axis 0 of every input is a dynamic ``batch`` dimension.

    Args:
        model: A callable: a :class:`~chainlet.Chain`, :class:`~chainlet.Sequential`, a Keras
            model, or any function of Variables. Its parameters (from ``namedparams()`` when it
            has one) are named after their paths (``/l1/W`` becomes ``l1_W``).
        args: The example input: an array or Variable, a tuple/list of them (positional
            arguments), or a dict (keyword arguments, whose keys become the input names).
        filename: Where to write the ``.onnx`` file (a path, written atomically, or a binary
            file object); ``None`` writes nothing.
        export_params: Store the parameters as initializers; ``False`` makes them graph inputs.
        graph_name: The ONNX graph's name.
        save_text: Also write the model as text to ``filename + '.txt'``.
        opset_version: The ONNX opset (17 or later; default :data:`DEFAULT_OPSET`).
        train: Trace in training mode (``chainlet.config.train``).
        return_named_inout: Return ``(model, inputs, outputs)``, the last two dicts from ONNX
            names to the traced Variables.
        external_converters: ``{FunctionNode class name: converter}``; a converter is
            ``converter(g, f, ins, outs)`` writing nodes through ``g.op(...)`` (see
            ``chainlet/onnx/_converters.py``); it overrides the built-in one of that name.
        external_opset_imports: ``{domain: version}`` for custom operator domains the external
            converters use.
        input_names: Names of the graph inputs (default ``Input_0``, ``Input_1``, ...); a dict
            renames some of the defaults.
        output_names: Names of the graph outputs (default ``Output_0``, ...).

    Returns:
        The ``onnx.ModelProto`` (checked with ``onnx.checker.check_model``), or
        ``(model, inputs, outputs)`` with ``return_named_inout``.

    Raises:
        ImportError: ``onnx`` is not installed (``pip install "chainlet-dl[onnx]"``).
        chainlet.onnx.UnsupportedFunctionError: A function that ran has no converter; the
            message names it, its input shapes and where in the graph it was applied.

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L, chainlet.functions as F
        >>> from chainlet import onnx as chainlet_onnx
        >>> model = chainlet.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))
        >>> proto = chainlet_onnx.export(model, np.zeros((5, 3), np.float32))  # doctest: +SKIP
        >>> [n.op_type for n in proto.graph.node]  # doctest: +SKIP
        ['Gemm', 'Relu', 'Gemm']
    """
    onnx = _import_onnx()
    opset = DEFAULT_OPSET if opset_version is None else int(opset_version)
    newest = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset <= newest:
        raise ValueError(f'chainlet.onnx.export: argument opset_version: expected {MIN_OPSET} to '
                         f'{newest} (the installed onnx package), got {opset_version}')
    if isinstance(args, dict):
        keys = [str(k) for k in args]
        variables = [_as_variable(v, f'args[{k!r}]') for k, v in args.items()]
    else:
        items = list(args) if isinstance(args, (tuple, list)) else [args]
        keys = [f'Input_{i}' for i in range(len(items))]
        variables = [_as_variable(v, f'args[{i}]') for i, v in enumerate(items)]
    in_names = _names(input_names, keys, 'input_names')

    # Trace once with the batch grown by one row and once as given: what changes between the
    # two (constants' shapes, reshape targets) depends on the batch and is exported as dynamic.
    twin_calls = None
    if any(v.ndim >= 1 for v in variables):
        try:
            twin_calls = _trace(model, args, keys, _grown(variables), train)[1]
        except Exception:  # a model written for one batch size: export that size as traced
            twin_calls = None
    result, calls_made = _trace(model, args, keys, variables, train)
    if isinstance(result, dict):
        out_keys, outputs = [str(k) for k in result], list(result.values())
    else:
        outputs = list(result) if isinstance(result, (tuple, list)) else [result]
        out_keys = [f'Output_{i}' for i in range(len(outputs))]
    for i, y in enumerate(outputs):
        if not isinstance(y, chainlet.Variable):
            raise TypeError(f'chainlet.onnx.export: the model returned {type(y).__name__} as '
                            f'output {i}; expected Variables (outputs of chainlet functions)')
    out_names = _names(output_names, out_keys, 'output_names')
    if set(out_names) & set(in_names):
        raise ValueError(f'chainlet.onnx.export: input and output names overlap: '
                         f'{sorted(set(out_names) & set(in_names))}')

    ex = _Exporter(onnx, opset, model, export_params, external_converters)
    for var, name in zip(variables, in_names):
        ex.add_input(var, name)
    input_nodes = {id(v.node) for v in variables}
    needed: set[int] = set()
    stack = [y.node for y in outputs]
    while stack:
        node = stack.pop()
        f = node.creator_node
        if f is None or id(node) in input_nodes or id(f) in needed:
            continue
        needed.add(id(f))
        stack.extend(f.inputs)
    if twin_calls is not None and len(twin_calls) == len(calls_made) and all(
            type(f1) is type(f2) and len(f1.inputs or ()) == len(f2.inputs or ())
            for (f1, _), (f2, _) in zip(calls_made, twin_calls)):
        ex.twins = {id(f1): c2 for (f1, _), c2 in zip(calls_made, twin_calls)}
        ex.g.twin = lambda f: ex.twins[id(f)][0] if id(f) in ex.twins else None
    calls = [(f, d) for f, d in calls_made if id(f) in needed]
    recorded = {id(f) for f, _ in calls}
    pending: dict[int, str] = {}  # id of an output's node -> the output's name
    for y, name in zip(outputs, out_names):
        ex.g.reserve(name)
        if id(y.node) not in input_nodes:
            pending.setdefault(id(y.node), name)
    for position, (f, in_data) in enumerate(calls):
        ex.convert(f, in_data, position, len(calls), recorded, pending)
    for y, name in zip(outputs, out_names):
        produced = ex.names.get(id(y.node))
        if produced is None:  # an output that no traced function made: a constant or parameter
            produced = ex.value(y.node, y.array, recorded)
        if produced != name:
            ex.g.op('Identity', [produced], name)

    graph_inputs = [_value_info(onnx, n, v, v.ndim >= 1) for n, v in zip(in_names, variables)]
    graph_outputs = [_value_info(onnx, n, y, n in ex.g.dynamic and y.ndim >= 1
                                 and y.shape[0] == ex.batch) for n, y in zip(out_names, outputs)]
    graph = onnx.helper.make_graph(ex.g.nodes, graph_name, graph_inputs + ex.param_inputs,
                                   graph_outputs, initializer=ex.g.initializers)
    opsets = [onnx.helper.make_opsetid('', opset)]
    opsets += [onnx.helper.make_opsetid(domain, int(version))
               for domain, version in (external_opset_imports or {}).items()]
    proto = onnx.helper.make_model(graph, opset_imports=opsets, producer_name='chainlet',
                                   producer_version=chainlet.__version__)
    proto.ir_version = onnx.helper.find_min_ir_version_for(opsets, ignore_unknown=True)
    onnx.checker.check_model(proto)

    if filename is not None:
        if hasattr(filename, 'write'):
            filename.write(proto.SerializeToString())
        else:
            with atomic_path(filename) as tmp:
                with open(tmp, 'wb') as fh:
                    fh.write(proto.SerializeToString())
            if save_text:
                with atomic_path(os.fspath(filename) + '.txt') as tmp:
                    with open(tmp, 'w', encoding='utf-8') as fh:
                        fh.write(str(proto))
    if return_named_inout:
        return proto, dict(zip(in_names, variables)), dict(zip(out_names, outputs))
    return proto
