"""``FunctionNode``: one application of a differentiable function in the graph.

Writing a function means subclassing :class:`FunctionNode` and implementing two methods:

* ``forward(inputs)`` takes a tuple of arrays and returns a tuple of arrays. It may call
  :meth:`~FunctionNode.retain_inputs` / :meth:`~FunctionNode.retain_outputs` to keep what
  ``backward`` needs (nothing else is kept). Implement ``forward_cpu`` and ``forward_gpu``
  instead when the NumPy and CuPy code differ, or keep ``forward`` and add ``forward_gpu`` (a
  fused CUDA kernel, say): on CuPy inputs ``apply`` calls ``forward_gpu`` when the class has
  one, with the inputs' GPU made current; inputs on two GPUs raise ``TypeError``.
* ``backward(target_input_indexes, grad_outputs)`` takes the gradients of the outputs as
  Variables (``None`` for an output that received none) and returns the gradients of the inputs
  listed in ``target_input_indexes``, written with chainlet functions so that they can be
  differentiated again.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet import FunctionNode
    >>> class Square(FunctionNode):
    ...     def forward(self, inputs):
    ...         x, = inputs
    ...         self.retain_inputs((0,))
    ...         return x * x,
    ...     def backward(self, indexes, grad_outputs):
    ...         x, = self.get_retained_inputs()
    ...         gy, = grad_outputs
    ...         return 2.0 * x * gy,
    >>> x = chainlet.Variable(np.array([3.0]))
    >>> y, = Square().apply((x,))
    >>> y.backward()
    >>> x.grad
    array([6.])
"""
from __future__ import annotations

import collections
import copy
import functools
import sys
import traceback
import types
import weakref
from typing import Any, Iterable, Optional, Sequence

import numpy

from chainlet import _config
from chainlet import _debug
from chainlet import _hooks
from chainlet import backend
from chainlet.utils import type_check as _type_check
from chainlet.variable import Variable, VariableNode, constant_node as _constant_node
from chainlet.variable import track_output as _track

_ndarray = numpy.ndarray
_config_local = _config.config
_global_config = _config.global_config
_weakref = weakref.ref
_from_output = Variable._from_output
_function_hooks = _hooks.functions
_link_hooks = _hooks.links
_observers = _hooks.observers


def _gather(inputs: Sequence[Any]) -> tuple:
    """``(arrays, requires_grad, all_numpy)`` of ``apply``'s inputs (Variables or arrays)."""
    if len(inputs) == 2:  # two Variables (binary operators, gradient nodes): no loop
        a, b = inputs
        if type(a) is Variable and type(b) is Variable:
            da, db = a._data, b._data
            return ((da, db), a._node.requires_grad or b._node.requires_grad,
                    type(da) is _ndarray and type(db) is _ndarray)
    requires_grad = False
    all_numpy = True
    in_data = []
    for x in inputs:
        if isinstance(x, Variable):
            d = x._data
            if x._node.requires_grad:
                requires_grad = True
        else:
            d = x
        if type(d) is not _ndarray:
            all_numpy = False
        in_data.append(d)
    return tuple(in_data), requires_grad, all_numpy


def get_function_hooks() -> collections.OrderedDict:
    """Return the ordered dict of function hooks active in this thread."""
    return _function_hooks.hooks


def _dsl_check(self: 'FunctionNode', in_data: tuple) -> None:
    _type_check.check_with_dsl(self, in_data)


def _checks_then_dsl(check_arrays: Any) -> Any:
    def check(self: 'FunctionNode', in_data: tuple) -> None:
        check_arrays(self, in_data)
        _type_check.check_with_dsl(self, in_data)
    return check


def _overrides(cls: type, special: str, general: str) -> bool:
    """True when ``cls`` has its own ``special`` method (``forward_gpu``, ``_backward_arrays``)
    that is not hidden by a ``general`` one (``forward``, ``backward``) defined further down the
    class hierarchy: a subclass that rewrites ``forward`` or ``backward`` wins."""
    def owner(name: str) -> int:
        return next(i for i, c in enumerate(cls.__mro__) if name in c.__dict__)
    special_owner = owner(special)
    return cls.__mro__[special_owner] is not FunctionNode and special_owner <= owner(general)


