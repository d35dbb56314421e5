"""Recording and replaying the function nodes of a static chain (the machinery of static_graph).

A *recording* is made from one traced call: a :class:`Tracer` (a function hook) notes every
FunctionNode applied (class, attributes as constructed, input arrays, output arrays) and every
:func:`static_code` call; :class:`SlotMap` then gives each value the steps read or write a
*slot* (an index into one list of values) and ties every input to the slot it came from. The
same is done for the backward of the chain's graph, whose slots continue those of the forward.
Two recordings of the same key are compared (:meth:`_Recording.difference`); a verified one is
compiled into a schedule whose replay is a loop over tuples.

Slots, in order: the call's leaves (arguments), the arrays and parameters of the chain's links,
the outputs of the forward steps, the arrays the forward nodes keep as attributes (what their
backward reads, a dropout mask say); for the backward, then the output gradients and the outputs
of the backward steps; each compiled schedule appends its constants. An input given as ``~slot``
takes the array of that slot only: a Variable that the chain's code made from it, cut from the
graph.
"""
from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

import numpy

from chainlet import backend
from chainlet.function import FunctionAdapter
from chainlet.function_hooks import FunctionHook
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

# Graph state that FunctionNode.apply sets; a recorded node is re-created without it.
_GRAPH_KEYS = ('_inputs', '_outputs', 'rank', 'stack', '_applied',
               '_retained_output_data', 'forward', 'forward_gpu')
# Built-in functions whose checks read array values, not only types: kept on replay.
_CHECKS_READ_VALUES = frozenset(['Permutate'])
_LEAF = object()


class NotStatic(Exception):
    """The recorded code cannot be replayed; the message says why."""


def _data(value: Any) -> Any:
    return value.array if isinstance(value, Variable) else value


def _no_check(in_data: tuple) -> None:
    pass


# -- nested arguments and results --

def flatten(obj: Any, leaves: list) -> Any:
    """The structure of ``obj`` with its Variables and arrays moved to ``leaves``."""
    if isinstance(obj, Variable) or backend.is_array(obj):
        leaves.append(obj)
        return _LEAF
    if isinstance(obj, (tuple, list)):
        return (type(obj), tuple([flatten(x, leaves) for x in obj]))
    if isinstance(obj, dict):
        return (dict, tuple(obj), tuple([flatten(x, leaves) for x in obj.values()]))
    return ('const', obj)


def unflatten(structure: Any, leaves: Any) -> Any:
    """Rebuild a structure from :func:`flatten`, taking leaves from the iterator ``leaves``."""
    if structure is _LEAF:
        return next(leaves)
    head = structure[0]
    if head == 'const':
        return structure[1]
    if head is dict:
        return {k: unflatten(s, leaves) for k, s in zip(structure[1], structure[2])}
    items = [unflatten(s, leaves) for s in structure[1]]
    if hasattr(head, '_fields'):  # a namedtuple
        return head(*items)
    return head(items)


def leaf_spec(x: Any) -> tuple:
    """What the schedule key records of an argument: kind, array type, shape, dtype, device."""
    data = _data(x)
    if data is None:
        return (type(x), None)
    device = None if type(data) is numpy.ndarray else getattr(data.device, 'id', data.device)
    return (type(x), type(data), data.shape, data.dtype, device)


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Whether two recorded values are the same hyper-parameter or constant."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if backend.is_array(a):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        xp = backend.get_array_module(a)
        return bool(xp.array_equal(a, b, equal_nan=a.dtype.kind in 'fc'))
    if isinstance(a, Variable):
        return same(a.array, b.array, depth)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y, depth) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k], depth) for k in a)
    if isinstance(a, float) and a != a:
        return b != b
    if type(a).__eq__ is object.__eq__ and hasattr(a, '__dict__') and not callable(a):
        # An object without its own equality (an options holder, say): compare its state.
        return depth < 3 and same(vars(a), vars(b), depth + 1)
    try:
        return bool(a == b)
    except Exception:  # an ambiguous comparison counts as a difference
        return False


# -- tracing --

