"""How every ``keras.ops`` function runs: on KerasTensors, chainlet Variables or plain arrays.

Each op is written once, as a function on chainlet Variables (``chainlet.functions``), and
wrapped by :func:`keras_op`, which names the arguments that are tensors and decides per call:

* **symbolic** -- a KerasTensor among the tensor arguments: nothing is computed; an
  :class:`OpLayer` holding the op's name and its other arguments is called on the KerasTensors,
  so it records a Node like any layer and a functional model replays it on data. Output shapes
  and dtypes are found by running the op on two small sample batches (sizes 2 and 3: an axis
  whose size differs is unknown, ``None``).
* **eager** -- arrays, Python numbers and lists are wrapped as Variables that need no gradient,
  the op runs, and the result comes back in the kind it was given: a Variable (part of the
  graph, so gradients flow) when any tensor argument was a Variable, else a plain NumPy/CuPy
  array -- what Keras's NumPy backend returns, so ``numpy.asarray`` and
  ``ops.convert_to_numpy`` work on it. Arrays-only calls build no graph.

Dtypes follow Keras's rules where they differ from chainlet's: Python numbers are weak (they
never widen a tensor's dtype), an integer and a float tensor give the float dtype, and
float-only maths (``exp``, ``mean``, ``sqrt`` ...) on integers gives ``floatx`` (float32).
Integer and boolean maths that chainlet's differentiable functions do not take runs on the
arrays directly (no gradient exists there anyway).
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Optional, overload

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.engine.tree import flatten, map_structure
from chainlet.keras.saving.object_registration import register_keras_serializable

FLOATX = 'float32'

#: Every op by its qualified name (``'numpy.sum'``), used to rebuild an OpLayer from its config.
REGISTRY: dict = {}


# -- value helpers used by the op implementations ------------------------------------------


def is_tensor_like(x: Any) -> bool:
    """True for a Variable, a NumPy/CuPy array or a NumPy scalar."""
    return isinstance(x, (Variable, numpy.generic)) or chainlet.backend.is_array(x)


def array_of(x: Any) -> Any:
    """The array under a Variable (arrays pass)."""
    return x.array if isinstance(x, Variable) else x


def xp_of(*xs: Any) -> Any:
    """NumPy or CuPy, from the arrays or Variables among ``xs``."""
    arrays = [array_of(x) for x in xs if is_tensor_like(x)]
    return chainlet.backend.get_array_module(*arrays) if arrays else numpy


def dtype_of(x: Any) -> numpy.dtype:
    if isinstance(x, Variable):
        return x.dtype
    if isinstance(x, bool):
        return numpy.dtype(bool)
    if isinstance(x, int):
        return numpy.dtype('int32')
    if isinstance(x, float):
        return numpy.dtype(FLOATX)
    return numpy.dtype(x.dtype)


def is_float(x: Any) -> bool:
    return dtype_of(x).kind in 'fc'


def const(value: Any, like: Any = None, dtype: Any = None) -> Variable:
    """A Variable (no gradient) holding ``value`` on the device of ``like``."""
    xp = xp_of(like) if like is not None else numpy
    return Variable(xp.asarray(value, dtype=dtype), requires_grad=False)


def cast(x: Any, dtype: Any) -> Any:
    """``x`` as ``dtype`` (differentiable between float dtypes; a no-op when equal)."""
    dtype = numpy.dtype(dtype)
    if not isinstance(x, Variable):
        return x
    if x.dtype == dtype:
        return x
    if x.dtype.kind == 'f' and dtype.kind == 'f':
        return F.cast(x, dtype)
    return Variable(x.array.astype(dtype), requires_grad=False)


def to_float(x: Any) -> Any:
    """Integers and booleans become ``floatx``; floats pass."""
    return x if is_float(x) else cast(x, FLOATX)


def result_dtype(*xs: Any) -> numpy.dtype:
    """Keras's promotion: Python numbers are weak; any float wins over integers."""
    strong: list = []
    weak: list = []
    for x in xs:
        (weak if isinstance(x, (bool, int, float)) else strong).append(x)
    if not strong:
        return numpy.result_type(*[dtype_of(x) for x in weak])
    dtypes = [dtype_of(x) for x in strong]
    first = dtypes[0]
    if first.kind == 'f' and all(d == first for d in dtypes):
        return first  # the common case: tensors of one float dtype, maybe with numbers
    floats = [d for d in dtypes if d.kind == 'f']
    if floats:
        return max(floats, key=lambda d: d.itemsize)
    if any(isinstance(x, float) for x in weak):
        return numpy.dtype(FLOATX)
    ints = [d for d in dtypes if d.kind != 'b']
    if not ints:
        return numpy.dtype(bool) if not any(type(x) is int for x in weak) \
            else numpy.dtype('int32')
    return numpy.result_type(*ints)