# The instance attributes apply() may set, whatever the mode it runs in.
_APPLY_KEYS = ('_applied', '_inputs', 'rank', '_outputs', '_input_indexes_to_retain',
               '_output_indexes_to_retain', '_retained_output_data', 'stack')


def _share_apply_keys(cls: type) -> None:
    """Enter the attributes ``apply`` sets in the table of keys the instances of ``cls`` share.

    From Python 3.11 an instance keeps its attributes in slots indexed by a key table shared by
    its class, which takes new keys only from the first instances; a later instance that sets a
    key the table lacks gets a dict of its own, a fourth object per recorded op for the cyclic
    GC to scan (and slower attribute reads). The first instances of a class may well be made
    under ``no_backprop_mode`` (an evaluation, a loss scale), which sets none of the graph's
    keys, so a throwaway instance sets them all when the class is made.
    """
    if sys.version_info < (3, 11):  # a dict per instance in any case
        return
    try:
        template: Any = object.__new__(cls)
    except TypeError:  # an abstract class: its subclasses get their own template
        return
    for key in _APPLY_KEYS:
        object.__setattr__(template, key, None)


# The FunctionNode methods every recorded op runs through (see _own_hot_code).
_HOT_METHODS = ('apply', '_link', '_link_one', '_retain', 'retain_inputs', 'retain_outputs',
                'get_retained_inputs', 'get_retained_outputs', '_input_array')


def _own_hot_code(cls: type, names: Sequence[str] = _HOT_METHODS) -> None:
    """Give ``cls`` its own copy of the hot methods it inherits from :class:`FunctionNode`.

    From Python 3.11 the interpreter specializes each attribute read and write in a code
    object to the one type it last saw there. The base class's ``apply`` sees every function
    class in turn (tanh, then pow, then sum, ...), so its reads of ``self._inputs``,
    ``self.forward`` and the like miss their caches and take the generic path: a mix of six
    unary ops cost 1.21x the same ops one kind at a time. A copy of the code per class keeps
    each copy's caches on one type (1.06x); the functions are the same in every other way. The
    copies cost about 1 KB per method and class (2 MB for the library's 226 function classes).
    """
    if sys.version_info < (3, 11):  # no specializing interpreter
        return
    for name in names:
        base: Any = FunctionNode.__dict__[name]
        inherited = getattr(cls, name)
        if getattr(inherited, '_hot_copy_of', inherited) is base:  # not overridden
            copy_ = types.FunctionType(base.__code__.replace(), base.__globals__, base.__name__,
                                       base.__defaults__, base.__closure__)
            copy_.__qualname__, copy_.__doc__ = base.__qualname__, base.__doc__
            copy_.__annotations__ = base.__annotations__
            copy_._hot_copy_of = base  # type: ignore[attr-defined]
            type.__setattr__(cls, name, copy_)


def _recopy_hot_code(cls: type, name: str, deleted: bool) -> None:
    """After ``cls.name`` (a hot method) was replaced or ``deleted``: the subclasses of ``cls``
    that held a copy of the old method get one of what they now inherit, so that a replacement
    reaches every function class (and a restored original comes back everywhere); ``cls``
    itself too when its own method was deleted."""
    subclasses: list = []
    todo: list = list(type.__subclasses__(cls))
    while todo:
        sub = todo.pop()
        if sub not in subclasses:
            subclasses.append(sub)
            todo.extend(type.__subclasses__(sub))
    for sub in subclasses:
        own = sub.__dict__.get(name)
        # A copy is a plain function marked as one; a Mock put on the subclass answers any
        # attribute and must stay where its test put it.
        if type(own) is types.FunctionType and '_hot_copy_of' in own.__dict__:
            type.__delattr__(sub, name)
    for sub in [cls, *subclasses] if deleted else subclasses:
        _own_hot_code(sub, (name,))


