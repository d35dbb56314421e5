"""The Keras-style ``Layer``: a chainlet ``Link`` that can also be called on symbolic tensors.

``Layer.__call__`` decides once whether its inputs are symbolic:

* **symbolic** (``KerasTensor``): build the layer from the input shapes if needed, infer the output
  shapes (``compute_output_shape``, or by running ``call`` on small zero batches of two sizes in
  no-backprop mode), and record a :class:`~chainlet.keras.engine.node.Node`;
* **eager** (arrays or Variables): run ``call`` define-by-run and return Variables, so a layer
  can be used inside an ordinary chainlet training loop.

Weights are chainlet :class:`~chainlet.Parameter` objects made by :meth:`Layer.add_weight`.
"""
from __future__ import annotations

import collections
import inspect
import re
import threading
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar, Union, cast

import numpy

import chainlet
import chainlet.functions as F
from chainlet import Chain, Link, Parameter, Variable
from chainlet.keras import config
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.engine.node import Node
from chainlet.keras.engine.tree import flatten, map_structure
from chainlet.link_hook import any_link_hooks_registered, get_link_hooks

if TYPE_CHECKING:
    from chainlet.keras.engine.variables import KerasVariable

_name_counts: collections.Counter = collections.Counter()
_name_lock = threading.Lock()


def to_snake_case(name: str) -> str:
    """``Conv2DTranspose`` -> ``conv2d_transpose``."""
    s = re.sub(r'(.)([A-Z][a-z]+)', r'\1_\2', name)
    return re.sub(r'([a-z])([A-Z])', r'\1_\2', s).lower()


def unique_name(base: str) -> str:
    """``dense``, then ``dense_1``, ``dense_2``... (unique in this process)."""
    with _name_lock:
        n = _name_counts[base]
        _name_counts[base] += 1
    return base if n == 0 else f'{base}_{n}'


def reset_name_counts() -> None:
    """Restart automatic layer numbering (``keras.backend.clear_session`` calls this)."""
    with _name_lock:
        _name_counts.clear()


class _CallContext(threading.local):
    """The ``training`` flag and the losses of the outermost layer call in progress."""

    def __init__(self) -> None:
        self.depth = 0
        self.training: Optional[bool] = None


_call_context = _CallContext()

_SIGNATURES: dict = {}

_LayerT = TypeVar('_LayerT', bound='Layer')


def _call_accepts(cls: type[Layer], name: str) -> bool:
    key = (cls, name)
    if key not in _SIGNATURES:
        params = inspect.signature(cls.call).parameters
        _SIGNATURES[key] = name in params or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return _SIGNATURES[key]


def _call_has_mask(cls: type[Layer]) -> bool:
    """Whether ``call`` names a ``mask`` parameter (Keras passes masks only then, not through
    ``**kwargs``)."""
    key = (cls, '<mask>')
    if key not in _SIGNATURES:
        _SIGNATURES[key] = 'mask' in inspect.signature(cls.call).parameters
    return _SIGNATURES[key]


def _shape_of(x: Any) -> tuple:
    return tuple(x.shape)


def _dtype_of(x: Any) -> Any:
    return x.dtype


class LayerHookArgs:
    """What a link hook's ``forward_preprocess``/``forward_postprocess`` receives for a Keras
    layer: the fields of chainlet's hook arguments.

    Attributes:
        link: The layer being called.
        forward_name: ``'forward'`` (the hook contract's name of the call).
        args: Positional arguments of the call (a tuple: the inputs first).
        kwargs: Keyword arguments of the call (a dict, ``training`` included if given).
        out: The layer's outputs (``None`` in ``forward_preprocess``).
    """

    __slots__ = ('link', 'forward_name', 'args', 'kwargs', 'out')

    def __init__(self, link: Any, args: tuple, kwargs: dict, out: Any = None) -> None:
        self.link = link
        self.forward_name = 'forward'
        self.args = args
        self.kwargs = kwargs
        self.out = out


