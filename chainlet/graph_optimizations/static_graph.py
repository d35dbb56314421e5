"""``static_graph``: trace a Chain's forward once, then replay what was recorded.

Design. A method decorated with :func:`static_graph` keeps, per chain instance, one schedule per
*key*: ``chainlet.config.train``, ``enable_backprop``, and the structure of the arguments
(nesting of tuples, lists and dicts, the value of every other leaf, and the kind, shape, dtype
and device of every array or Variable). The machinery is in :mod:`._schedule`.

* **Recording** (first call of a key). The define-by-run code runs under a function hook that
  records each :class:`FunctionNode` applied (class, attributes as constructed, where each input
  came from) and each :func:`static_code` call. With backprop on, the code runs on fresh leaves
  and its outputs are handed to the caller through one :class:`_StaticNode`, whose backward
  differentiates that private graph and records the backward the same way.
* **Verification** (second call). The call is recorded again and compared with the first: the
  same functions in the same order, equal hyper-parameters, the same wiring, equal constant
  arrays. A difference means the code is not static (Python control flow on array values,
  hyper-parameters or arrays computed from the data outside function nodes): the chain then runs
  define-by-run for good, after one :class:`StaticGraphFallbackWarning`. An old-style
  :class:`~chainlet.Function` or an output not made by a function node also falls back. A
  backward is verified the same way, from two of its recordings.
* **Replay** (later calls). The method's body does not run. With backprop on, one
  :class:`_StaticNode` per call runs the recorded forward on bare arrays (each node re-created from
  its recorded attributes, its ``forward`` called directly) and, in backward, the verified
  backward recording on arrays: no Variables, graph nodes or scheduler inside the chain. Until a
  backward is verified, the node links the forward's nodes into a graph (reusing their outputs
  and kept state, nothing computed again) and differentiates it. Without backprop the forward
  runs on arrays alone. When something else must see each function (a function hook, debug
  mode, a ``static_code`` step, arrays not on the CPU, ``enable_double_backprop=True``), the
  replay applies new nodes through :meth:`FunctionNode.apply` instead and builds an ordinary
  graph.

Parameters and persistent arrays are read from the links on every replay, so optimizer updates
(in place or by re-assignment) are seen; a changed shape or dtype records the key again. The
contract, as in Chainer: the decorated code must be *static*, the same functions with the same
hyper-parameters for a given key. Verification catches what differs between the first two calls;
a data-dependent branch that happens to go the same way in both is not caught.
"""
from __future__ import annotations

import functools
import warnings
import weakref
from typing import Any, Callable, Optional

import numpy

import chainlet
from chainlet import _hooks
from chainlet.function_node import FunctionNode
from chainlet.graph_optimizations import _schedule
from chainlet.graph_optimizations._schedule import NotStatic, Recording, Schedule
from chainlet.graph_optimizations.static_graph_utilities import _active
from chainlet.variable import Variable
from chainlet.warnings import PerformanceWarning

# Schedules kept per chain; beyond that the oldest key is dropped.
_MAX_KEYS = 64
_OPTIONS = ('force_test_define_by_run', 'minimize_cache_size', 'verbosity_level',
            'enable_double_backprop')
_data = _schedule._data


class StaticGraphFallbackWarning(PerformanceWarning):
    """A static chain cannot be replayed and runs define-by-run (correct, only not faster)."""


class _Entry:
    """The schedules of one key: the forward (recorded once, then verified) and its backwards.

    ``backward`` maps ``(which output gradients are None, target input indexes)`` to a
    :class:`~chainlet.graph_optimizations._schedule.BackwardRecording` (seen once), a
    :class:`~chainlet.graph_optimizations._schedule.BackwardSchedule` (verified) or the reason
    why it cannot be replayed.
    """

    def __init__(self, recording: Recording) -> None:
        self.recording: Optional[Recording] = recording
        self.schedule: Optional[Schedule] = None
        self.backward: dict = {}
        self.live = True  # False once dropped (a fallback, a cleared cache)

    def add_backward(self, pattern: tuple, recording: Any, n_forward: int) -> None:
        known = self.backward.get(pattern)
        if known is None:
            self.backward[pattern] = recording
        elif isinstance(known, _schedule.BackwardRecording):
            reason = known.difference(recording)
            self.backward[pattern] = reason if reason is not None else \
                _schedule.BackwardSchedule(recording, n_forward)