class _FunctionNodeType(type):
    """The metaclass of :class:`FunctionNode`: assigning or deleting one of its hot methods on
    a class (monkeypatching ``FunctionNode.apply``, as onnx_chainer's exporter does while it
    records a graph) reaches the subclasses that use their own copy of it (see
    :func:`_own_hot_code`). Nothing else changes: it costs nothing outside such assignments."""

    def __setattr__(cls, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in _HOT_METHODS:
            _recopy_hot_code(cls, name, False)

    def __delattr__(cls, name: str) -> None:
        super().__delattr__(name)
        if name in _HOT_METHODS:
            _recopy_hot_code(cls, name, True)


class FunctionNode(metaclass=_FunctionNodeType):
    """Base class of differentiable functions; see the module docstring for the contract.

    Attributes:
        inputs: Tuple of input :class:`VariableNode` (set by ``apply`` when a graph is built).
        outputs: Tuple of weak references to output :class:`VariableNode`.
        rank: Max rank of the inputs; orders backward.
        stack: Where ``apply`` was called, captured only in debug mode.
    """

    # The input VariableNodes once applied: a tuple, or the node itself for a single input (a
    # tuple of one would be one more object per op for the cyclic GC to scan while the graph
    # lives). ``inputs`` always gives a tuple.
    _inputs: Any = None
    # The outputs' weak references: one bare weakref for the usual single output (a tuple per
    # node is one more object for the cyclic GC to traverse as the graph grows), else a tuple.
    _outputs: Any = None
    rank = 0
    stack: Optional[list] = None
    _applied = False
    _input_indexes_to_retain: Optional[tuple] = None
    _output_indexes_to_retain: Optional[tuple] = None
    _retained_output_data: Any = None  # the retained output arrays, a tuple
    _local_function_hooks: Optional[collections.OrderedDict] = None
    # Whether apply() calls forward_gpu directly on CuPy inputs (set per class, see below).
    _use_forward_gpu = False

    # Whether the class overrides backward_accumulate (read by the backward scheduler).
    _has_backward_accumulate = False
    # Whether first-order backward on NumPy arrays may call _backward_arrays (see there).
    _use_backward_arrays = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _share_apply_keys(cls)
        _own_hot_code(cls)
        cls._use_forward_gpu = _overrides(cls, 'forward_gpu', 'forward')
        cls._use_backward_arrays = _overrides(cls, '_backward_arrays', 'backward')
        cls._has_backward_accumulate = \
            cls.backward_accumulate is not FunctionNode.backward_accumulate
        if 'check_type_forward' in cls.__dict__:
            if cls._check_arrays in (FunctionNode._check_arrays, _dsl_check):
                # a user function with Chainer-style checks
                cls._check_arrays = _dsl_check  # type: ignore[method-assign]
            elif '_check_arrays' not in cls.__dict__:
                # A subclass of a built-in adds Chainer-style checks: run both.
                cls._check_arrays = _checks_then_dsl(  # type: ignore[method-assign]
                    cls._check_arrays)

    @property
    def inputs(self) -> Any:
        """Tuple of the input :class:`VariableNode` objects (``None`` before ``apply``)."""
        nodes = self._inputs
        return (nodes,) if type(nodes) is VariableNode else nodes

    @inputs.setter
    def inputs(self, nodes: Any) -> None:
        self._inputs = nodes

    @property
    def outputs(self) -> Optional[tuple]:
        """Weak references to the output :class:`VariableNode` objects (``None`` before
        ``apply``)."""
        refs = self._outputs
        return (refs,) if type(refs) is _weakref else refs

    @outputs.setter
    def outputs(self, refs: Optional[tuple]) -> None:
        self._outputs = refs[0] if type(refs) is tuple and len(refs) == 1 and \
            type(refs[0]) is _weakref else refs

    @property
    def label(self) -> str:
        """Name of the function shown in errors and graph dumps (the class name by default)."""
        return type(self).__name__

    @property
    def _impl_name(self) -> str:
        # Chainer's name of the implementing class (hooks report it; labels may differ).
        return type(self).__name__

    @property
    def local_function_hooks(self) -> collections.OrderedDict:
        """Ordered dict of hooks registered on this node only."""
        if self._local_function_hooks is None:
            self._local_function_hooks = collections.OrderedDict()
        return self._local_function_hooks

    def add_hook(self, hook: Any, name: Optional[str] = None) -> 'FunctionNode':
        """Register ``hook`` (a :class:`~chainlet.function_hooks.FunctionHook`) on this node."""
        name = name or hook.name
        hooks = self.local_function_hooks
        if name in hooks:
            raise KeyError(f'{self.label}: hook {name!r} is already registered')
        hooks[name] = hook
        hook.added(self)
        return self

    def delete_hook(self, name: str) -> None:
        """Unregister the local hook called ``name``."""
        hooks = self.local_function_hooks
        if name not in hooks:
            raise KeyError(f'{self.label}: no hook named {name!r}')
        hooks[name].deleted(self)
        del hooks[name]

    # -- application --

    def apply(self, inputs: Sequence[Any]) -> tuple:
        """Compute the outputs and, if backprop is enabled, link this node into the graph.

        Args:
            inputs: Variables or arrays (arrays are treated as constants).

        Returns:
            A tuple of output :class:`Variable` objects.
        """
        if self._applied:
            return self._fresh_copy().apply(inputs)
        try:
            x = inputs[0] if len(inputs) == 1 else None
        except TypeError:  # any iterable, as in Chainer (a generator has no len)
            return self.apply(tuple(inputs))
        self._applied = True
        # The thread's own settings, falling back to the global defaults (a dict read is
        # cheaper than the config object's descriptor on this hot path).
        local = _config_local.__dict__
        if type(x) is Variable:  # one Variable in, as for most functions: no loops
            in_data = (x._data,)
            requires_grad = x._node.requires_grad
            all_numpy = type(in_data[0]) is _ndarray
        else:
            in_data, requires_grad, all_numpy = _gather(inputs)
        gpu = None if all_numpy else self._device_of(inputs, in_data)
        try:  # free unless raised (Python 3.11+): see _not_an_array
            if local.get('type_check', _global_config.type_check):
                self._check_arrays(in_data)
            if _observers.active or self._local_function_hooks or \
                    local.get('debug', _global_config.debug):
                return self._apply_observed(inputs, in_data, requires_grad, gpu)
            if gpu is None:
                outputs = self.forward(in_data)
                if type(outputs) is not tuple or type(outputs[0] if outputs else None) \
                        is not _ndarray or len(outputs) > 1:
                    outputs = self._checked_outputs(outputs)
            else:
                outputs = self._forward_on_device(in_data, gpu)
        except (AttributeError, IndexError, KeyError) as e:
            if all_numpy:
                raise
            raise self._not_an_array(in_data, e)
        # As in Chainer, the graph is linked whenever backprop is on, even for constant inputs
        # (``y.creator`` is there to inspect); backward skips what requires no gradient.
        if not local.get('enable_backprop', _global_config.enable_backprop):
            self._input_indexes_to_retain = self._output_indexes_to_retain = None
            if len(outputs) == 1:
                return _from_output(outputs[0], requires_grad),
            return tuple([_from_output(y, requires_grad) for y in outputs])
        if type(x) is Variable and len(outputs) == 1:
            return self._link_one(x._node, in_data, outputs, requires_grad)
        return self._link(inputs, in_data, outputs, requires_grad)

    def _not_an_array(self, in_data: tuple, error: Exception) -> Exception:
        """The error to raise for ``error``, which a check or forward raised on inputs that are
        not all NumPy arrays: a ``TypeError`` naming this function and the input where an input
        is ``None`` (``_device_of`` lets it through: Chainer's missing optional input) or
        otherwise no array, so that ``F.exp(None)`` does not end in a bare ``AttributeError``
        from deep inside the check. ``error`` itself when every input is an array."""
        for i, d in enumerate(in_data):
            if not backend.is_array(d):
                exc = TypeError(f'{self.label}: input {i} must be a Variable or an ndarray, '
                                f'got {type(d).__name__}')
                exc.__cause__ = error
                return exc
        return error

    def _apply_observed(self, inputs: Sequence[Any], in_data: tuple, requires_grad: bool,
                        gpu: Any) -> tuple:
        """The rest of :meth:`apply` while hooks are active (or in debug mode): forward between
        the hooks' callbacks, then the graph.

        While a hook of this thread observes (a function hook, on the node or thread-wide, or a
        thread-wide link hook), the output nodes also know their Variables, as in Chainer:
        ``y.node.get_variable_or_none() is y``, which tools that read the recorded graph rely on
        (onnx_chainer's exporter names each value by its Variable). Otherwise a function's output
        node stays untracked (see ``Variable._from_output``).
        """
        outputs = self._forward_observed(in_data, gpu)
        local = _config_local.__dict__
        if not local.get('enable_backprop', _global_config.enable_backprop):
            self._input_indexes_to_retain = self._output_indexes_to_retain = None
            ret = tuple([_from_output(y, requires_grad) for y in outputs])
        else:
            x = inputs[0] if len(inputs) == 1 else None
            if type(x) is Variable and len(outputs) == 1:
                ret = self._link_one(x._node, in_data, outputs, requires_grad)
            else:
                ret = self._link(inputs, in_data, outputs, requires_grad)
        if self._local_function_hooks or _function_hooks.hooks or _link_hooks.hooks:
            for y in ret:
                _track(y)
        return ret

    def _forward_on_device(self, in_data: tuple, gpu: Any) -> tuple:
        """Run forward (``forward_gpu`` on the inputs' GPU when the class has one)."""
        if gpu is None:
            outputs = self.forward(in_data)
        else:
            with gpu:  # kernels and allocations on the inputs' GPU
                outputs = self.forward_gpu(in_data) if self._use_forward_gpu \
                    else self.forward(in_data)
        return self._checked_outputs(outputs)

    def _checked_outputs(self, outputs: Any) -> tuple:
        """``outputs`` if it is a tuple of ndarrays; NumPy scalars become 0-d arrays."""
        if type(outputs) is not tuple:
            raise TypeError(f'{self.label}: forward output must be a tuple of ndarrays, '
                            f'got {type(outputs).__name__}')
        for y in outputs:
            if type(y) is not _ndarray:
                return self._coerce_outputs(outputs)
        return outputs

    def _forward_observed(self, in_data: tuple, gpu: Any) -> tuple:
        """:meth:`_forward_on_device` between the hooks' callbacks, with debug mode's records
        and checks."""
        hooks = _function_hooks.collect(self._local_function_hooks)
        for hook in hooks:
            hook.forward_preprocess(self, in_data)
        debug = _config_local.debug
        if debug:
            self.stack = traceback.extract_stack()[:-2]
        outputs = self._forward_on_device(in_data, gpu)
        if debug:
            _debug.check_finite(outputs, 'forward output', self)
        for hook in hooks:
            hook.forward_postprocess(self, in_data)
        return outputs

    def _link(self, inputs: Sequence[Any], in_data: tuple, outputs: tuple,
              requires_grad: bool) -> tuple:
        """Make the output Variables, link them and the inputs' nodes to this node, retain."""
        if len(inputs) == 2 and type(inputs[0]) is Variable and type(inputs[1]) is Variable:
            na, nb = inputs[0]._node, inputs[1]._node  # two Variables: no loop
            self._inputs = (na, nb)
            rank = na.rank if na.rank > nb.rank else nb.rank
        else:
            nodes = []
            rank = 0
            for x in inputs:
                node = x._node if isinstance(x, Variable) else _constant_node(x)
                if node.rank > rank:
                    rank = node.rank
                nodes.append(node)
            self._inputs = tuple(nodes)
        self.rank = rank
        rank += 1
        if len(outputs) == 1:  # the common case, without the lists
            v = _from_output(outputs[0], requires_grad, self, rank)
            ret: tuple = (v,)
            out = v._node
            if out.shape == self._inputs[0].shape:  # see _link_one
                out.shape = self._inputs[0].shape
            self._outputs = _weakref(out)
        else:
            made = []
            out_refs = []
            for y in outputs:
                v = _from_output(y, requires_grad, self, rank)
                made.append(v)
                out_refs.append(_weakref(v._node))
            ret = tuple(made)
            self.outputs = tuple(out_refs)
        if self._input_indexes_to_retain is not None or \
                self._output_indexes_to_retain is not None:
            self._retain(ret, in_data, outputs)
        return ret

    def _link_one(self, node: VariableNode, in_data: tuple, outputs: tuple,
                  requires_grad: bool) -> tuple:
        """:meth:`_link` for one Variable in and one array out (most functions), without the
        loops: about a tenth of a tiny op's cost."""
        self._inputs = node
        self.rank = rank = node.rank
        v = _from_output(outputs[0], requires_grad, self, rank + 1)
        out = v._node
        # An elementwise op's output node shares its input's shape tuple: the fresh one from
        # ``.shape`` would be one more object per op for the cyclic GC while the graph lives.
        if out.shape == node.shape:
            out.shape = node.shape
        self._outputs = _weakref(out)
        if self._input_indexes_to_retain is not None or \
                self._output_indexes_to_retain is not None:
            self._retain((v,), in_data, outputs)
        return v,

    def _retain(self, ret: tuple, in_data: tuple, outputs: tuple) -> None:
        """Keep the arrays that ``retain_inputs`` / ``retain_outputs`` named on the graph."""
        if self._input_indexes_to_retain is not None:
            inputs = self._inputs
            if type(inputs) is VariableNode:
                inputs = (inputs,)
            for i in self._input_indexes_to_retain:
                inputs[i].data = in_data[i]
        indexes = self._output_indexes_to_retain
        if indexes is not None:
            if indexes == (0,) and len(outputs) == 1:  # the usual case: forward's own tuple
                ret[0]._node.data = outputs[0]
                self._retained_output_data = outputs
                return
            kept = []
            for i in indexes:
                ret[i]._node.data = outputs[i]
                kept.append(outputs[i])
            self._retained_output_data = tuple(kept)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # A common slip when porting (old-style Functions are called); say what to do instead.
        raise TypeError(f'{self.label}: a FunctionNode is applied, not called: use '
                        f'{type(self).__name__}(...).apply((x, ...)), which returns a tuple of '
                        f'Variables, or the lowercase function that wraps it')

    def _fresh_copy(self) -> 'FunctionNode':
        """A copy of this node, not yet applied, for a second ``apply`` of the same instance.

        Chainer lets an instance be applied again and rewires it, so the first graph's backward
        would read the second call's inputs. Each application gets its own node here instead:
        the hyper-parameters are shared, the graph state is not.
        """
        node = copy.copy(self)
        for name in ('_inputs', '_outputs', 'rank', 'stack', '_applied',
                     '_input_indexes_to_retain', '_output_indexes_to_retain',
                     '_retained_output_data'):
            node.__dict__.pop(name, None)
        if self._local_function_hooks is not None:
            node._local_function_hooks = collections.OrderedDict(self._local_function_hooks)
        if '_instance_check_type_forward' in self.__dict__:
            node._check_arrays = functools.partial(  # type: ignore[method-assign]
                _dsl_check, node)
        return node

    def _device_of(self, inputs: Sequence[Any], in_data: tuple) -> Any:
        """The GPU of the inputs (``None`` on the CPU); raises on mixed array modules or GPUs.

        A bare ``None`` input stands for a missing optional input, as in Chainer; a Variable
        without data (an uninitialized Parameter) is an error.
        """
        arrays = [d for x, d in zip(inputs, in_data) if x is not None]
        if backend.check_same_array_module(self.label, arrays) is numpy:
            return None
        return backend.check_same_device(self.label, arrays)

    def _coerce_outputs(self, outputs: tuple) -> tuple:
        """Turn NumPy scalars (what NumPy returns for 0-d results) into 0-d arrays."""
        fixed = []
        for i, y in enumerate(outputs):
            if isinstance(y, numpy.generic):
                y = numpy.asarray(y)
            elif y is not None and not backend.is_array(y):
                raise TypeError(f'{self.label}: forward output must be a tuple of ndarrays; '
                                f'output {i} is {type(y).__name__}')
            fixed.append(y)
        return tuple(fixed)

    # -- to be implemented by subclasses --

    def _accept_any_types(self, in_types: Any) -> None:
        """Check the inputs with Chainer's type-check language (the default accepts anything).

        ``in_types`` holds one entry per input; conditions are stated with
        :mod:`chainlet.utils.type_check` (``type_check.expect(in_types[0].dtype.kind == 'f')``)
        and a failure raises :class:`~chainlet.utils.type_check.InvalidType` naming this function,
        the condition and the actual values. Skipped when ``chainlet.config.type_check`` is off.
        """

    def _set_check_type_forward(self, check: Any) -> None:
        # A check set on one instance (Chainer's tests mock it there): run it for this
        # instance only, without making the default path of every other node pay for a lookup.
        self.__dict__['_instance_check_type_forward'] = check
        self._check_arrays = functools.partial(  # type: ignore[method-assign]
            _dsl_check, self)

    # Subclasses define check_type_forward as a plain method; on FunctionNode itself it is a
    # property so that assigning it to an instance is seen by apply().
    check_type_forward = property(
        lambda self: self.__dict__.get('_instance_check_type_forward', self._accept_any_types),
        _set_check_type_forward, doc=_accept_any_types.__doc__)

    def _check_arrays(self, in_data: tuple) -> None:
        # What apply() calls: nothing to check by default. Built-in functions override it with
        # direct checks on the arrays; a class defining check_type_forward gets _dsl_check (see
        # __init_subclass__).
        pass

    def forward(self, inputs: tuple) -> tuple:
        """Compute output arrays from input arrays (dispatches to ``forward_cpu``/``forward_gpu``).
        """
        if isinstance(inputs[0] if inputs else None, _ndarray) or \
                backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs: tuple) -> tuple:
        """Forward on NumPy arrays; implement this or ``forward``."""
        raise NotImplementedError(f'{self.label} implements neither forward nor forward_cpu')

    def forward_gpu(self, inputs: tuple) -> tuple:
        """Forward on CuPy arrays; implement this or ``forward``."""
        raise NotImplementedError(f'{self.label} implements neither forward nor forward_gpu')

    def backward(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        """Return gradients (Variables or ``None``) of the inputs in ``target_input_indexes``.

        The result may list one gradient per target index or one per input. The default, as
        in Chainer, gives none: a function without ``backward`` passes no gradient back.
        """
        return (None,) * len(target_input_indexes)

    def _backward_arrays(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        """``backward`` on NumPy arrays, for first-order gradients only (an optional fast path).

        A built-in function may define it next to ``backward``: when no graph of the gradient is
        wanted (no double backprop), no function hook is active and debug mode is off, the
        scheduler calls it with the output gradients as arrays (``None`` where absent) and takes
        arrays back, so computing a gradient applies no FunctionNode. It must compute exactly
        what ``backward`` computes; a subclass that overrides ``backward`` is never sent here.
        The arrays it gets may be shared with other gradients and must not be written to; the
        arrays it returns are passed on as they are (a leaf's ``.grad`` gets its own copy where
        one is needed). This default (never used by the scheduler) goes through ``backward``.
        ``tests/core/test_fast_path_registry.py`` finds every class with a fast path and fails
        until it has an input generator there, which compares both paths bit for bit.
        """
        gys = tuple([None if g is None else Variable(g, requires_grad=False)
                     for g in grad_outputs])
        return tuple([None if g is None else g.array
                      for g in self.backward(target_input_indexes, gys)])

    def _input_array(self, index: int) -> Any:
        """The array of input ``index`` as ``get_retained_inputs`` would give it (the live
        Variable's array while it exists), for a ``_backward_arrays``."""
        node = self._inputs
        if type(node) is not VariableNode:
            node = node[index]
        var = node._variable()
        return node.data if var is None else var._data

    def backward_accumulate(self, target_input_indexes: tuple, grad_outputs: tuple,
                            grad_inputs: tuple) -> tuple:
        """Like ``backward`` but returns ``grad_inputs`` (gradients so far) plus the new ones.

        Override it when adding in place is cheaper than a separate sum.
        """
        gxs = self.backward(target_input_indexes, grad_outputs)
        if not isinstance(gxs, (tuple, list)):
            raise TypeError(f'{self.label}.backward must return a tuple of gradients (Variables, '
                            f'arrays or None), got {type(gxs).__name__}')
        if len(gxs) == len(self.inputs) != len(target_input_indexes):
            gxs = tuple(gxs[i] for i in target_input_indexes)
        ret = []
        for gx, g_in in zip(gxs, grad_inputs):
            if gx is None:
                ret.append(g_in)
            elif g_in is None:
                ret.append(gx)
            else:
                ret.append(gx + g_in)
        return tuple(ret)

    # -- retention --

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Keep the input arrays at ``indexes`` for backward (call it inside ``forward``)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes: Iterable[int]) -> None:
        """Keep the output arrays at ``indexes`` for backward (call it inside ``forward``)."""
        self._output_indexes_to_retain = tuple(indexes)

    def get_retained_inputs(self) -> tuple:
        """Return the retained inputs as Variables, in the order given to ``retain_inputs``."""
        inputs = self._inputs
        if self._input_indexes_to_retain is None or inputs is None:
            return ()
        if type(inputs) is VariableNode:
            inputs = (inputs,)
        # A missing (None) input is given back as None.
        return tuple([None if inputs[i].shape is None else inputs[i].get_variable()
                      for i in self._input_indexes_to_retain])

    def get_retained_outputs(self) -> tuple:
        """Return the retained outputs as Variables, in the order given to ``retain_outputs``.

        An output whose Variable and node were already freed is rebuilt from the retained array
        and linked back to this node, so a backward written with it can be differentiated.
        """
        refs = self._outputs
        if self._output_indexes_to_retain is None or refs is None:
            return ()
        ret = []
        outputs = [refs] if type(refs) is _weakref else list(refs)
        relinked = False
        for index, data in zip(self._output_indexes_to_retain, self._retained_output_data):
            node = outputs[index]()
            if data is None:  # a None output stays None
                var = None
            elif node is None:
                var = _from_output(data, True)
                var._node.creator_node = self
                var._node.rank = self.rank + 1
                var._node.data = data
                outputs[index] = _weakref(var._node)
                relinked = True
            else:
                var = node.get_variable()
            ret.append(var)
        if relinked:
            self.outputs = tuple(outputs)
        return tuple(ret)

    def output_data(self) -> tuple:
        """Arrays of the retained outputs, or ``None`` for outputs that were not retained."""
        data: list = [None] * len(self.outputs or ())
        if self._output_indexes_to_retain is not None:
            for i, d in zip(self._output_indexes_to_retain, self._retained_output_data):
                data[i] = d
        return tuple(data)

    def _as_creator(self) -> Any:
        # What Variable.creator shows: the node itself (an old-style Function's adapter shows
        # the Function).
        return self

    def unchain(self) -> None:
        """Cut this node out of the graph: outputs become leaves, inputs are released."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.creator_node = None
        self.inputs = None

    def __repr__(self) -> str:
        return f'<{self.label} rank={self.rank}>'


class NonDifferentiableGrad(FunctionNode):
    """Marks a gradient computed with raw arrays; raises if double backprop reaches it.

    When a graph of the backward is being built and a backward returns a bare array,
    ``_backprop`` wraps it with :meth:`attach`, so that differentiating it again fails loudly
    instead of silently giving zero.
    """

    def __init__(self, origin: str) -> None:
        self._origin = origin

    @classmethod
    def attach(cls, func: FunctionNode, gx: Any) -> Variable:
        """Return ``gx`` as a Variable whose creator links to ``func``'s inputs and raises."""
        node = cls(func.label)
        node._applied = True
        node.inputs = func.inputs
        node.rank = func.rank
        var = _from_output(gx, True)
        var._node.creator_node = node
        var._node.rank = func.rank + 1
        node.outputs = (_weakref(var._node),)
        return var

    def backward(self, target_input_indexes: tuple, grad_outputs: tuple) -> tuple:
        raise RuntimeError(
            f'{self._origin}: its backward is not differentiable (it returned bare arrays), so '
            f'double backprop cannot go through it; write the backward with chainlet functions')


def __getattr__(name: str) -> Any:
    # Chainer defines ``grad`` in this module; chainlet's lives in ``_backprop``, which imports
    # this module, so it is fetched on first use.
    if name == 'grad':
        from chainlet._backprop import grad
        return grad
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