class Layer(Chain):
    """Base class of Keras layers.

    Args:
        trainable: Whether the layer's weights are updated by training.
        name: Name (unique within a model); automatic (``dense``, ``dense_1``...) when ``None``.
        dtype: Dtype of the weights and computations (``'float32'`` by default); floating inputs
            of another dtype are cast to it.
        input_shape: Shape without the batch dimension; lets a ``Sequential`` build at once.
        batch_input_shape, batch_size, input_dim: Other ways to give the input shape.
        activity_regularizer: Regularizer applied to the output (added to ``losses``).

    Subclasses implement ``build(input_shape)`` (create weights with :meth:`add_weight`),
    ``call(inputs, training=None)`` and optionally ``compute_output_shape(input_shape)`` and
    ``get_config()``.
    """

    # Set in __init__ through __dict__ (bypassing __setattr__'s tracking); declared for mypy.
    name: str
    built: bool
    _trainable: bool
    _inbound_nodes: list
    _outbound_nodes: list
    _weights: list
    _non_trainable_ids: set
    _weight_regularizers: list
    _call_losses: list
    _sublayers: collections.OrderedDict
    # None (no check), an InputSpec, or one per input (a None entry skips that input).
    input_spec: Optional[Union[InputSpec, list[Optional[InputSpec]],
                               tuple[Optional[InputSpec], ...]]]
    _dtype: str
    _batch_input_shape: Optional[tuple]
    activity_regularizer: Optional[Callable[[Any], Any]]

    def __new__(cls: type[_LayerT], *args: Any, **kwargs: Any) -> _LayerT:
        # Keras 3's auto-config: the constructor arguments, kept when they are all plain data,
        # let a custom layer or model without get_config be saved and rebuilt.
        instance = super().__new__(cls)
        instance.__dict__['_auto_config'] = _auto_config(cls, args, kwargs)
        return instance

    def __init__(self, trainable: bool = True, name: Optional[str] = None, dtype: Any = None,
                 input_shape: Any = None, batch_input_shape: Any = None,
                 batch_size: Optional[int] = None, input_dim: Optional[int] = None,
                 activity_regularizer: Any = None, **kwargs: Any) -> None:
        kwargs.pop('autocast', None)
        if kwargs:
            raise TypeError(f'{type(self).__name__}: unexpected keyword argument(s) '
                            f'{sorted(kwargs)}')
        super().__init__()
        d = self.__dict__
        d['name'] = name or unique_name(to_snake_case(type(self).__name__))
        d['_trainable'] = bool(trainable)
        d['built'] = False
        d['_inbound_nodes'] = []
        d['_outbound_nodes'] = []
        d['_weights'] = []
        d['_non_trainable_ids'] = set()
        d['_weight_regularizers'] = []
        d['_call_losses'] = []
        d['_sublayers'] = collections.OrderedDict()
        d['input_spec'] = None
        d['_dtype'] = config.layer_dtype(dtype)
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        d['_batch_input_shape'] = None if batch_input_shape is None else tuple(batch_input_shape)
        from chainlet.keras import regularizers
        d['activity_regularizer'] = regularizers.get(activity_regularizer)

    # -- attribute tracking: layers and parameters are registered when assigned --

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        if '_sublayers' in d and not name.startswith('_'):
            if isinstance(value, Link):
                d['_sublayers'][name] = value
            elif isinstance(value, (list, tuple)) and value and \
                    all(isinstance(v, Link) for v in value):
                for i, v in enumerate(value):
                    d['_sublayers'][f'{name}.{i}'] = v
            elif name in d['_sublayers']:
                del d['_sublayers'][name]
        if isinstance(value, Parameter) and '_params' in d and name not in d['_params']:
            d['_params'].add(name)
            if getattr(value, '_owner', False) is None and '_weights' in d:
                # A free keras.Variable assigned to a layer becomes one of its weights (only a
                # KerasVariable has an ``_owner``).
                variable = cast('KerasVariable', value)
                d['_weights'].append(variable)
                variable._attach(self)
                if not variable.trainable:
                    d['_non_trainable_ids'].add(id(variable))
        object.__setattr__(self, name, value)

    def _child_items(self):
        seen = set()
        for name, layer in self.__dict__.get('_sublayers', {}).items():
            if id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    # -- properties --

    @property
    def dtype(self) -> str:
        """The layer's compute and weight dtype name."""
        return self._dtype

    # Keras 3 splits the dtype into a policy's compute and variable dtypes; a chainlet layer
    # computes in the dtype of its weights, so all of them name the same dtype.
    @property
    def compute_dtype(self) -> str:
        return self._dtype

    @property
    def variable_dtype(self) -> str:
        return self._dtype

    @property
    def input_dtype(self) -> str:
        """The dtype floating inputs are cast to."""
        return self._dtype

    @property
    def dtype_policy(self) -> Any:
        """The layer's :class:`~chainlet.keras.config.DTypePolicy`."""
        return config.DTypePolicy(self._dtype)

    @property
    def metrics(self) -> list:
        """The metric objects held as attributes of this layer and of its sublayers (Keras
        tracks them the same way; update them in ``call``)."""
        from chainlet.keras.metrics import Metric
        found: list = []
        for layer in self._flatten_layers():
            found += [v for v in vars(layer).values()
                      if isinstance(v, Metric) and not any(v is f for f in found)]
        return found

    @property
    def path(self) -> str:
        """The layer's name (Keras's path of nested name scopes; chainlet keeps none)."""
        return self.name

    @property
    def trainable(self) -> bool:
        """Whether training updates this layer's weights (also sets it on sublayers)."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        for layer in self._flatten_layers():
            layer.__dict__['_trainable'] = bool(value)

    def _flatten_layers(self, include_self: bool = True) -> list:
        """This layer and every Keras layer below it, each once."""
        out, seen = [], set()
        stack = [self] if include_self else [c for _, c in self._child_items()]
        while stack:
            layer = stack.pop(0)
            if id(layer) in seen or not isinstance(layer, Layer):
                continue
            seen.add(id(layer))
            out.append(layer)
            stack.extend(c for _, c in layer._child_items())
        return out

    def _weights_with_flags(self) -> list:
        """``(parameter, trainable)`` pairs in Keras 3's weight order: a layer's own weights in
        creation order (and the parameters of plain links it wraps), then each sublayer's,
        depth first. Freezing a layer changes the flags, never the order, so that
        ``get_weights``/``set_weights`` lists stay aligned across ``trainable`` changes."""
        out, seen_params, seen_layers = [], set(), set()
        stack = [self]
        while stack:
            layer = stack.pop()
            if id(layer) in seen_layers:
                continue
            seen_layers.add(id(layer))
            pairs = [(p, layer._trainable and id(p) not in layer._non_trainable_ids)
                     for p in layer._weights]
            children = []
            for _, child in layer._child_items():
                if isinstance(child, Layer):
                    children.append(child)
                else:  # a plain chainlet link wrapped in a layer
                    pairs.extend((p, layer._trainable) for p in child.params())
            for p, flag in pairs:
                if id(p) not in seen_params:
                    seen_params.add(id(p))
                    out.append((p, flag))
            stack.extend(reversed(children))
        return out

    def _own_weights(self, trainable: Optional[bool]) -> list:
        out = []
        for p in self._weights:
            is_trainable = self._trainable and id(p) not in self._non_trainable_ids
            if trainable is None or trainable == is_trainable:
                out.append(p)
        return out

    def _collect_weights(self, trainable: Optional[bool]) -> list:
        return [p for p, flag in self._weights_with_flags()
                if trainable is None or flag == trainable]

    @property
    def trainable_weights(self) -> list:
        """Parameters updated by training (empty when ``trainable`` is False)."""
        return self._collect_weights(True)

    @property
    def non_trainable_weights(self) -> list:
        """Parameters not updated by gradient descent (frozen, or state like moving means)."""
        return self._collect_weights(False)

    @property
    def weights(self) -> list:
        """All weights in Keras 3's order: each layer's own in creation order, then its
        sublayers' depth first; the order does not depend on which are trainable."""
        return self._collect_weights(None)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    # -- weights --

    _WEIGHT_ARGS_KERAS3 = ('shape', 'initializer', 'dtype', 'trainable', 'autocast',
                           'regularizer', 'constraint', 'aggregation', 'name')
    _WEIGHT_ARGS_KERAS2 = ('name', 'shape', 'dtype', 'initializer', 'regularizer', 'trainable',
                           'constraint')

    def add_variable(self, shape: Any, initializer: Any, dtype: Any = None,
                     trainable: bool = True, autocast: bool = True, regularizer: Any = None,
                     constraint: Any = None, name: Optional[str] = None) -> Parameter:
        """Keras 3's other name of :meth:`add_weight` (shape and initializer required)."""
        return self.add_weight(shape=shape, initializer=initializer, dtype=dtype,
                               trainable=trainable, regularizer=regularizer,
                               constraint=constraint, name=name)

    def add_weight(self, *args: Any, **kwargs: Any) -> Parameter:
        """Create a weight (a :class:`~chainlet.keras.Variable`, i.e. a chainlet Parameter with
        Keras's variable API) and register it on this layer.

        Keras 3's signature: ``add_weight(shape=None, initializer=None, dtype=None,
        trainable=True, autocast=True, regularizer=None, constraint=None, aggregation='none',
        name=None)``. A string as the first positional argument selects Keras 2's order
        (``add_weight('kernel', shape, dtype, initializer, regularizer, trainable,
        constraint)``).

        Args:
            shape: Shape of the weight.
            name: Weight name (``kernel``, ``bias``, ...), unique within the layer.
            dtype: Dtype (the layer's by default).
            initializer: Keras initializer name or object (``'glorot_uniform'`` by default for
                floats), or a chainlet initializer.
            regularizer: Keras regularizer name or object; its penalty joins ``losses``.
            trainable: False for state such as moving statistics.
            constraint: Callable applied to the array after each optimizer update.
            autocast, aggregation, synchronization: Accepted for compatibility.
        """
        order = self._WEIGHT_ARGS_KERAS2 if args and isinstance(args[0], str) else \
            self._WEIGHT_ARGS_KERAS3
        if len(args) > len(order):
            raise TypeError(f'Layer "{self.name}".add_weight: at most {len(order)} positional '
                            f'arguments, got {len(args)}')
        for key, value in zip(order, args):
            if key in kwargs:
                raise TypeError(f'Layer "{self.name}".add_weight: got multiple values for '
                                f'argument {key!r}')
            kwargs[key] = value
        for ignored in ('autocast', 'aggregation', 'synchronization', 'overwrite_with_gradient',
                        'use_resource', 'partitioner', 'caching_device'):
            kwargs.pop(ignored, None)
        allowed = {'shape', 'initializer', 'dtype', 'trainable', 'regularizer', 'constraint',
                   'name'}
        unknown = sorted(set(kwargs) - allowed)
        if unknown:
            raise TypeError(f'Layer "{self.name}".add_weight: unexpected keyword argument(s) '
                            f'{unknown}')
        return self._add_weight(**kwargs)

    def _add_weight(self, shape: Any = None, initializer: Any = None, dtype: Any = None,
                    trainable: bool = True, regularizer: Any = None, constraint: Any = None,
                    name: Optional[str] = None) -> Parameter:
        from chainlet.keras import initializers, regularizers
        from chainlet.keras.engine.variables import KerasVariable
        dtype = numpy.dtype(dtype or self._dtype)
        if initializer is None:
            initializer = 'glorot_uniform' if dtype.kind == 'f' else 'zeros'
        init = initializers.get(initializer)
        shape = () if shape is None else (int(shape),) if isinstance(shape, (int, numpy.integer)) \
            else tuple(int(s) for s in shape)
        array = numpy.empty(shape, dtype)
        init(array)
        param = KerasVariable(array, dtype=dtype, trainable=trainable)
        base = name or 'variable'
        attr, k = base, 1
        # An attribute set to None beforehand (``self.bias = None``) is a slot, not a clash.
        while self.__dict__.get(attr) is not None:
            attr, k = f'{base}_{k}', k + 1
        param.name = attr
        param._attach(self)
        setattr(self, attr, param)
        if self._gpu_id >= 0:
            param.to_gpu(self._gpu_id)
        self._weights.append(param)
        if not trainable:
            self._non_trainable_ids.add(id(param))
        reg = regularizers.get(regularizer)
        if reg is not None:
            self._weight_regularizers.append((param, reg))
        if constraint is not None:
            from chainlet.keras import constraints
            # Constraints are applied by the trainer after each optimizer update.
            self.__dict__.setdefault('_constraints', []).append(
                (param, constraints.get(constraint)))
        return param

    def get_weights(self) -> list:
        """Weights as NumPy arrays, in :attr:`weights` order."""
        return [chainlet.backend.to_cpu(p.array).copy() for p in self.weights]

    def set_weights(self, weights: list) -> None:
        """Set weights from arrays in :attr:`weights` order (shapes must match)."""
        params = self.weights
        if len(weights) != len(params):
            raise ValueError(f'Layer "{self.name}": set_weights expected a list of '
                             f'{len(params)} arrays, got {len(weights)}')
        for p, w in zip(params, weights):
            w = numpy.asarray(w)
            if tuple(w.shape) != tuple(p.shape):
                raise ValueError(f'Layer "{self.name}": weight {p.name} has shape {p.shape}, '
                                 f'the provided array has shape {w.shape}')
            chainlet.backend.copyto(p.array, w.astype(p.dtype))

    # -- losses --

    def add_loss(self, loss: Any) -> None:
        """Add a loss (a scalar Variable or array) produced during the current call."""
        self._call_losses.append(loss)

    @property
    def losses(self) -> list:
        """Losses of the last call (``add_loss``, activity regularizers) and weight penalties,
        for this layer and all sublayers."""
        out = []
        for layer in self._flatten_layers():
            out.extend(layer._call_losses)
            for param, reg in layer._weight_regularizers:
                out.append(reg(param))
        return out

    # -- build and shape inference --

    def build(self, input_shape: Any) -> None:
        """Create the weights from the input shape (``None`` batch dimension)."""
        self.__dict__.setdefault('_build_input_shape', input_shape)
        self.built = True

    def _maybe_build(self, input_shape: Any) -> None:
        if not self.built:
            self.build(input_shape)
            self.built = True

    def _note_build_shape(self, input_shape: Any) -> Any:
        # The shape of the first call is what get_build_config reports (Keras's build_config).
        if not self.built and '_build_input_shape' not in self.__dict__:
            self.__dict__['_build_input_shape'] = input_shape
        return input_shape

    def get_build_config(self) -> Optional[dict]:
        """``{'input_shape': ...}``: the input shape the layer was built with by its first
        call (``None`` when it was never called); saved with the layer's config so that
        loading builds it before setting its weights."""
        shape = self.__dict__.get('_build_input_shape')
        if not self.built or shape is None:
            return None
        return {'input_shape': shape}

    def build_from_config(self, config: Optional[dict]) -> None:
        """Build the layer from :meth:`get_build_config`'s output (no-op for ``None``)."""
        if config and config.get('input_shape') is not None and not self.built:
            shape = config['input_shape']
            self.__dict__['_build_input_shape'] = shape
            self.build(shape)
            self.built = True

    #: Keras's mask protocol: a layer that keeps the time axis sets this to pass the mask of
    #: its input on to its output unchanged (the default ``compute_mask``).
    supports_masking = False

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The mask of the output (boolean, ``(batch, time)``): the input's when the layer
        ``supports_masking``, otherwise none. Override it to make or change masks."""
        return previous_mask if self.supports_masking else None

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Output shape(s) for ``input_shape``; by default inferred by running ``call``."""
        def is_shape(s: Any) -> bool:
            return isinstance(s, tuple) and all(d is None or isinstance(d, int) for d in s)

        def to_tensor(s: Any) -> Any:
            return KerasTensor(s, self._dtype)
        if is_shape(input_shape):
            inputs = to_tensor(input_shape)
        else:
            inputs = [to_tensor(s) for s in input_shape]
        self._maybe_build(input_shape)
        spec = self._infer_output_spec(inputs, (), {})
        return map_structure(lambda t: t.shape, spec)

    def _has_output_shape_rule(self) -> bool:
        return type(self).compute_output_shape is not Layer.compute_output_shape

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """KerasTensors describing the outputs of a symbolic call."""
        if self._has_output_shape_rule():
            shapes = self.compute_output_shape(map_structure(_shape_of, inputs))
            return _shapes_to_tensors(shapes, self._dtype)
        return self._infer_output_spec(inputs, args, kwargs)

    def _infer_output_spec(self, inputs: Any, args: tuple, kwargs: dict) -> Any:
        """Run ``call`` on zero batches of sizes 2 and 3; axes whose size differs are unknown."""
        runs = []
        for size in (2, 3):
            def zeros(t: Any, size: int = size) -> Any:
                if not isinstance(t, KerasTensor):
                    return t
                shape = tuple(size if s is None else s for s in t.shape)
                v = Variable(numpy.zeros(shape, t.dtype), requires_grad=False)
                mask = getattr(t, '_keras_mask', None)
                if mask is not None:  # a masked symbolic input: an all-true sample mask
                    v._keras_mask = numpy.ones(shape[:len(mask.shape)], bool)
                return v
            sample = map_structure(zeros, inputs)
            sample_args = map_structure(zeros, args)
            sample_kwargs = map_structure(zeros, kwargs)
            with chainlet.no_backprop_mode():
                out = self._call_eager(sample, sample_args, sample_kwargs, spec_inference=True)
            runs.append(out)

        def merge(a: Any, b: Any) -> Any:
            shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
            out = KerasTensor(shape, a.dtype)
            mask = getattr(a, '_keras_mask', None)
            if mask is not None:  # the output carries a mask: so does its symbolic tensor
                out._keras_mask = KerasTensor(shape[:numpy.ndim(mask)], 'bool')
            return out
        flat_a, flat_b = flatten(runs[0]), flatten(runs[1])
        merged = iter([merge(a, b) for a, b in zip(flat_a, flat_b)])
        return map_structure(lambda _: next(merged), runs[0])

    # -- calling --

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args:
            raise TypeError(f'Layer "{self.name}" was called without inputs')
        inputs, rest = args[0], args[1:]
        flat = flatten((inputs, rest, kwargs))
        if any(isinstance(t, KerasTensor) for t in flat):
            return self._call_symbolic(inputs, rest, kwargs)
        # Link's own per-layer hook table (None until add_hook), read as Link.__call__ does
        local_hooks = self._local_link_hooks
        if local_hooks or any_link_hooks_registered():
            thread_hooks = get_link_hooks()
            if thread_hooks or local_hooks:
                return self._call_with_link_hooks(thread_hooks, local_hooks, args, kwargs)
        return self._call_eager(inputs, rest, kwargs)

    def _call_with_link_hooks(self, thread_hooks: Any, local_hooks: Any, args: tuple,
                              kwargs: dict) -> Any:
        # A Keras layer is a link to link hooks (``with hook:``, ``layer.add_hook(hook)``): they
        # run around the layer's eager call, so a TimerHook records ``Dense`` under its own
        # class name, as chainlet's Link.__call__ does for links. Symbolic calls compute
        # nothing and are not reported.
        hooks = thread_hooks
        if local_hooks:  # a layer's hook replaces a thread-wide one of the same name
            hooks = collections.OrderedDict(thread_hooks)
            hooks.update(local_hooks)
        hooks = list(hooks.values())
        pre = LayerHookArgs(self, args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        out = self._call_eager(args[0], args[1:], kwargs)
        post = LayerHookArgs(self, args, kwargs, out)
        for hook in hooks:
            hook.forward_postprocess(post)
        return out

    def _check_spec(self, inputs: Any) -> None:
        spec = self.input_spec
        if spec is None:
            return
        tensors = flatten(inputs)
        specs = spec if isinstance(spec, (list, tuple)) else [spec]
        if len(specs) != len(tensors) and len(specs) > 1:
            raise ValueError(f'Layer "{self.name}" expects {len(specs)} input(s), but it '
                             f'received {len(tensors)} input tensors')
        for i, (s, t) in enumerate(zip(specs, tensors)):
            if s is not None and hasattr(t, 'shape'):
                s.check(self.name, i, tuple(t.shape), t.dtype)

    def _input_shapes(self, inputs: Any) -> Any:
        shapes = map_structure(lambda t: tuple(t.shape) if hasattr(t, 'shape') else None, inputs)
        if isinstance(shapes, list):
            return shapes
        if isinstance(shapes, tuple) and shapes and isinstance(shapes[0], tuple):
            return list(shapes)
        return shapes

    def _call_symbolic(self, inputs: Any, args: tuple, kwargs: dict) -> Any:
        self._check_spec(inputs)
        self._maybe_build(self._note_build_shape(self._input_shapes(inputs)))
        outputs = self.compute_output_spec(inputs, *args, **kwargs)
        if type(self).compute_mask is not Layer.compute_mask:
            self._symbolic_mask(inputs, outputs)
        if self.supports_masking:  # shape-rule layers: the input's symbolic mask passes on
            _attach_mask(outputs, _input_mask(inputs))
        Node(self, call_args=(inputs,) + tuple(args), call_kwargs=kwargs, outputs=outputs)
        return outputs

    def _symbolic_mask(self, inputs: Any, outputs: Any) -> None:
        """Whether a layer with its own ``compute_mask`` masks its outputs, found by running
        ``compute_mask`` on a zero sample; the outputs then carry symbolic masks."""
        def sample(t: Any) -> Any:
            if not isinstance(t, KerasTensor):
                return t
            shape = tuple(2 if d is None else d for d in t.shape)
            v = Variable(numpy.zeros(shape, t.dtype), requires_grad=False)
            if getattr(t, '_keras_mask', None) is not None:
                v._keras_mask = numpy.ones(shape[:len(t._keras_mask.shape)], bool)
            return v
        x = map_structure(sample, inputs)
        try:
            mask = self.compute_mask(x, _input_mask(x))
        except Exception:  # a compute_mask that needs a real call: no symbolic mask
            return
        if mask is None:
            return
        outs = flatten(outputs)
        masks = flatten(mask) if isinstance(mask, (list, tuple)) else [mask] * len(outs)
        for out, m in zip(outs, masks):
            if isinstance(out, KerasTensor) and m is not None:
                out._keras_mask = KerasTensor(tuple(out.shape[:numpy.ndim(
                    m.array if isinstance(m, Variable) else m)]), 'bool')

    def _cast_input(self, x: Any) -> Any:
        if hasattr(x, '__array__') and not isinstance(x, (numpy.ndarray, Variable, KerasTensor,
                                                          numpy.generic)) and \
                not chainlet.backend.is_array(x):
            x = numpy.asarray(x)   # a CPU tensor of another library (torch), a DataFrame
        if isinstance(x, (numpy.ndarray, Variable)) or chainlet.backend.is_array(x):
            if not isinstance(x, Variable):
                x = Variable(x, requires_grad=False)
            if x.dtype.kind == 'f' and x.dtype != self._dtype and \
                    numpy.dtype(self._dtype).kind == 'f':
                x = F.cast(x, self._dtype)
        return x

    def _call_eager(self, inputs: Any, args: tuple, kwargs: dict,
                    spec_inference: bool = False) -> Any:
        inputs = map_structure(self._cast_input, inputs)
        self._check_spec(inputs)
        self._maybe_build(self._note_build_shape(self._input_shapes(inputs)))
        ctx = _call_context
        outermost = ctx.depth == 0
        kwargs = dict(kwargs)
        training = kwargs.pop('training', None)
        old_training = ctx.training
        if training is None:
            training = ctx.training
        if outermost and not spec_inference:
            for layer in self._flatten_layers():
                layer._call_losses.clear()
        if _call_accepts(type(self), 'training'):
            kwargs['training'] = training
        input_mask = _input_mask(inputs)
        if input_mask is not None and 'mask' not in kwargs and _call_has_mask(type(self)):
            kwargs['mask'] = input_mask   # Keras passes the inputs' mask to mask consumers
        ctx.depth += 1
        ctx.training = training
        try:
            outputs = self.call(inputs, *args, **kwargs)
        finally:
            ctx.depth -= 1
            ctx.training = old_training
        if self.activity_regularizer is not None and not spec_inference:
            for out in flatten(outputs):
                if isinstance(out, Variable):
                    self.add_loss(self.activity_regularizer(out))
        own_mask = type(self).compute_mask is not Layer.compute_mask
        if own_mask or (input_mask is not None and self.supports_masking):
            _attach_mask(outputs, self.compute_mask(inputs, kwargs.get('mask', input_mask)))
        return outputs

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The computation (on Variables); subclasses implement it."""
        return inputs

    forward = __call__

    # -- graph access --

    def _single_node(self, attr: str) -> Node:
        if not self._inbound_nodes:
            raise AttributeError(f'The layer "{self.name}" has never been called and thus has no '
                                 f'defined {attr}.')
        if len(self._inbound_nodes) > 1:
            raise AttributeError(
                f'The layer "{self.name}" has been called {len(self._inbound_nodes)} times (it is '
                f'shared), so its {attr} is ambiguous; use get_{attr}_at(node_index) instead.')
        return self._inbound_nodes[0]

    @property
    def input(self) -> Any:
        """The symbolic input of a layer called once."""
        return _unwrap(self._single_node('input').input_tensors)

    @property
    def output(self) -> Any:
        """The symbolic output of a layer called once (shared layers: ``get_output_at``)."""
        return self._single_node('output').outputs

    def get_input_at(self, node_index: int) -> Any:
        """The symbolic input(s) of the ``node_index``-th call."""
        return _unwrap(self._node_at(node_index).input_tensors)

    def get_output_at(self, node_index: int) -> Any:
        """The symbolic output(s) of the ``node_index``-th call."""
        return self._node_at(node_index).outputs

    def _node_at(self, node_index: int) -> Node:
        if not 0 <= node_index < len(self._inbound_nodes):
            raise ValueError(f'Layer "{self.name}": asked for node {node_index}, but it has '
                             f'{len(self._inbound_nodes)} inbound node(s)')
        return self._inbound_nodes[node_index]

    @property
    def output_shape(self) -> Any:
        """Output shape of a layer called once."""
        return map_structure(lambda t: t.shape, self.output)

    @property
    def inbound_nodes(self) -> list:
        return self._inbound_nodes

    @property
    def outbound_nodes(self) -> list:
        return self._outbound_nodes

    # -- config --

    def get_config(self) -> dict:
        """Constructor arguments that recreate this layer (without weights)."""
        config = {'name': self.name, 'trainable': self.trainable, 'dtype': self._dtype}
        if self._batch_input_shape is not None:
            config['batch_input_shape'] = self._batch_input_shape
        if self.activity_regularizer is not None:
            from chainlet.keras import regularizers
            config['activity_regularizer'] = regularizers.serialize(self.activity_regularizer)
        if _uses_generic_get_config(type(self)):
            config.update(self.__dict__.get('_auto_config') or {})
            params = inspect.signature(type(self).__init__).parameters
            if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
                # the base keys a custom __init__ does not take are left out (as in Keras)
                config = {k: v for k, v in config.items() if k in params}
        return config

    def save_own_variables(self, store: dict) -> None:
        """Put this layer's own weights (not its sublayers') into ``store`` under ``'0'``,
        ``'1'``, ...; ``model.save`` calls an override of it (with
        :meth:`load_own_variables`) to save extra state."""
        for i, p in enumerate(self._own_weights(None)):
            store[str(i)] = chainlet.backend.to_cpu(p.array).copy()

    def load_own_variables(self, store: dict) -> None:
        """Inverse of :meth:`save_own_variables`."""
        own = self._own_weights(None)
        if len(store) != len(own):
            raise ValueError(f'Layer "{self.name}": load_own_variables expected {len(own)} '
                             f'arrays, got {len(store)}')
        for i, p in enumerate(own):
            chainlet.backend.copyto(p.array, numpy.asarray(store[str(i)]).astype(p.dtype))

    @classmethod
    def from_config(cls, config: dict) -> 'Layer':
        """Create a layer from :meth:`get_config`'s output."""
        return cls(**config)

    def count_params(self) -> int:
        """Number of scalars in the layer's weights."""
        if not self.built and not self._weights:
            raise ValueError(f'You tried to call count_params on layer "{self.name}", but the '
                             f'layer is not built. Build it first (call it on data or '
                             f'layer.build(input_shape)).')
        return int(sum(p.size for p in self.weights))

    def _repr_args(self) -> dict:
        return {'name': self.name}

    def __repr__(self) -> str:
        return f'<{type(self).__name__} name={self.name}, built={self.built}>'


