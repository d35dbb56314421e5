"""The backward scheduler: ``Variable.backward`` and ``chainlet.grad``.

Function nodes are popped from a max-heap on rank (a push counter breaks ties, so runs are
deterministic). A node is popped only after every consumer of its outputs has run, because
consumers have higher rank; its output gradients are then summed once and its backward runs once.
Nothing recurses, and each output gradient is dropped as soon as its producer has consumed it.

One step per node, as in Chainer's gradient table: pop the node's output gradients
(:func:`_pop_output_grads`), choose the inputs that need one (:func:`_target_indexes`), run the
backward with its hooks (:func:`_call_backward`, checked by :func:`_backward_step`), and file the
input gradients (:func:`_add_grad`), which schedules their creators.

First-order backward on the CPU keeps bare NumPy arrays in the gradient table: a node whose
``_backward_arrays`` computes its gradients on arrays gets and gives arrays, and a Variable is
made only where something needs one (a ``backward`` written with chainlet functions, a hook,
``retain_grad``, the results). Each gradient would otherwise cost a Variable, its node and a
weak reference, three more objects for the cyclic GC.

Backward runs with ``enable_backprop`` set to ``enable_double_backprop``: the backward methods are
written with chainlet functions, so with the flag on they build a graph of the gradient
computation; with it off they build nothing.

Threads: backward passes may run in several threads at once over graphs that share leaves (the
parameters of one model, as in Hogwild-style training). Each graph's own gradients are private
to its backward; only the accumulation into a leaf's ``.grad`` (read, add, store) is shared, and
it runs under one lock (:data:`_leaf_lock`), taken once per backward call (about 0.1 us), so no
thread's contribution is lost. Other state is not made safe: a graph must not be backpropagated
from two threads at once, and ``cleargrads()`` or an optimizer update racing a backward on the
same parameters reads or clears a gradient mid-accumulation, as in PyTorch.
"""
from __future__ import annotations

import heapq
import threading
import warnings
import weakref
from typing import Any, Optional, Sequence

import numpy

from chainlet import _config
from chainlet import _debug
from chainlet import _hooks
from chainlet import backend
from chainlet import function_node as _fn
from chainlet._grad_sum import add_arrays, copy_grad, sum_grads
from chainlet.variable import Variable, VariableNode

_weakref = weakref.ref
_heappush = heapq.heappush
_heappop = heapq.heappop
_from_output = Variable._from_output
_ndarray = numpy.ndarray
_function_hooks = _hooks.functions
_MISSING = _config._MISSING


def _on_device_of(gys: tuple, fn: Any, *args: Any) -> Any:
    """Call ``fn(*args)`` with the GPU of the gradients current (a plain call on the CPU)."""
    for g in gys:
        if g is not None:
            data = g._data
            if type(data) is not numpy.ndarray and backend.is_cupy_array(data):
                with data.device:
                    return fn(*args)
            break
    return fn(*args)


def _as_grad_variable(gx: Any, func: _fn.FunctionNode, double: bool) -> Variable:
    """Wrap a bare array returned by a backward; under double backprop, make it a dead end."""
    if not double:
        return _from_output(gx, False)
    return _fn.NonDifferentiableGrad.attach(func, gx)


def _as_var(g: Any) -> Any:
    """A gradient from the table as a Variable (the table may hold bare NumPy arrays)."""
    return _from_output(g, False) if type(g) is _ndarray else g


def _as_vars(gys: tuple) -> tuple:
    for g in gys:
        if type(g) is _ndarray:
            return tuple([_as_var(g) for g in gys])
    return gys


def _sum_terms(lst: list) -> Any:
    """The sum of the gradients filed for one node: an array if they all are, else a Variable."""
    if len(lst) == 1:
        return lst[0]
    for g in lst:
        if type(g) is not _ndarray:
            return sum_grads([_as_var(t) for t in lst])
    return add_arrays(lst)


class GradientDtypeError(TypeError, ValueError):
    """A backward returned a gradient of the wrong dtype: a ``TypeError`` by chainlet's rule
    for wrong kinds, and the ``ValueError`` Chainer raises for it."""