def promote(*xs: Any, floating: bool = False) -> list:
    """Cast the tensors among ``xs`` to their common dtype (``floatx`` or wider when
    ``floating``); Python numbers pass."""
    dtype = result_dtype(*xs)
    if floating and dtype.kind != 'f':
        dtype = numpy.dtype(FLOATX)
    return [cast(x, dtype) if isinstance(x, Variable) else x for x in xs]


# -- the wrapper --------------------------------------------------------------------------


def _default_dtype(value: Any) -> Any:
    leaves = flatten(value) if isinstance(value, (list, tuple)) else [value]
    if any(isinstance(v, float) for v in leaves):
        return FLOATX
    if leaves and all(isinstance(v, bool) for v in leaves):
        return bool
    if any(isinstance(v, int) for v in leaves):
        return 'int32'
    return None


def to_variable(value: Any, xp: Any, keep_scalars: bool) -> Any:
    """Arrays, NumPy scalars and (nested) lists become no-grad Variables on ``xp``."""
    if isinstance(value, Variable) or value is None:
        return value
    if isinstance(value, (bool, int, float)) and keep_scalars:
        return value
    if isinstance(value, (numpy.generic, bool, int, float, list, tuple)):
        if isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in
                                                    flatten(value)):
            return F.stack([to_variable(v, xp, False) for v in value])
        dtype = None if isinstance(value, numpy.generic) else _default_dtype(value)
        return Variable(xp.asarray(value, dtype=dtype), requires_grad=False)
    if chainlet.backend.is_array(value):
        if xp is not numpy and isinstance(value, numpy.ndarray):
            value = xp.asarray(value)  # a host array next to GPU tensors joins them
        return Variable(value, requires_grad=False)
    raise TypeError(f'expected a tensor (array, Variable, number or list), got '
                    f'{type(value).__name__}')


def _wrap_output(value: Any, as_variable: bool) -> Any:
    if isinstance(value, Variable):
        return value if as_variable else value.array
    if isinstance(value, numpy.generic):
        value = numpy.asarray(value)
    if chainlet.backend.is_array(value):
        return Variable(value, requires_grad=False) if as_variable else value
    return value