class _NodeStep:
    """One recorded function node: enough to re-create it and wire its inputs."""

    def __init__(self, node: FunctionNode, state: dict, in_data: tuple) -> None:
        self.node: Optional[FunctionNode] = node
        self.cls = type(node)
        self.label = node.label
        self.state = state
        self.in_arrays = in_data
        self.out_arrays: tuple = ()
        self.inputs: tuple = ()  # per input: (slot, detached) or ('const', value)
        self.remaps: tuple = ()  # (attribute, slot): attributes holding arrays of the chain
        self.mutable: tuple = ()  # attributes (lists, dicts) copied for every new node
        self.out_slots: tuple = ()
        self.kept: tuple = ()  # (attribute, slot): arrays the node keeps after forward


class _CodeStep:
    """One recorded :func:`static_code` call."""

    def __init__(self, func: Callable, label: str, args: tuple, kwargs: dict, ret: Any) -> None:
        self.func = func
        self.label = label
        self.in_leaves: list = []
        self.structure = flatten((args, kwargs), self.in_leaves)
        self.ret_leaves: list = []
        flatten(ret, self.ret_leaves)
        self.inputs: tuple = ()
        self.out_slots: tuple = ()


class Tracer(FunctionHook):
    """Records the function nodes and ``static_code`` calls applied while it is active."""

    _count = 0

    def __init__(self) -> None:
        Tracer._count += 1
        self.name = f'static_graph_tracer_{Tracer._count}'
        self.steps: list = []
        self.suspended = 0
        self.unsupported: Optional[str] = None

    def forward_preprocess(self, function: Any, in_data: tuple) -> None:
        if self.suspended:
            return
        if isinstance(function, FunctionAdapter):
            self.unsupported = (f'the old-style Function {function.label} cannot be replayed '
                                f'(write it as a FunctionNode)')
            return
        state = dict(function.__dict__)
        for key in _GRAPH_KEYS:
            state.pop(key, None)
        step = _NodeStep(function, state, in_data)
        self.steps.append(step)
        # Catch the output arrays: apply() calls forward (or forward_gpu) on the instance.
        for name in ('forward', 'forward_gpu'):
            method = getattr(function, name)

            def capture(inputs: tuple, method: Callable = method) -> tuple:
                outputs = method(inputs)
                if type(outputs) is tuple:
                    # NumPy scalars become arrays here, as apply() would make them, so that
                    # the arrays recorded are the ones the outputs hold.
                    outputs = tuple([numpy.asarray(y) if isinstance(y, numpy.generic) else y
                                     for y in outputs])
                    step.out_arrays = outputs
                return outputs
            function.__dict__[name] = capture

    def forward_postprocess(self, function: Any, in_data: tuple) -> None:
        d = function.__dict__
        d.pop('forward', None)
        d.pop('forward_gpu', None)

    def record_code(self, func: Callable, label: str, args: tuple, kwargs: dict,
                    ret: Any) -> None:
        if not self.suspended:
            self.steps.append(_CodeStep(func, label, args, kwargs, ret))


# -- slots --

class SlotMap:
    """Gives values slots and finds the slot a later input came from (by graph node or array).

    It keeps what it maps alive, so that ``id()`` keys stay unique while it is in use.
    """

    def __init__(self) -> None:
        self.by_node: dict = {}
        self.by_array: dict = {}
        self.keep: list = []
        self.n = 0
        self.strict = True  # refuse unknown Variables that require grad

    def add(self, value: Any, node: Any = None) -> int:
        slot = self.n
        self.n += 1
        self.register(slot, value, node)
        return slot

    def copy(self) -> 'SlotMap':
        other = SlotMap()
        other.by_node = dict(self.by_node)
        other.by_array = dict(self.by_array)
        other.keep = list(self.keep)
        other.n = self.n
        other.strict = self.strict
        return other

    def register(self, slot: int, value: Any, node: Any = None, weak: bool = False) -> None:
        """Map ``value`` (and its graph node) to ``slot``; ``weak`` keeps an existing mapping."""
        if isinstance(value, Variable):
            node, value = value._node, value.array
        if node is not None and not (weak and id(node) in self.by_node):
            self.by_node[id(node)] = slot
            self.keep.append(node)
        if value is not None and backend.is_array(value) and not (
                weak and id(value) in self.by_array):
            self.by_array[id(value)] = slot
            self.keep.append(value)

    def resolve(self, value: Any, consts: list, node: Any = None, graph: bool = False) -> tuple:
        """``(slot, detached)`` for a value met before, else ``('const', value)``.

        ``node`` is the graph node that fed the input (``graph`` says whether one was built);
        an array of a slot reached through another node is the slot's data only.
        """
        if value is None:
            return ('const', None)
        if isinstance(value, Variable):
            node, graph, value = value._node, True, value.array
        if node is not None:
            slot = self.by_node.get(id(node))
            if slot is not None:
                return (slot, False)
        slot = self.by_array.get(id(value))
        if slot is not None:
            return (slot, graph)
        if node is not None and node.requires_grad and self.strict:
            # Replaying it as a constant would lose its gradient.
            raise NotStatic('a function reads a Variable that requires grad but is neither an '
                            'argument of the call nor a parameter of the chain\'s links (pass '
                            'it as an argument)')
        consts.append(value)
        return ('const', value)