def _bad_grad(func: _fn.FunctionNode, i: int, node: VariableNode, gx: Any) -> Exception:
    if not backend.is_array(gx):
        return TypeError(f'{func.label}.backward: gradient of input {i} must be a Variable, '
                         f'an ndarray or None, got {type(gx).__name__}')
    if gx.shape != node.shape:
        return ValueError(f'{func.label}: shape of gradients returned from backward is incorrect: '
                          f'gradient of input {i} has shape {gx.shape}, expected {node.shape} '
                          f'(the shape of the input)')
    return GradientDtypeError(
        f'{func.label}: dtype of gradients returned from backward is incorrect: gradient of '
        f'input {i} has dtype {gx.dtype}, expected {node.dtype} (the dtype of the input)')


def _grads_as_tuple(func: _fn.FunctionNode, gxs: Any) -> tuple:
    if isinstance(gxs, list):
        return tuple(gxs)
    raise TypeError(f'{func.label}.backward must return a tuple of gradients (Variables, arrays '
                    f'or None), got {type(gxs).__name__}')


def _per_target(func: _fn.FunctionNode, gxs: tuple, indexes: tuple) -> tuple:
    """A backward may return one gradient per input: keep those of the target indexes."""
    n_in = len(func.inputs)
    if len(gxs) != n_in:
        raise ValueError(
            f'{func.label}: number of gradients returned from backward is incorrect: '
            f'{len(gxs)} gradients; expected {len(indexes)} (one per target index) or {n_in} '
            f'(one per input)')
    return tuple([gxs[i] for i in indexes])


def _checked_grad(func: _fn.FunctionNode, i: int, node: VariableNode, gx: Any,
                  double: bool) -> Variable:
    """Check a gradient's shape and dtype against its input; wrap a bare array (the slow path
    of :func:`_backward_step`, which tests the common cases inline)."""
    if func._use_backward_arrays and isinstance(gx, numpy.generic):
        gx = numpy.asarray(gx)  # what NumPy gives for 0-d arithmetic in a _backward_arrays
    data = gx._data if isinstance(gx, Variable) else gx
    if isinstance(gx, Variable) or backend.is_array(gx):
        # An integer input may receive a gradient of another dtype (as in Chainer).
        if data.shape == node.shape and (data.dtype == node.dtype or node.dtype.kind != 'f'):
            return gx if isinstance(gx, Variable) else _as_grad_variable(gx, func, double)
    raise _bad_grad(func, i, node, data)


def _run_backward(func: _fn.FunctionNode, indexes: tuple, gys: tuple,
                  pending: Optional[tuple], arrays: bool) -> Any:
    """Call the node's ``_backward_arrays`` (on arrays), ``backward_accumulate`` or ``backward``
    (on Variables, with the gradients' GPU current)."""
    if pending is not None:
        return _on_device_of(gys, func.backward_accumulate, indexes, gys, pending)
    g0 = gys[0]
    if arrays:
        d0 = g0 if g0 is None or type(g0) is _ndarray else g0._data
        if type(d0) is _ndarray and func._use_backward_arrays:
            return func._backward_arrays(indexes, (d0,) if len(gys) == 1 else tuple(
                [g if g is None or type(g) is _ndarray else g._data for g in gys]))
        gys = _as_vars(gys)
        g0 = gys[0]
    if g0 is not None and type(g0._data) is _ndarray:  # the CPU: no device to select
        return func.backward(indexes, gys)
    return _on_device_of(gys, func.backward, indexes, gys)