def _unwrap(tensors: list) -> Any:
    return tensors[0] if len(tensors) == 1 else tensors


def _shapes_to_tensors(shapes: Any, dtype: str) -> Any:
    if isinstance(shapes, tuple) and all(s is None or isinstance(s, int) for s in shapes):
        return KerasTensor(shapes, dtype)
    if isinstance(shapes, dict):
        return {k: _shapes_to_tensors(v, dtype) for k, v in shapes.items()}
    return [_shapes_to_tensors(s, dtype) for s in shapes]


def _is_plain(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v) for k, v in value.items())
    return False


def _auto_config(cls: type[Layer], args: tuple, kwargs: dict) -> Optional[dict]:
    """The arguments given to ``cls(...)`` by name, or ``None`` unless all are plain data."""
    if not _uses_generic_get_config(cls):
        return None
    try:
        signature = inspect.signature(cls.__init__)
        bound = signature.bind(None, *args, **kwargs)
    except (TypeError, ValueError):
        return None
    config: dict = {}
    for name, value in list(bound.arguments.items())[1:]:
        kind = signature.parameters[name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            if value:
                return None
        elif kind == inspect.Parameter.VAR_KEYWORD:
            config.update(value)
        else:
            config[name] = value
    return config if _is_plain(config) else None


def _uses_generic_get_config(cls: type) -> bool:
    """True for a user class whose get_config is the generic one of Layer (or Model)."""
    if cls.__module__.startswith('chainlet.keras'):
        return False
    owner = next((k for k in cls.__mro__ if 'get_config' in k.__dict__), None)
    return owner is not None and owner.__module__ in ('chainlet.keras.engine.base_layer',
                                                      'chainlet.keras.engine.model')


__all__ = ['Layer', 'InputSpec', 'unique_name', 'to_snake_case']


def _input_mask(inputs: Any) -> Any:
    """The mask(s) carried by the input tensor(s): one mask, a list, or ``None``."""
    if isinstance(inputs, Variable):  # the common case, without flattening
        return getattr(inputs, '_keras_mask', None)
    masks = [getattr(t, '_keras_mask', None) for t in flatten(inputs)]
    if all(m is None for m in masks):
        return None
    return masks[0] if len(masks) == 1 else masks


def _attach_mask(outputs: Any, mask: Any) -> None:
    """Put ``compute_mask``'s result on the outputs that carry no mask of their own."""
    if mask is None:
        return
    outs = flatten(outputs)
    masks = mask if isinstance(mask, (list, tuple)) and len(mask) == len(outs) and \
        len(outs) > 1 else [mask] * len(outs)
    for out, m in zip(outs, masks):
        if isinstance(out, (Variable, KerasTensor)) and m is not None and \
                getattr(out, '_keras_mask', None) is None:
            out._keras_mask = m.array if isinstance(m, Variable) else m