class _StaticNode(FunctionNode):
    """One call of a static chain in the graph of its caller.

    Its inputs are the call's arguments and the chain's parameters and persistent arrays; its
    outputs are the results computed by the chain. Two ways to make one:

    * *splice* (a recorded call): the define-by-run code already ran on fresh leaves; forward
      hands over its outputs and backward differentiates that private graph.
    * *replay*: forward replays the schedule on bare arrays; backward replays the recorded
      backward on arrays, or, when none is verified for the gradients asked, links the
      forward's nodes into a graph (without recomputing them) and differentiates it.

    Each backward that differentiates a graph also records it, until two recordings agree.
    The gradients are bare arrays, so differentiating them again raises (use
    ``static_graph(enable_double_backprop=True)``).
    """

    def __init__(self, label: str, entry: _Entry, n_forward: int) -> None:
        self._label = label
        self._entry = entry
        self._n_forward = n_forward
        self._inner_outputs: list = []  # splice: the Variables the define-by-run code returned
        self._inner_inputs: list = []  # splice: what the code saw for each input of this node
        self._slots: Any = None  # splice: the recording's slot map (for the backward's)
        self._schedule: Optional[Schedule] = None  # replay
        self._out_slots: list = []  # replay: slot of each output
        self._values: Any = None
        self._nodes: Any = None

    @property
    def label(self) -> str:
        return self._label

    def forward(self, inputs: tuple) -> tuple:
        schedule = self._schedule
        if schedule is None:
            return tuple([y.array for y in self._inner_outputs])
        n = schedule.n_inputs
        self._values, self._nodes = schedule.replay_arrays(list(inputs[:n]), list(inputs[n:]))
        values = self._values
        return tuple([values[i] for i in self._out_slots])

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        double = bool(chainlet.config.enable_backprop)
        gys = tuple([None if g is None else g.array for g in grad_outputs])
        pattern = (tuple([g is None for g in gys]), indexes)
        entry = self._entry
        known = entry.backward.get(pattern)
        if self._schedule is not None and type(known) is _schedule.BackwardSchedule and \
                not double and not _hooks.functions.active:
            return tuple(known.replay(self._values, gys))
        if self._schedule is not None:
            with chainlet.force_backprop_mode():  # backward runs with backprop off
                outputs, inputs, slots = self._relink()
        else:
            outputs, inputs, slots = self._inner_outputs, self._inner_inputs, self._slots
        ys = [y for y, g in zip(outputs, grad_outputs) if g is not None]
        gs = [g for g in grad_outputs if g is not None]
        targets = [inputs[i] for i in indexes]
        if entry.live and slots is not None and (
                known is None or type(known) is _schedule.BackwardRecording):
            tracer = _schedule.Tracer()
            with tracer:
                grads = chainlet.grad(ys, targets, gs)
            try:
                recording = _schedule.BackwardRecording(slots, gys, tracer, grads)
            except NotStatic as e:
                entry.backward[pattern] = str(e)
            else:
                entry.add_backward(pattern, recording, self._n_forward)
        else:
            grads = chainlet.grad(ys, targets, gs)
        # Bare arrays: under double backprop the engine marks them as not differentiable (a
        # graph of them would not reach this node's inputs).
        return tuple([None if g is None else g.array for g in grads])

    def _relink(self) -> tuple:
        """Link the replayed forward's nodes into a graph over fresh leaves, reusing their
        outputs and the state they kept (nothing is computed again)."""
        schedule = self._schedule
        assert schedule is not None  # called for a replayed node only
        values = list(self._values)
        inputs = []
        for i, node in enumerate(self.inputs):
            if node.requires_grad:
                values[i] = Variable(values[i])
            inputs.append(values[i])
        for k, (step, node) in enumerate(zip(schedule.steps, self._nodes)):
            _, cls, _, _, _, in_slots, _, out_slots, _ = step
            stub = object.__new__(cls)
            d = stub.__dict__
            d.update(node.__dict__)
            for key in _schedule._GRAPH_KEYS:
                d.pop(key, None)
            outs = tuple([_data(values[i]) for i in out_slots])
            d['forward'] = lambda in_data, outs=outs: outs
            d['_check_arrays'] = _schedule._no_check
            args = [values[i] if i >= 0 else _data(values[~i]) for i in in_slots]
            for slot, y in zip(out_slots, stub.apply(args)):
                values[slot] = y
            self._nodes[k] = stub
        slots = schedule.slot_map(values, self._nodes)
        return [values[i] for i in self._out_slots], inputs, slots