def _backward_step(func: _fn.FunctionNode, indexes: tuple, gys: tuple, pending: Optional[tuple],
                   double: bool, debug: bool, arrays: bool = False) -> list:
    """Run one node's backward and return its checked gradients, one per target index.

    ``pending`` holds the gradients the targets already have when the node implements
    ``backward_accumulate`` (``None`` otherwise). ``arrays``: first-order gradients with no
    function hook, so ``gys`` may hold bare NumPy arrays, a node's ``_backward_arrays`` may
    compute on them, and a correct array gradient is given back as it is. In debug mode an
    error names the node's call.
    """
    try:
        g0 = gys[0]
        if arrays and pending is None and func._use_backward_arrays and type(g0) is _ndarray \
                and len(gys) == 1:
            gxs = func._backward_arrays(indexes, gys)  # the common case, inline
        elif not arrays and pending is None and type(g0) is Variable and \
                type(g0._data) is _ndarray:
            gxs = func.backward(indexes, gys)  # on Variables on the CPU (double backprop)
        else:
            gxs = _run_backward(func, indexes, gys, pending, arrays)
        if type(gxs) is not tuple:
            gxs = _grads_as_tuple(func, gxs)
        if len(gxs) != len(indexes):
            gxs = _per_target(func, gxs, indexes)
        inputs = func._inputs
        checked = []
        for i, gx in zip(indexes, gxs):
            if gx is not None:
                node = inputs if type(inputs) is VariableNode else inputs[i]
                if type(gx) is _ndarray:
                    if not (arrays and gx.shape == node.shape and (
                            gx.dtype == node.dtype or node.dtype.kind != 'f')):
                        gx = _checked_grad(func, i, node, gx, double)  # raises or wraps
                elif type(gx) is not Variable or gx._data.shape != node.shape or (
                        gx._data.dtype != node.dtype and node.dtype.kind == 'f'):
                    gx = _checked_grad(func, i, node, gx, double)  # raises or wraps an array
                if debug:
                    _debug.check_finite((gx._data,), 'gradient of input', func, index=i)
            checked.append(gx)
        return checked
    except Exception as e:
        if func.stack:  # debug mode: say where the failing function was applied
            _debug.add_call_site(e, func)
        raise


def _add_grad(grads: dict, heap: list, pushed: set, node: VariableNode, g: Variable) -> None:
    """File gradient ``g`` of ``node``; the first one schedules the node's creator."""
    lst = grads.get(node)
    if lst is not None:
        lst.append(g)
        return
    grads[node] = [g]
    creator = node.creator_node
    if creator is not None and creator not in pushed:
        pushed.add(creator)
        # Rank ties: the later-scheduled node first (deterministic runs; no creation counter
        # for apply() to keep).
        _heappush(heap, (-creator.rank, -len(pushed), creator))


def _pop_output_grads(func: _fn.FunctionNode, grads: dict, targets: Optional[dict],
                      retain_grad: bool) -> Optional[tuple]:
    """Sum and remove the gradients of ``func``'s outputs (``None`` where one got none)."""
    gys: list = []
    found = False
    refs = func._outputs
    for ref in ((refs,) if type(refs) is _weakref else refs):
        node: Any = ref()
        lst = None if node is None else grads.pop(node, None)
        if lst is None:
            gys.append(None)
            continue
        gy = lst[0] if len(lst) == 1 else _sum_terms(lst)
        if targets is not None and node in targets:
            gy = targets[node] = _as_var(gy)
        if retain_grad:
            holder = node._grad_holder()
            if holder is not None:  # the Variable may still be held
                gy = holder._grad_var = _as_var(gy)
        gys.append(gy)
        found = True
    return tuple(gys) if found else None


def _target_indexes(func: _fn.FunctionNode, targets: Optional[dict]) -> tuple:
    """The inputs of ``func`` that need a gradient (for ``grad``: on the way to a target)."""
    if targets is None:
        inputs = func._inputs
        if type(inputs) is VariableNode:  # one input: the common case
            return (0,) if inputs.requires_grad else ()
        count = len(inputs)
        if count == 1:
            return (0,) if inputs[0].requires_grad else ()
        if count == 2:
            a, b = inputs[0].requires_grad, inputs[1].requires_grad
            return ((0, 1) if b else (0,)) if a else ((1,) if b else ())
        return tuple([i for i, n in enumerate(inputs) if n.requires_grad])
    inputs = func._inputs
    if type(inputs) is VariableNode:
        return (0,) if inputs.requires_grad and (
            inputs.creator_node is not None or inputs in targets) else ()
    return tuple([i for i, n in enumerate(inputs)
                  if n.requires_grad and (n.creator_node is not None or n in targets)])


def _call_backward(func: _fn.FunctionNode, indexes: tuple, gys: tuple, grads: dict,
                   double: bool, debug: bool) -> list:
    """:func:`_backward_step` between the node's hooks, for ``backward_accumulate`` too."""
    gys = _as_vars(gys)
    hooks = _function_hooks.collect(func._local_function_hooks)
    if hooks:
        in_data = tuple([n.data for n in func.inputs])
        out_grad = tuple([None if g is None else g._data for g in gys])
        for hook in hooks:
            hook.backward_preprocess(func, in_data, out_grad)
    pending = None
    if func._has_backward_accumulate:
        pending = tuple([_take_sum(grads, func.inputs[i]) for i in indexes])
    gxs = _backward_step(func, indexes, gys, pending, double, debug)
    for hook in hooks:
        hook.backward_postprocess(func, in_data, out_grad)
    return gxs