def keras_op(*tensor_args: str, module: str = 'numpy', name: Optional[str] = None) -> Callable:
    """Decorator: ``impl`` runs on Variables; the result works on KerasTensors and arrays.

    Args:
        tensor_args: Names of the tensor arguments; ``'*xs'`` marks a sequence of tensors.
        module: Keras's module of the op (``numpy``, ``nn``, ``math``, ``core``, ...).
        name: The op's name when it differs from the function's.
    """
    singles = [a for a in tensor_args if not a.startswith('*')]
    sequences = [a[1:] for a in tensor_args if a.startswith('*')]
    names = singles + sequences

    def decorate(impl: Callable) -> Callable:
        signature = inspect.signature(impl)
        op_name = name or impl.__name__.rstrip('_')
        qualified = f'{module}.{op_name}'
        params = list(signature.parameters.values())
        # Fast path for the usual call -- tensors positional, options positional or by keyword,
        # no *args -- which skips ``Signature.bind`` (a third of the overhead of a small op).
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params) and not sequences
        positions = [i for i, p in enumerate(params) if p.name in singles]
        required = sum(p.default is p.empty for p in params)
        options = {p.name for p in params if p.name not in singles}

        def run(call_args: tuple, call_kwargs: dict, given: list, leaves: list) -> Any:
            as_variable = any(isinstance(t, Variable) for t in leaves)
            if as_variable:
                out = impl(*call_args, **call_kwargs)
            else:
                with chainlet.no_backprop_mode():
                    out = impl(*call_args, **call_kwargs)
            return map_structure(lambda v: _wrap_output(v, as_variable), out) \
                if isinstance(out, (list, tuple, dict)) else _wrap_output(out, as_variable)

        @functools.wraps(impl)
        def op(*args: Any, **kwargs: Any) -> Any:
            if plain and required <= len(args) + len(kwargs) <= len(params) and \
                    options.issuperset(kwargs):
                given = [args[i] for i in positions if i < len(args)]
                if not any(isinstance(t, (KerasTensor, list, tuple)) for t in given):
                    xp = xp_of(*given)
                    has_real = any(is_tensor_like(t) for t in given)
                    call_args = list(args)
                    for i in positions:
                        if i < len(args):
                            call_args[i] = to_variable(args[i], xp, has_real)
                    return run(tuple(call_args), kwargs, given, given)
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f'keras.ops.{op_name}: {e}') from None
            arguments = bound.arguments
            given = [arguments[n] for n in names if n in arguments]
            leaves = flatten(given)
            if any(isinstance(t, KerasTensor) for t in leaves):
                return record(qualified, op_name, args, kwargs)
            xp = xp_of(*leaves)
            # A Python number next to a real tensor stays weak (Keras's promotion).
            has_real = any(is_tensor_like(t) or isinstance(t, (list, tuple)) for t in given)
            for n in singles:
                if n in arguments:
                    arguments[n] = to_variable(arguments[n], xp, has_real)
            for n in sequences:
                if n in arguments:
                    arguments[n] = [to_variable(v, xp, has_real) for v in arguments[n]]
            return run(bound.args, bound.kwargs, given, leaves)

        wrapper: Any = op  # functools.wraps's type has no room for these attributes
        wrapper.op_name = op_name
        wrapper.impl = impl
        REGISTRY[qualified] = op
        return op
    return decorate


# -- symbolic calls -------------------------------------------------------------------------


class _Slot:
    """Stands for the i-th KerasTensor argument of a recorded op."""

    __slots__ = ('index',)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f'<tensor {self.index}>'


def record(qualified: str, op_name: str, args: tuple, kwargs: dict) -> Any:
    """Record ``op(*args, **kwargs)`` on its KerasTensors as a Node of an :class:`OpLayer`."""
    tensors: list = []

    def to_slot(v: Any) -> Any:
        if isinstance(v, KerasTensor):
            tensors.append(v)
            return _Slot(len(tensors) - 1)
        return v
    template_args = map_structure(to_slot, list(args))
    template_kwargs = map_structure(to_slot, dict(kwargs))
    layer = OpLayer(qualified, template_args, template_kwargs, name=None, _op_name=op_name)
    return layer(tensors if len(tensors) > 1 else tensors[0])


def _sample(t: KerasTensor, size: int, rng: numpy.random.RandomState) -> Variable:
    """A harmless sample value for shape inference: floats in [0.5, 0.75) (``log``, ``sqrt``
    and friends stay finite), square matrices symmetric positive definite (``inv``,
    ``cholesky``), integers zero (valid indices), booleans False."""
    shape = tuple(size if s is None else s for s in t.shape)
    dtype = numpy.dtype(t.dtype)
    if dtype.kind in 'fc':
        a = 0.5 + 0.25 * rng.random_sample(shape)
        if len(shape) >= 2 and shape[-1] == shape[-2]:
            a = a + numpy.swapaxes(a, -1, -2) + shape[-1] * numpy.eye(shape[-1])
        a = numpy.asarray(a).astype(dtype)
    else:
        a = numpy.zeros(shape, dtype)
    return Variable(a, requires_grad=False)