class _ChainState:
    """Schedules of one chain instance (kept outside the chain: copies start afresh)."""

    def __init__(self) -> None:
        self.entries: dict = {}  # key -> _Entry, oldest first
        self.fallback: Optional[str] = None
        self.train: Any = None
        self.warned_keys = False

    def add(self, key: tuple, entry: _Entry) -> bool:
        """Keep ``entry``; drop the oldest when there are too many (``True`` then)."""
        self.entries[key] = entry
        if len(self.entries) <= _MAX_KEYS:
            return False
        oldest = next(iter(self.entries))
        self.entries.pop(oldest).live = False
        return True

    def clear(self) -> None:
        for entry in self.entries.values():
            entry.live = False
        self.entries.clear()


class ScheduleManager:
    """The schedules of one static chain, as ``chain.schedule_manager`` (Chainer's attribute).

    A decorated method sets ``chain.schedule_manager`` on its first call, as in Chainer, so
    code written for Chainer that calls ``chain.schedule_manager.end_forward()`` (required
    there after a forward pass with no backward) runs unchanged. Here ``end_forward`` has
    nothing to do: each call of a replayed chain is a graph node of its own, so no schedule is
    held "in use" until the iteration ends. ``repr`` lists the recorded schedules.

    Args:
        minimize_cache_size: Whether the schedules are dropped when ``config.train`` changes
            (the decorator's option; informative here).
        verbosity_level: The decorator's verbosity level (informative here).

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L
        >>> from chainlet.graph_optimizations.static_graph import static_graph
        >>> class Net(chainlet.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l = L.Linear(2, 2)
        ...     @static_graph
        ...     def forward(self, x):
        ...         return self.l(x)
        >>> net = Net()
        >>> y = net(np.ones((1, 2), np.float32))
        >>> net.schedule_manager.end_forward()  # harmless; needed in Chainer only
        >>> print(net.schedule_manager)
        ScheduleManager of Net: 1 schedule(s)
          forward: recorded once (train=True, enable_backprop=True)
    """

    def __init__(self, minimize_cache_size: bool = True, verbosity_level: int = 0) -> None:
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level
        self._chain: Any = None  # weak reference to the chain it belongs to
        self._states: list = []  # (method name, _ChainState), one per decorated method

    def _belongs_to(self, chain: Any) -> bool:
        return self._chain is not None and self._chain() is chain

    def _bind(self, chain: Any) -> None:
        self._chain = weakref.ref(chain)

    def end_forward(self) -> None:
        """Mark the end of a forward pass (Chainer needs it; here nothing is held in use)."""

    def __repr__(self) -> str:
        chain = None if self._chain is None else self._chain()
        lines = []
        for name, state in self._states:
            if state.fallback is not None:
                lines.append(f'  {name}: define-by-run ({state.fallback})')
            for key, entry in state.entries.items():
                status = 'verified, replayed' if entry.schedule is not None else 'recorded once'
                lines.append(f'  {name}: {status} (train={key[0]}, enable_backprop={key[1]})')
        if chain is None:
            return 'ScheduleManager (not used by a chain yet)'
        n = sum(len(state.entries) for _, state in self._states)
        head = f'ScheduleManager of {type(chain).__name__}: {n} schedule(s)'
        return '\n'.join([head] + lines)

    # A copy of the chain starts without schedules (they are keyed by the chain itself); so
    # does a copy or an unpickled manager, which the chain's next call then replaces.
    def __copy__(self) -> 'ScheduleManager':
        return ScheduleManager(self.minimize_cache_size, self.verbosity_level)

    def __deepcopy__(self, memo: dict) -> 'ScheduleManager':
        return self.__copy__()

    def __reduce__(self) -> tuple:
        return ScheduleManager, (self.minimize_cache_size, self.verbosity_level)