def _take_sum(grads: dict, node: VariableNode) -> Optional[Variable]:
    lst = grads.pop(node, None)
    return None if lst is None else _as_var(_sum_terms(lst))


class _backward_mode:  # noqa: N801 (used as a context manager, like contextlib's)
    """Backprop on only for double backprop; debug checks per node, not per applied function.

    ``with _backward_mode(double) as debug`` yields whether debug mode is on. In debug mode the
    functions applied inside a backward are not checked one by one: a NaN is reported once, for
    the node whose backward produced it, with that node's forward stack. (A class, not a
    generator: every backward enters it, and a generator context manager costs ~2 us.)
    """

    __slots__ = ('double', 'saved_backprop', 'saved_debug')

    def __init__(self, double: bool) -> None:
        self.double = double

    def __enter__(self) -> bool:
        local = _config.config.__dict__  # the thread's own settings
        self.saved_backprop = local.get('enable_backprop', _MISSING)
        self.saved_debug = debug = local.get('debug', _MISSING)
        if debug is _MISSING:
            debug = _config.global_config.debug
        local['enable_backprop'] = self.double
        if debug:
            local['debug'] = False
            return True
        return False

    def __exit__(self, *exc: Any) -> None:
        local = _config.config.__dict__
        if self.saved_backprop is _MISSING:
            local.pop('enable_backprop', None)
        else:
            local['enable_backprop'] = self.saved_backprop
        if self.saved_debug is _MISSING:
            local.pop('debug', None)
        else:
            local['debug'] = self.saved_debug


def _run(output_nodes: Sequence[VariableNode], output_grads: Sequence[Variable],
         double: bool, retain_grad: bool, debug: bool, targets: Optional[dict] = None) -> dict:
    """Propagate ``output_grads`` back through the graph, inside ``_backward_mode(double)``
    (entered by the caller, which also files the results there).

    Args:
        debug: What ``_backward_mode`` said of debug mode.
        targets: For ``chainlet.grad``: maps each requested input's node to ``None``; filled
            with the gradients found. ``None`` for ``Variable.backward``.

    Returns:
        ``{node: [grads]}`` for the leaves reached (backward mode), or ``targets``.
    """
    grads: dict = {}  # VariableNode -> list of gradient Variables (nodes hash by identity)
    heap: list = []
    pushed: set = set()
    for node, gy in zip(output_nodes, output_grads):
        _add_grad(grads, heap, pushed, node, gy)
    arrays = not double and not debug and not _function_hooks.active
    while heap:
        func = _heappop(heap)[2]
        gys = _pop_output_grads(func, grads, targets, retain_grad)
        if gys is None:
            continue
        indexes = _target_indexes(func, targets)
        if not indexes:
            continue
        if _function_hooks.active or func._local_function_hooks or \
                func._has_backward_accumulate:
            gxs = _call_backward(func, indexes, gys, grads, double, debug)
        else:
            gxs = _backward_step(func, indexes, gys, None, double, debug, arrays)
        inputs = func._inputs
        for i, gx in zip(indexes, gxs):
            if gx is None:
                continue
            node = inputs if type(inputs) is VariableNode else inputs[i]
            lst = grads.get(node)
            if lst is None:  # the first gradient of node: schedule its creator
                _add_grad(grads, heap, pushed, node, gx)
            else:
                lst.append(gx)
        del gys, gxs
    if targets is None:
        return grads
    for node, lst in grads.items():  # summed here, where backprop is on only if double
        if node in targets:
            targets[node] = _as_var(lst[0] if len(lst) == 1 else _sum_terms(lst))
    return targets


def _may_share(a: Any, b: Any) -> bool:
    """Whether two arrays may overlap in memory (a cheap bounds test, no false negatives)."""
    if type(a) is not type(b):  # NumPy and CuPy arrays never share memory
        return False
    if type(a) is numpy.ndarray:  # may_share_memory costs 1 us; an owner is enough
        owner_a, owner_b = _owner(a), _owner(b)
        if owner_a is not None and owner_b is not None:
            return owner_a is owner_b
    if type(a) is not numpy.ndarray and a.device != b.device:  # nor do two GPUs' arrays
        return False
    return bool(backend.get_array_module(a).may_share_memory(a, b))