def _holds_state(value: Any, depth: int = 0) -> bool:
    """Whether a constant holds arrays, Variables or function nodes (possibly in containers):
    in a backward, those come from the traced call and would be stale on replay."""
    if backend.is_array(value) or isinstance(value, (Variable, FunctionNode)):
        return True
    if depth > 3:
        return False
    if isinstance(value, (tuple, list, set)):
        return any(_holds_state(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_holds_state(v, depth + 1) for v in value.values())
    return False


def _resolve_steps(steps: list, slots: SlotMap, consts: list) -> None:
    """Tie the inputs of ``steps`` to slots and give their outputs slots, in order."""
    for step in steps:
        if isinstance(step, _CodeStep):
            step.inputs = tuple([slots.resolve(x, consts) for x in step.in_leaves])
            step.out_slots = tuple([slots.add(y) for y in step.ret_leaves])
            step.in_leaves = []
            continue
        node = step.node
        graph_inputs = node.inputs
        step.inputs = tuple([
            slots.resolve(x, consts, graph_inputs[i] if graph_inputs is not None else None,
                          graph_inputs is not None)
            for i, x in enumerate(step.in_arrays)])
        remaps = []
        mutable = []
        for name, value in step.state.items():
            if backend.is_array(value) or isinstance(value, Variable):
                ref = slots.resolve(value, consts)
                if ref[0] != 'const':
                    remaps.append((name, ref[0]))
            elif isinstance(value, (list, dict, set)):
                mutable.append(name)
                consts.append(value)
            elif isinstance(value, FunctionNode):
                raise NotStatic(f'{step.label} keeps a reference to another function node')
            elif name not in ('_local_function_hooks', '_check_arrays',
                              '_instance_check_type_forward'):
                consts.append(value)
        step.remaps = tuple(remaps)
        step.mutable = tuple(mutable)
        out_refs = node.outputs or ()
        out_slots = []
        for j, y in enumerate(step.out_arrays):
            out_node = out_refs[j]() if j < len(out_refs) else None
            out_slots.append(slots.add(y, out_node))
        step.out_slots = tuple(out_slots)


class _Recorded:
    """What two recordings must agree on, and how to say where they differ."""

    steps: list
    consts: list

    def signature(self) -> tuple:
        """The recording's structure without its constants (each kind adds its own parts)."""
        return self._step_signatures()

    def difference(self, other: '_Recorded') -> Optional[str]:
        """How ``other`` differs from this recording, or ``None``."""
        if len(self.steps) != len(other.steps):
            return (f'the number of recorded function calls changed from {len(self.steps)} to '
                    f'{len(other.steps)}')
        for i, (a, b) in enumerate(zip(self.steps, other.steps)):
            if type(a) is not type(b) or a.label != b.label:
                return f'call {i} changed from {a.label} to {b.label}'
        if self.signature() != other.signature():
            return 'the wiring of the recorded functions changed'
        if len(self.consts) != len(other.consts) or not all(
                same(a, b) for a, b in zip(self.consts, other.consts)):
            return ('a hyper-parameter or a constant array changed (a value computed from the '
                    'data outside function nodes?)')
        return None

    def _step_signatures(self) -> tuple:
        sigs: list = []  # node steps and code steps give tuples of different lengths
        for step in self.steps:
            inputs = tuple([r if r[0] != 'const' else 'const' for r in step.inputs])
            if isinstance(step, _NodeStep):
                sigs.append((step.cls, tuple(step.state), step.remaps, inputs, step.out_slots,
                             step.kept))
            else:
                sigs.append((step.func, inputs, step.out_slots))
        return tuple(sigs)


class Recording(_Recorded):
    """The forward of one traced call of a static chain.

    ``slots`` (the :class:`SlotMap`) stays until :meth:`release`, for recording the backward.
    """

    def __init__(self, chain: Any, leaves: list, tracer: Tracer, result: Any) -> None:
        if tracer.unsupported:
            raise NotStatic(tracer.unsupported)
        self.n_inputs = len(leaves)
        self.steps = tracer.steps
        self.consts: list = []
        self.attr_slots: list = []  # (slot, link, attribute name, link path)
        slots = SlotMap()
        for x in leaves:
            slots.add(x)
        for path, link in chain.namedlinks():
            for name, value in sorted(vars(link).items()):
                if isinstance(value, Variable) or backend.is_array(value):
                    self.attr_slots.append((slots.add(value), weakref.ref(link), name, path))
        _resolve_steps(self.steps, slots, self.consts)
        # Arrays the nodes keep after forward (dropout's mask, a saved intermediate): slots
        # that only the backward reads, so they never shadow a mapping of the forward.
        for step in self.steps:
            if isinstance(step, _CodeStep):
                continue
            kept = []
            for name, value in step.node.__dict__.items():
                if backend.is_array(value) and step.state.get(name) is not value:
                    slot = slots.n
                    slots.n += 1
                    slots.register(slot, value, weak=True)
                    kept.append((name, slot))
            step.kept = tuple(kept)
        self.has_code = any(isinstance(s, _CodeStep) for s in self.steps)
        out_leaves: list = []
        self.out_structure = flatten(result, out_leaves)
        outputs = []
        slots.strict = False  # an unknown output is refused below, with its own reason
        for y in out_leaves:
            ref = slots.resolve(y, [])
            if ref[0] == 'const':
                raise NotStatic('an output of the chain was not computed by a function node '
                                'from its inputs or parameters (made by raw array code?)')
            outputs.append(ref)
        slots.strict = True
        self.outputs = tuple(outputs)
        self.n_slots = slots.n
        self.slots: Optional[SlotMap] = slots

    def release(self) -> None:
        """Drop what was kept of the traced call (its arrays and graph)."""
        self.slots = None
        for step in self.steps:
            if isinstance(step, _NodeStep):
                step.node = None
                step.in_arrays = step.out_arrays = ()

    def signature(self) -> tuple:
        return (self._step_signatures(), self.outputs, self.n_slots,
                tuple([(s, path, name) for s, _, name, path in self.attr_slots]))


class BackwardRecording(_Recorded):
    """The backward of a static chain's graph, traced while its gradients were computed.

    Args:
        slots: The slot map of the forward (the traced call's, or one rebuilt from a replay).
        gys: The output gradients (arrays, ``None`` for an output without one).
        tracer: The tracer active while the gradients were computed.
        grads: The gradients found for the chain's inputs (``None`` where there is none).
    """

    def __init__(self, slots: SlotMap, gys: tuple, tracer: Tracer, grads: list) -> None:
        if tracer.unsupported:
            raise NotStatic(tracer.unsupported)
        self.steps = tracer.steps
        if any(isinstance(s, _CodeStep) for s in self.steps):
            raise NotStatic('static_code ran in backward')
        self.consts: list = []
        slots = slots.copy()  # the forward's map serves every backward of the call
        self.first = slots.n
        self.gy_slots = tuple([None if gy is None else slots.add(gy) for gy in gys])
        _resolve_steps(self.steps, slots, self.consts)
        refs: list = []  # a slot reference per gradient, None where there is none
        for g in grads:
            if g is None:
                refs.append(None)
                continue
            ref = slots.resolve(_data(g), self.consts)
            refs.append(ref)
        self.grads = tuple(refs)
        self.n_slots = slots.n
        if any(_holds_state(c) for c in self.consts):
            # Arrays made by the backward outside function nodes (or taken from the forward
            # in a way not tracked): equal in two recordings is no proof they are constant.
            raise NotStatic('the backward reads arrays that no recorded function produced')
        for step in self.steps:
            step.node = None
            step.in_arrays = step.out_arrays = ()

    def signature(self) -> tuple:
        return (self._step_signatures(), self.first, self.gy_slots,
                tuple([r if r is None or r[0] != 'const' else 'const' for r in self.grads]),
                self.n_slots)


# -- compiled schedules --

def _compile_steps(steps: list, base: list) -> list:
    def slot_of(ref: tuple) -> int:
        slot, extra = ref
        if slot == 'const':
            base.append(extra)
            return len(base) - 1
        return ~slot if extra else slot

    compiled = []
    for step in steps:
        in_slots = [slot_of(ref) for ref in step.inputs]
        detach = min(in_slots, default=0) < 0
        if isinstance(step, _NodeStep):
            state = dict(step.state)
            if step.cls.__name__ not in _CHECKS_READ_VALUES:
                # The recorded calls passed their type checks, which depend only on the shapes
                # and dtypes that the key (and the check of the links' arrays) fix.
                state['_check_arrays'] = _no_check
            extra = step.mutable + tuple(k for k in ('_local_function_hooks',) if k in state)
            compiled.append((True, step.cls, state, extra, step.remaps, in_slots, detach,
                             step.out_slots, step.kept))
        else:
            compiled.append((False, step.func, step.structure, (), (), in_slots, detach,
                             step.out_slots, ()))
    return compiled


def _array_steps(compiled: list) -> list:
    """The node steps of a compiled schedule in the form :func:`_run_on_arrays` reads."""
    steps = []
    for _, cls, state, extra, remaps, in_slots, _, out_slots, kept in compiled:
        state = dict(state, _applied=True)  # a node that ran counts as applied, as in apply()
        steps.append((cls, state, extra, remaps, tuple([i if i >= 0 else ~i for i in in_slots]),
                      out_slots, kept))
    return steps


def _run_on_arrays(steps: list, values: list, nodes: Optional[list]) -> None:
    """Run node steps on the arrays in ``values``, writing their outputs (and kept arrays)."""
    new = object.__new__
    ndarray = numpy.ndarray
    for cls, state, extra, remaps, in_slots, out_slots, kept in steps:
        node = new(cls)
        d = node.__dict__
        d.update(state)
        if extra:
            for name in extra:
                d[name] = type(d[name])(d[name])
        if remaps:
            for name, slot in remaps:
                d[name] = values[slot]
        outs = node.forward(tuple([values[i] for i in in_slots]))
        for slot, y in zip(out_slots, outs):
            if type(y) is not ndarray and isinstance(y, numpy.generic):
                y = numpy.asarray(y)  # as apply() makes NumPy scalars 0-d arrays
            values[slot] = y
        if kept:
            for name, slot in kept:
                values[slot] = d.get(name)
        if nodes is not None:
            nodes.append(node)


def _new_node(cls: type, state: dict, extra: tuple, remaps: tuple, values: list) -> Any:
    node: Any = object.__new__(cls)  # a FunctionNode subclass, without running __init__
    d = node.__dict__
    d.update(state)
    for name in extra:
        d[name] = type(d[name])(d[name])
    for name, slot in remaps:
        d[name] = _data(values[slot])
    return node


class Schedule:
    """A verified forward recording, compiled for replay."""

    def __init__(self, recording: Recording) -> None:
        base: list = [None] * recording.n_slots
        self.n_inputs = recording.n_inputs
        self.attr_slots = [(link, name) for _, link, name, _ in recording.attr_slots]
        # The shape and dtype of each link array: a change (a re-initialized parameter) makes
        # the recorded checks and schedule stale.
        self.attr_specs = [leaf_spec(getattr(link(), name))
                           for _, link, name, _ in recording.attr_slots]
        self.links_numpy = all(spec[1] is numpy.ndarray for spec in self.attr_specs)
        self.steps = _compile_steps(recording.steps, base)
        self.out_slots = []
        for slot, detached in recording.outputs:
            self.out_slots.append(~slot if detached else slot)
        self.base = base
        self.base_arrays = [_data(v) for v in base]
        self.n_slots = recording.n_slots
        self.out_structure = recording.out_structure
        self.n_steps = len(self.steps)
        self.n_fixed = self.n_inputs + len(self.attr_slots)
        self.has_code = recording.has_code
        # Without backprop, the nodes' forward can run on bare arrays (no Variables, no apply)
        # when nothing else must see them: no static_code step, no node-local hook.
        self.arrays_ok = not self.has_code and all(
            '_local_function_hooks' not in step[2] for step in self.steps)
        self.array_steps = _array_steps(self.steps) if self.arrays_ok else []
        self.backward: dict = {}  # (output gradients given, targets) -> backward entry

    def link_values(self) -> Optional[tuple]:
        """The links' arrays and parameters now, their arrays, and whether all are NumPy
        arrays; ``None`` when one changed type, shape or dtype."""
        values = []
        arrays = []
        for (link, name), spec in zip(self.attr_slots, self.attr_specs):
            value = getattr(link(), name)
            data = value.array if isinstance(value, Variable) else value
            if type(data) is not spec[1] or data.shape != spec[2] or data.dtype != spec[3]:
                return None
            values.append(value)
            arrays.append(data)
        return values, arrays, self.links_numpy

    def replay_apply(self, leaves: list, link_values: list) -> list:
        """Replay by applying new nodes to Variables (an ordinary graph); returns all slots."""
        values = self.base[:]
        values[:self.n_inputs] = leaves
        values[self.n_inputs:self.n_fixed] = link_values
        for is_node, target, state, extra, remaps, in_slots, detach, out_slots, _ in \
                self.steps:
            if detach:
                args = [values[i] if i >= 0 else _data(values[~i]) for i in in_slots]
            else:
                args = [values[i] for i in in_slots]
            if is_node:
                outs = _new_node(target, state, extra, remaps, values).apply(args)
            else:
                a, kw = unflatten(state, iter(args))
                outs = []
                flatten(target(*a, **kw), outs)
            for slot, y in zip(out_slots, outs):
                values[slot] = y
        return values

    def replay_arrays(self, in_data: list, link_data: list) -> tuple:
        """Replay on bare arrays: each node's ``forward``, no Variables, no graph.

        Returns the slot values (arrays, including those the nodes keep) and the nodes.
        """
        values = self.base_arrays[:]
        values[:self.n_inputs] = in_data
        values[self.n_inputs:self.n_fixed] = link_data
        nodes: list = []
        _run_on_arrays(self.array_steps, values, nodes)
        return values, nodes

    def outputs(self, values: list, wrap: Callable) -> Any:
        """The call's result from the slot values; ``wrap`` turns a computed array into a
        Variable (the arguments and parameters given back are returned as they are)."""
        outputs = []
        for i in self.out_slots:
            if i < 0:
                outputs.append(Variable(_data(values[~i])))
            elif i < self.n_fixed:
                outputs.append(values[i])
            else:
                outputs.append(wrap(values[i]))
        return unflatten(self.out_structure, iter(outputs))

    def slot_map(self, values: list, nodes: list) -> SlotMap:
        """The slot map a traced call would have had for these values (Variables where the
        trace had Variables), for recording a backward after a replay."""
        slots = SlotMap()
        kept = {}
        for step, node in zip(self.steps, nodes):
            for name, slot in step[8]:
                kept[slot] = node.__dict__.get(name)
        # Forward slots in the order the trace added them (a later one wins an array met
        # twice); kept arrays only where nothing else maps them.
        for i in range(self.n_slots):
            if i not in kept:
                slots.register(i, values[i])
        for slot, value in kept.items():
            slots.register(slot, value, weak=True)
        slots.n = self.n_slots
        return slots


class BackwardSchedule:
    """A verified backward recording, compiled for replay on arrays."""

    def __init__(self, recording: BackwardRecording, n_forward: int) -> None:
        base: list = [None] * recording.n_slots
        self.n_forward = n_forward
        self.gy_slots = recording.gy_slots
        self.steps = _compile_steps(recording.steps, base)
        self.array_steps = _array_steps(self.steps)
        self.grads = tuple([None if r is None else (~r[0] if r[1] else r[0]) if
                            r[0] != 'const' else _const_slot(base, r[1])
                            for r in recording.grads])
        self.base = [_data(v) for v in base]

    def replay(self, forward_values: list, gys: tuple) -> list:
        """The gradients (arrays or ``None``) of the chain's inputs."""
        values = self.base[:]
        values[:self.n_forward] = forward_values[:self.n_forward]
        for slot, gy in zip(self.gy_slots, gys):
            if slot is not None:
                values[slot] = gy
        _run_on_arrays(self.array_steps, values, None)
        return [None if i is None else values[i if i >= 0 else ~i] for i in self.grads]


def _const_slot(base: list, value: Any) -> int:
    base.append(value)
    return len(base) - 1