def _schedule_manager(chain: Any, name: str, state: _ChainState, minimize: bool,
                      verbosity: int) -> None:
    """Register ``state`` with ``chain.schedule_manager``, making one if the chain has none of
    its own (a copied chain may carry its original's)."""
    manager = getattr(chain, 'schedule_manager', None)
    if not isinstance(manager, ScheduleManager) or not manager._belongs_to(chain):
        manager = ScheduleManager(minimize, verbosity)
        manager._bind(chain)
        chain.schedule_manager = manager
    manager._states.append((name, state))


def _identity(value: Any) -> Any:
    return value


_FLAT_TYPES = frozenset([Variable, numpy.ndarray])


@functools.lru_cache(maxsize=None)
def _flat_structure(n: int) -> Any:
    """What :func:`_schedule.flatten` gives for ``n`` positional array arguments."""
    return _schedule.flatten(((numpy.empty(0),) * n, {}), [])


def _all_numpy(values: list) -> bool:
    return all(type(_data(v)) is numpy.ndarray for v in values if v is not None)


def static_graph(*args: Any, **kwargs: Any) -> Any:
    """Decorator: mark a Chain's ``forward`` (or ``__call__``) as a static sub-graph.

    The first call with given argument shapes, dtypes and modes runs the define-by-run code
    and records the function nodes it applies (and, in backward, those of its gradient); the
    second call records again and checks that the recordings agree; later calls replay the
    recording on the new arrays without running the method's Python, and without building a
    graph inside the chain. The outputs and gradients equal the define-by-run ones, and updates
    of the parameters between calls are seen. A change of shape, dtype, array module,
    ``chainlet.config.train``, ``enable_backprop`` or argument structure records a new
    schedule. Code found not to be static runs define-by-run after one
    :class:`StaticGraphFallbackWarning`. See ``docs/static_graph.md`` for the contract.

    Use it bare (``@static_graph``) or with keyword arguments
    (``@static_graph(verbosity_level=1)``). As in Chainer, decorate only the outermost static
    chain (a nested one is simply part of the outer recording), and put side effects that must
    run on every call in :func:`~chainlet.graph_optimizations.static_code` functions.

    Args:
        force_test_define_by_run: Run define-by-run (no recording) while
            ``chainlet.config.train`` is ``False``.
        minimize_cache_size: Drop the recorded schedules when ``chainlet.config.train`` changes.
        verbosity_level: 0 warns only; 1 also prints when a schedule is recorded, verified or
            given up; 2 also prints on every replay.
        enable_double_backprop: Replay through ordinary graphs so that the gradients of the
            chain can be differentiated again (slower). Without it, differentiating them again
            raises ``RuntimeError`` (Chainer's static chains need the flag as well).

    Returns:
        The wrapped method.

    Raises:
        TypeError: An unknown keyword argument (Chainer ignores it silently).

    Example:
        >>> import numpy as np, chainlet, chainlet.functions as F, chainlet.links as L
        >>> from chainlet.graph_optimizations.static_graph import static_graph
        >>> class MLP(chainlet.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = L.Linear(3, 4)
        ...             self.l2 = L.Linear(4, 2)
        ...     @static_graph
        ...     def forward(self, x):
        ...         return self.l2(F.relu(self.l1(x)))
        >>> model = MLP()
        >>> x = np.ones((5, 3), np.float32)
        >>> for _ in range(3):
        ...     y = model(x)
        >>> y.shape
        (5, 2)
        >>> F.sum(y).backward()
        >>> model.l1.W.grad.shape
        (4, 3)
    """
    unknown = sorted(set(kwargs) - set(_OPTIONS))
    if unknown:
        raise TypeError(f'static_graph: unknown keyword argument(s) {unknown}; expected some of '
                        f'{list(_OPTIONS)}')
    force_test = bool(kwargs.get('force_test_define_by_run', False))
    minimize = bool(kwargs.get('minimize_cache_size', False))
    verbosity = int(kwargs.get('verbosity_level', 0))
    double_backprop = bool(kwargs.get('enable_double_backprop', False))

    def wrap(func: Callable) -> Callable:
        states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        name = getattr(func, '__name__', 'forward')

        def say(level: int, chain: Any, message: str) -> None:
            if verbosity >= level:
                print(f'static_graph {type(chain).__name__}.{name}: {message}')

        def give_up(chain: Any, state: _ChainState, reason: str) -> None:
            state.fallback = reason
            state.clear()
            say(1, chain, f'define-by-run from now on: {reason}')
            warnings.warn(
                f'static_graph: {type(chain).__name__}.{name} runs define-by-run (no replay) '
                f'because {reason}. A static chain must apply the same functions with the same '
                f'hyper-parameters on every call with the same input shapes; put side effects in '
                f'@static_code functions', StaticGraphFallbackWarning, stacklevel=3)

        def replay(chain: Any, entry: _Entry, leaves: list, links: tuple) -> Any:
            schedule = entry.schedule
            assert schedule is not None  # called for a verified entry only
            link_values, link_arrays, links_numpy = links
            config = chainlet.config
            fast = links_numpy and schedule.arrays_ok and not _hooks.functions.active and \
                not config.debug and _all_numpy(leaves)
            if fast and not config.enable_backprop:
                values, _ = schedule.replay_arrays([_data(x) for x in leaves], link_arrays)
                return schedule.outputs(values, Variable)
            computed = list(dict.fromkeys(
                [i for i in schedule.out_slots if i >= schedule.n_fixed]))
            if fast and not double_backprop and computed:
                node = _StaticNode(f'static_graph({type(chain).__name__}.{name})', entry,
                                   schedule.n_slots)
                node._schedule = schedule
                node._out_slots = computed
                outs = node.apply(leaves + link_values)
                values = list(node._values)
                values[:schedule.n_fixed] = leaves + link_values
                for i, y in zip(computed, outs):
                    values[i] = y
                return schedule.outputs(values, _identity)
            values = schedule.replay_apply(leaves, link_values)
            return schedule.outputs(values, _identity)

        def record(chain: Any, state: _ChainState, key: tuple, entry: Optional[_Entry],
                   structure: Any, leaves: list) -> Any:
            splice = bool(chainlet.config.enable_backprop) and not double_backprop
            if splice:  # the code runs on fresh leaves; a _StaticNode links them to the caller
                inner = [Variable(x.array, requires_grad=x.requires_grad, name=x.name)
                         if isinstance(x, Variable) else x for x in leaves]
                call_args, call_kwargs = _schedule.unflatten(structure, iter(inner))
            else:
                inner = leaves
                call_args, call_kwargs = _schedule.unflatten(structure, iter(leaves))
            tracer = _schedule.Tracer()
            _active.tracers.append(tracer)
            try:
                with chainlet.using_config('schedule_func', tracer), tracer:
                    result = func(chain, *call_args, **call_kwargs)
            finally:
                _active.tracers.remove(tracer)
            recording = None
            try:
                recording = Recording(chain, inner, tracer, result)
            except NotStatic as e:
                give_up(chain, state, str(e))
            else:
                if entry is None:
                    entry = _Entry(recording)
                    if state.add(key, entry) and not state.warned_keys:
                        state.warned_keys = True
                        warnings.warn(
                            f'static_graph: {type(chain).__name__}.{name} was called with more '
                            f'than {_MAX_KEYS} different argument shapes, dtypes or values; the '
                            f'oldest schedules are dropped, and calls whose arguments keep '
                            f'changing (a float argument, say) run define-by-run',
                            StaticGraphFallbackWarning, stacklevel=3)
                    say(1, chain, f'recorded {len(recording.steps)} calls; the next call checks '
                                  f'them')
                else:
                    first = entry.recording
                    assert first is not None  # an entry kept in a state holds its recording
                    reason = first.difference(recording)
                    if reason is not None:
                        give_up(chain, state, reason + ' between the first two calls')
                        recording = None
                    else:
                        entry.recording = recording
                        entry.schedule = Schedule(recording)
                        say(1, chain, f'schedule of {len(recording.steps)} calls verified; '
                                      f'replaying from the next call')
            if splice:
                result = _splice(chain, entry, recording, leaves, inner, result)
            elif recording is not None:
                recording.release()
            return result

        def _splice(chain: Any, entry: Optional[_Entry], recording: Optional[Recording],
                    leaves: list, inner: list, result: Any) -> Any:
            out_leaves: list = []
            structure = _schedule.flatten(result, out_leaves)
            back = {id(v): x for v, x in zip(inner, leaves) if isinstance(v, Variable)}
            if recording is not None:
                params = [getattr(link(), attr) for _, link, attr, _ in recording.attr_slots]
            else:
                params = [v for _, link in chain.namedlinks() for v in vars(link).values()
                          if isinstance(v, Variable)]
            outputs = [y for y in out_leaves if isinstance(y, Variable) and
                       y.creator_node is not None]
            if not outputs:
                return _schedule.unflatten(structure, iter([back.get(id(y), y)
                                                            for y in out_leaves]))
            if entry is None or recording is None:
                entry = _Entry(None)  # type: ignore[arg-type]
                entry.live = False
            node = _StaticNode(f'static_graph({type(chain).__name__}.{name})', entry,
                               recording.n_slots if recording is not None else 0)
            node._inner_outputs = outputs
            node._inner_inputs = list(inner) + params
            node._slots = recording.slots if recording is not None else None
            if recording is not None:
                recording.release()
            spliced = dict(zip([id(y) for y in outputs], node.apply(list(leaves) + params)))
            return _schedule.unflatten(structure, iter([
                spliced.get(id(y), back.get(id(y), y)) for y in out_leaves]))

        @functools.wraps(func)
        def wrapped(chain: Any, *call_args: Any, **call_kwargs: Any) -> Any:
            config = chainlet.config
            train = config.train
            if not config.use_static_graph or (force_test and not train) or _active.tracers:
                # (Called while another static chain records: part of that recording.)
                return func(chain, *call_args, **call_kwargs)
            state = states.get(chain)
            if state is None:
                if not isinstance(chain, chainlet.Link):
                    raise TypeError(f'static_graph decorates a method of a Chain (or Link); '
                                    f'{name} was called on {type(chain).__name__}')
                state = states[chain] = _ChainState()
                _schedule_manager(chain, name, state, minimize, verbosity)
            if state.fallback is not None:
                return func(chain, *call_args, **call_kwargs)
            if minimize and train != state.train:
                state.clear()
            state.train = train
            if not call_kwargs and all([type(x) in _FLAT_TYPES for x in call_args]):
                leaves = list(call_args)  # the common case: arrays and Variables only
                structure = _flat_structure(len(leaves))
            else:
                leaves = []
                structure = _schedule.flatten((call_args, call_kwargs), leaves)
            key = (bool(train), bool(config.enable_backprop), structure,
                   tuple([_schedule.leaf_spec(x) for x in leaves]))
            try:
                entry = state.entries.get(key)
            except TypeError:  # an unhashable argument: its value cannot key a schedule
                give_up(chain, state, 'an argument is neither an array, a Variable, a tuple, '
                        'a list, a dict nor a hashable value')
                return func(chain, *call_args, **call_kwargs)
            if entry is not None and entry.schedule is not None:
                links = entry.schedule.link_values()
                if links is not None:
                    if verbosity >= 2:
                        say(2, chain, f'replaying {entry.schedule.n_steps} recorded calls')
                    return replay(chain, entry, leaves, links)
                say(1, chain, 'a parameter changed shape or dtype: recording again')
                entry.live = False
                del state.entries[key]
                entry = None
            return record(chain, state, key, entry, structure, leaves)

        return wrapped

    if len(args) == 1 and callable(args[0]) and not kwargs:
        return wrap(args[0])
    if args:
        raise TypeError(f'static_graph: use it bare (@static_graph) or with keyword arguments, '
                        f'got positional arguments {args!r}')
    return wrap