def _owner(a: numpy.ndarray) -> Optional[numpy.ndarray]:
    """The NumPy array that allocated ``a``'s memory, or ``None`` when that is not known (a
    view of a foreign buffer). Two arrays overlap only if they have the same owner: NumPy
    points a view, even a view of a view, at the owner."""
    base = a.base
    if base is None:
        return a
    return base if type(base) is numpy.ndarray and base.base is None else None


def _writable(a: Any) -> bool:
    if type(a) is numpy.ndarray:
        return a.flags.writeable
    flags = getattr(a, 'flags', None)
    return flags is None or getattr(flags, 'writeable', True)


def _initial_grad(var: Variable, what: str) -> Variable:
    data = var._data
    if data.size != 1:
        raise ValueError(
            f'{what}: the output has shape {data.shape}; set its .grad to an array of that shape '
            f'(or pass grad_outputs), or reduce it to one element (e.g. with .sum()) first')
    return _ones_like(data)


def _ones_like(data: Any) -> Variable:
    if isinstance(data, numpy.ndarray):
        # numpy.ones_like costs 0.7 us for a 0-d loss, five times numpy.array (same result:
        # the subclass and memory order it would keep do not matter for a new gradient)
        return _from_output(numpy.array(1, data.dtype) if data.ndim == 0 else
                            numpy.ones(data.shape, data.dtype), False)
    with data.device:  # CuPy allocates on the current device, not the array's
        return Variable(backend.get_array_module(data).ones_like(data), requires_grad=False)


def backward_from(var: Variable, retain_grad: bool, enable_double_backprop: bool,
                  loss_scale: Optional[float]) -> None:
    """Implementation of :meth:`Variable.backward`."""
    node = var._node
    if node.creator_node is None:
        return
    gy = var._grad_var
    if gy is None:
        # As in Chainer: the initial gradient (times loss_scale) is stored on the output and
        # stays there after backward; a gradient set by the user is used as it is.
        gy = _initial_grad(var, 'backward')
        if loss_scale is not None:
            with _config.using_config('enable_backprop', enable_double_backprop):
                gy = gy * loss_scale
        var._grad_var = gy
    with _backward_mode(enable_double_backprop) as debug:
        leaves = _run((node,), (gy,), enable_double_backprop, retain_grad, debug)
        (_store_leaf_grads_debug if debug else _store_leaf_grads)(leaves, (gy,))


# Held while gradients are added into leaves' .grad: the read-add-store of one thread must not
# interleave with another's on a shared parameter (see the module docstring). Reentrant, since
# a function hook observing the gradient sum may itself run a backward.
_leaf_lock = threading.RLock()


def _store_leaf_grads(leaves: dict, output_grads: Sequence[Variable]) -> None:
    """File the gradients ``_run`` found for leaves in their ``.grad``, inside the caller's
    ``_backward_mode`` (so a sum is recorded only for double backprop), under
    :data:`_leaf_lock` so that threads sharing a leaf lose no gradient."""
    with _leaf_lock:
        _store_leaf_grads_unlocked(leaves, output_grads)


def _store_leaf_grads_unlocked(leaves: dict, output_grads: Sequence[Variable]) -> None:
    # A backward may hand the same gradient Variable to several inputs (add does), a read-only
    # broadcast view (sum does), or a view of an output's own gradient (reshape, transpose do);
    # leaves get their own writable arrays so that an in-place update of one .grad (optimizer
    # hooks do this) neither fails nor changes another.
    out_data = [gy._data for gy in output_grads]
    given = {id(d) for d in out_data}
    for node, lst in leaves.items():
        holder = node._grad_holder()
        if node.creator_node is not None or holder is None:
            continue
        g = _sum_terms(lst)
        old = holder._grad_var
        if old is not None:
            g = sum_grads([old, _as_var(g)])
        elif _needs_copy(g if type(g) is _ndarray else g._data, given, out_data):
            g = copy_grad(_as_var(g))
        else:
            g = _as_var(g)
        given.add(id(g._data))
        holder._grad_var = g


def _store_leaf_grads_debug(leaves: dict, output_grads: Sequence[Variable]) -> None:
    """:func:`_store_leaf_grads` in debug mode: warn where a gradient is added to one that a
    previous backward left (a forgotten ``cleargrads()``), a check the normal path skips."""
    holders = [node._grad_holder() for node in leaves if node.creator_node is None]
    holders = [h for h in holders if h is not None]
    _debug.warn_accumulation(holders)
    _store_leaf_grads(leaves, output_grads)
    for h in holders:
        _debug.note_backward_grad(h, h._grad_var)