@register_keras_serializable(package='keras.ops', name='OpLayer')
class OpLayer(Layer):
    """The layer recorded when a ``keras.ops`` function is called on KerasTensors.

    It holds the op's qualified name (``'numpy.sum'``) and its arguments, with the tensor
    positions left open; calling it on real values runs the op. Its config names the op, so
    models using ops save and load.

    Args:
        op: Qualified op name, a key of :data:`REGISTRY`.
        args: Positional arguments; tensors are ``{'__tensor__': i}`` placeholders.
        kwargs: Keyword arguments, the same way.
    """

    def __init__(self, op: str, args: Any = (), kwargs: Any = None, **layer_kwargs: Any) -> None:
        op_name = layer_kwargs.pop('_op_name', None) or op.rsplit('.', 1)[-1]
        if op not in REGISTRY:
            raise ValueError(f'OpLayer: unknown op {op!r}')
        if layer_kwargs.get('name') is None:
            from chainlet.keras.engine.base_layer import unique_name
            layer_kwargs['name'] = unique_name(op_name)
        super().__init__(**layer_kwargs)
        self.op = op
        self.op_args = _restore(list(args))
        self.op_kwargs = _restore(dict(kwargs or {}))

    def _cast_input(self, x: Any) -> Any:
        return x  # ops keep their inputs' dtypes (a layer casts floats to its own dtype)

    def call(self, inputs: Any) -> Any:
        values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]

        def fill(v: Any) -> Any:
            return values[v.index] if isinstance(v, _Slot) else v
        args = map_structure(fill, self.op_args)
        kwargs = map_structure(fill, self.op_kwargs)
        return REGISTRY[self.op](*args, **kwargs)

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        rng = numpy.random.RandomState(0)
        runs = []
        for size in (2, 3):
            sample = map_structure(
                lambda t: _sample(t, size, rng) if isinstance(t, KerasTensor) else t, inputs)
            with chainlet.no_backprop_mode(), numpy.errstate(all='ignore'):
                runs.append(self.call(sample))

        def merge(a: Any, b: Any) -> Any:
            if not is_tensor_like(a):
                return a
            shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
            return KerasTensor(shape, a.dtype)
        merged = iter([merge(a, b) for a, b in zip(flatten(runs[0]), flatten(runs[1]))])
        return map_structure(lambda _: next(merged), runs[0])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(op=self.op, args=_plain(self.op_args), kwargs=_plain(self.op_kwargs))
        return config


def _plain(value: Any) -> Any:
    """JSON-friendly form of op arguments."""
    if isinstance(value, _Slot):
        return {'__tensor__': value.index}
    if isinstance(value, slice):
        return {'__slice__': [value.start, value.stop, value.step]}
    if isinstance(value, tuple):
        return {'__tuple__': [_plain(v) for v in value]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, numpy.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, numpy.generic):
        return numpy.dtype(value).name
    if hasattr(value, 'tolist'):
        return chainlet.backend.to_cpu(array_of(value)).tolist()
    return value


def _restore(value: Any) -> Any:
    if isinstance(value, dict):
        if '__tensor__' in value:
            return _Slot(value['__tensor__'])
        if '__slice__' in value:
            return slice(*value['__slice__'])
        if '__tuple__' in value:
            return tuple(_restore(v) for v in value['__tuple__'])
        return {k: _restore(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v) for v in value]
    return value


def index_grids(xp: Any, shape: tuple) -> list:
    """Open index grids for ``shape`` (``numpy.indices(shape, sparse=True)``, which CuPy
    lacks)."""
    n = len(shape)
    return [xp.arange(size).reshape(tuple(-1 if j == i else 1 for j in range(n)))
            for i, size in enumerate(shape)]


@overload
def axis_tuple(axis: None, ndim: int) -> None: ...


@overload
def axis_tuple(axis: Any, ndim: int) -> tuple: ...


def axis_tuple(axis: Any, ndim: int) -> Optional[tuple]:
    """``None``, an int or a sequence of ints as ``None`` or a tuple of non-negative axes."""
    if axis is None:
        return None
    if isinstance(axis, (int, numpy.integer)):
        axis = (int(axis),)
    return tuple(int(a) % ndim if ndim else int(a) for a in axis)