def _needs_copy(d: Any, given: set, out_data: list) -> bool:
    """Whether a leaf's new gradient array must be copied before it becomes its ``.grad``:
    another leaf or an output has it, it is read-only, or it may overlap an output's."""
    if id(d) in given or not _writable(d):
        return True
    for o in out_data:
        if _may_share(d, o):
            return True
    return False


def backward(outputs: Any, grad_outputs: Any = None, *,
             enable_double_backprop: bool = False) -> None:
    """Backpropagate from several outputs at once, accumulating into the leaves' ``.grad``.

    Unlike :meth:`Variable.backward`, no output gets a default gradient: each starts from its
    ``grad_var`` (or from ``grad_outputs``), and outputs without one are skipped with a
    ``RuntimeWarning``. The outputs' own gradients are cleared, as Chainer does.

    Args:
        outputs: List or tuple of output Variables.
        grad_outputs: ``None`` or a list/tuple of gradients (Variables or arrays), one per output.
        enable_double_backprop: Record the backward computation so the gradients can be
            differentiated again.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.array([1.0, 2.0]))
        >>> y0, y1 = x * 3, x * 4
        >>> chainlet.backward([y0, y1], [np.ones(2), np.full(2, 10.0)])
        >>> x.grad
        array([43., 43.])
    """
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(f'backward: outputs must be a tuple or a list of Variables, '
                        f'got {type(outputs).__name__}')
    for i, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise TypeError(f'backward: outputs[{i}] must be a Variable, got {type(y).__name__}')
    if grad_outputs is not None:
        if not isinstance(grad_outputs, (tuple, list)):
            raise TypeError(f'backward: grad_outputs must be None, a tuple or a list, '
                            f'got {type(grad_outputs).__name__}')
        if len(grad_outputs) != len(outputs):
            raise ValueError(f'backward: grad_outputs has {len(grad_outputs)} entries but '
                             f'outputs has {len(outputs)}')
        grad_outputs = _check_grad_list(list(grad_outputs), list(outputs), 'grad_outputs',
                                        'outputs')
    else:
        grad_outputs = []
        for y in outputs:
            if y._grad_var is None:
                warnings.warn('backward: an output has no gradient (or appears twice); it is '
                              'skipped. chainlet.backward sets no default gradient.',
                              RuntimeWarning, stacklevel=2)
            grad_outputs.append(y._grad_var)
            y._grad_var = None
    pairs = [(y._node, gy) for y, gy in zip(outputs, grad_outputs)
             if gy is not None and y.creator_node is not None]
    if not pairs:
        return
    nodes, grads = zip(*pairs)
    with _backward_mode(enable_double_backprop) as debug:
        leaves = _run(nodes, grads, enable_double_backprop, False, debug)
        (_store_leaf_grads_debug if debug else _store_leaf_grads)(leaves, grads)


def _check_variables(arg: Any, name: str) -> list:
    if not isinstance(arg, (list, tuple)):
        raise TypeError(f'grad: {name} must be a list or tuple of Variables, '
                        f'got {type(arg).__name__}')
    for i, v in enumerate(arg):
        if not isinstance(v, Variable):
            raise TypeError(f'grad: {name}[{i}] must be a Variable, got {type(v).__name__}')
    return list(arg)


def _refuse_array_backward_graph(outputs: list) -> None:
    """Raise ``RuntimeError`` if a graph behind ``outputs`` contains a backward on arrays."""
    seen: set = set()
    stack = [y.creator_node for y in outputs if y.creator_node is not None]
    while stack:
        func = stack.pop()
        if func in seen:
            continue
        seen.add(func)
        if isinstance(func, _fn.NonDifferentiableGrad):
            raise RuntimeError(
                f'grad: the outputs were computed by a backward that works on arrays '
                f'({func._origin}, e.g. an old-style Function); they cannot be differentiated '
                f'again')
        stack.extend(n.creator_node for n in func.inputs or () if n.creator_node is not None)


def _check_grad_list(grads: Any, refs: list, name: str, ref_name: str) -> list:
    if grads is None:
        return [None] * len(refs)
    if not isinstance(grads, (list, tuple)):
        raise TypeError(f'grad: {name} must be a list or tuple, got {type(grads).__name__}')
    if len(grads) != len(refs):
        raise ValueError(f'grad: {name} has {len(grads)} entries but {ref_name} has {len(refs)}')
    out: list = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            out.append(None)
            continue
        if not isinstance(g, Variable):
            if not backend.is_array(g):
                raise TypeError(f'grad: {name}[{i}] must be a Variable, an ndarray or None, '
                                f'got {type(g).__name__}')
            g = Variable(g, requires_grad=False)
        if g.shape != ref.shape:
            raise ValueError(f'grad: {name}[{i}] has shape {g.shape}, expected {ref.shape} '
                             f'(the shape of {ref_name}[{i}])')
        if g.dtype != ref.dtype:
            raise TypeError(f'grad: {name}[{i}] has dtype {g.dtype}, expected {ref.dtype} '
                            f'(the dtype of {ref_name}[{i}])')
        out.append(g)
    return out


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, grad_inputs: Any = None,
         set_grad: bool = False, retain_grad: bool = False,
         enable_double_backprop: bool = False, loss_scale: Optional[float] = None) -> list:
    """Gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    Args:
        outputs: List or tuple of Variables to differentiate.
        inputs: List or tuple of Variables to differentiate with respect to.
        grad_outputs: Initial gradients of the outputs (``None`` entries: ones of the output's
            shape).
        grad_inputs: Initial gradients of the inputs, added to what reaches them (and passed
            on to any other input upstream of them).
        set_grad: Also store the results in the inputs' ``grad_var``.
        retain_grad: Keep gradients of intermediate variables in their ``grad_var``.
        enable_double_backprop: Build a graph of the gradient computation so the results can be
            differentiated again.
        loss_scale: Multiply the initial gradients by this factor.

    Returns:
        A list with one gradient Variable per input, ``None`` where an input is unreachable from
        the outputs or does not require grad.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.array([2.0]))
        >>> y = x ** 3
        >>> gx, = chainlet.grad([y], [x], enable_double_backprop=True)
        >>> gx.array
        array([12.])
        >>> ggx, = chainlet.grad([gx], [x])
        >>> ggx.array
        array([12.])
    """
    outputs = _check_variables(outputs, 'outputs')
    try:
        inputs = _check_variables(inputs, 'inputs')
    except TypeError:
        # A bad input often comes from differentiating an old-style gradient (whose own
        # gradient is None); name that cause first, as Chainer does.
        _refuse_array_backward_graph(outputs)
        raise
    grad_outputs = _check_grad_list(grad_outputs, outputs, 'grad_outputs', 'outputs')
    grad_inputs = _check_grad_list(grad_inputs, inputs, 'grad_inputs', 'inputs')
    targets: dict = {x._node: None for x in inputs if x._node.requires_grad}
    # The gradient table starts with the outputs' gradients and the inputs' given gradients
    # (grad_inputs): a given gradient of an input that lies on the path to another input flows
    # on to it, as in Chainer.
    # Inside the backward mode from the start, so that a loss scale is recorded for double
    # backprop like the rest of the gradient computation.
    with _backward_mode(enable_double_backprop) as debug:
        nodes, grads = [], []
        for i, (y, gy) in enumerate(zip(outputs, grad_outputs)):
            node = y._node
            if node.creator_node is None:
                if node not in {x._node for x in inputs}:
                    raise RuntimeError(
                        f'grad: outputs[{i}] has no computational graph (it has no creator). If '
                        f'it is a gradient, compute that gradient with enable_double_backprop='
                        f'True; otherwise check that it was computed from the inputs with '
                        f'backprop enabled')
                if node not in targets:
                    continue
            nodes.append(node)
            # As in Chainer: a missing output gradient is ones, whatever the output's shape.
            gy = _ones_like(y._data) if gy is None else gy
            grads.append(gy if loss_scale is None else gy * loss_scale)
        for x, g in zip(inputs, grad_inputs):  # not scaled
            if g is not None and x._node in targets:
                nodes.append(x._node)
                grads.append(g)
        _run(nodes, grads, enable_double_backprop, retain_grad, debug, targets)

    results = [targets.get(x._node) for x in inputs]
    if set_grad:
        for x, g in zip(inputs, results):
            x._grad_var = g
    return results
