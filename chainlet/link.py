"""``Link`` (a module with parameters), ``Chain``, ``ChainList`` and ``Sequential``.

Parameters and child links are registered by assigning them inside ``init_scope()``:

Example:
    >>> import numpy as np, chainlet, chainlet.links as L
    >>> class MLP(chainlet.Chain):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.l1 = L.Linear(4, 3)
    ...             self.l2 = L.Linear(3, 2)
    ...     def forward(self, x):
    ...         return self.l2(chainlet.functions.tanh(self.l1(x)))
    >>> model = MLP()
    >>> sorted(name for name, _ in model.namedparams())
    ['/l1/W', '/l1/b', '/l2/W', '/l2/b']
    >>> model(np.zeros((5, 4), np.float32)).shape
    (5, 2)
"""
from __future__ import annotations

import collections
import collections.abc
import contextlib
import copy as copy_module
import warnings
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy

from chainlet import _hooks
from chainlet import backend
from chainlet.device_resident import DeviceResident
from chainlet.link_hook import LinkHook
from chainlet.link_hook import _ForwardPostprocessCallbackArgs as _PostArgs
from chainlet.link_hook import _ForwardPreprocessCallbackArgs as _PreArgs
from chainlet.parameter import Parameter


def _is_shape(value: Any) -> bool:
    """True for ``None``, an int or a sequence of ints (Chainer's ``Link(name=shape)`` form)."""
    if value is None or isinstance(value, (int, numpy.integer)):
        return not isinstance(value, bool)
    if isinstance(value, collections.abc.Sequence) and not isinstance(value, str):
        return all(isinstance(v, (int, numpy.integer)) and not isinstance(v, bool)
                   for v in value)
    return False


def _is_array(value: Any) -> bool:
    return isinstance(value, numpy.ndarray) or backend.is_cupy_array(value)


_INIT_MISSING = 'Link.__init__() has not been called.'


class Link(DeviceResident):
    """A building block with parameters and persistent values (see the module docstring).

    Parameters (:class:`~chainlet.Parameter`) are registered by assigning them to attributes
    inside ``with self.init_scope():``; persistent values (arrays or scalars saved and moved
    with the link, such as running statistics) by :meth:`add_persistent` or
    :meth:`register_persistent`. Subclasses implement ``forward``; calling the link calls it,
    between the callbacks of the active link hooks (see :class:`~chainlet.LinkHook`).

    Args:
        params: Chainer's old form ``Link(W=(3, 4), b=((4,), 'd'))``: each keyword names a
            parameter and gives its shape (``None``: lazy) or a ``(shape, dtype)`` pair;
            the data are NaN until written.

    Attributes:
        name (str): Name given by the parent chain (``None`` for a root link).
    """

    # Set in __init__ through __dict__ (bypassing __setattr__'s registration); declared for mypy.
    _params: set
    _persistent: set

    # Created on the first add_hook; None keeps the unhooked call path to one test.
    _local_link_hooks: Optional[collections.OrderedDict] = None
    _init_done = False
    # Whether a mixin after Link in the MRO defines __call__ (Chainer calls it instead of
    # forward); set per class.
    _mixin_call = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        mro = cls.__mro__
        after = mro[mro.index(Link) + 1:]
        cls._mixin_call = any('__call__' in k.__dict__ for k in after if k is not object)

    def __init__(self, **params: Any) -> None:
        d = self.__dict__
        d['_params'] = set()
        d['_persistent'] = set()
        d['_within_init_scope'] = False
        d['name'] = None
        d['_init_done'] = True
        for name, value in params.items():
            shape, dtype = (value, numpy.float32) if _is_shape(value) else value
            self.add_param(name, shape, dtype=dtype)

    def _check_init_done(self) -> None:
        if not self._init_done:
            raise RuntimeError(_INIT_MISSING)

    # -- registration --

    @property
    def within_init_scope(self) -> bool:
        """True inside ``with self.init_scope():``."""
        return self.__dict__.get('_within_init_scope', False)

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Register Parameters (and, in a Chain, Links) assigned to attributes in this block.

        Raises:
            RuntimeError: ``Link.__init__`` has not been called (a subclass forgot
                ``super().__init__()``).
        """
        self._check_init_done()
        old = self.within_init_scope
        self.__dict__['_within_init_scope'] = True
        try:
            yield
        finally:
            self.__dict__['_within_init_scope'] = old

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Parameter):
            value.name = name
            if not isinstance(self._device, backend.CpuDevice):
                value.to_device(self._device)  # a link on a GPU keeps its parameters there
            self._params.add(name)
            self._persistent.discard(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if '_params' in d:
            d['_params'].discard(name)
            d['_persistent'].discard(name)
        super().__delattr__(name)

    def add_param(self, name: str, shape: Optional[Sequence[int]] = None,
                  dtype: Any = numpy.float32, initializer: Any = None) -> None:
        """Register a new parameter ``name`` (Chainer's older form of assigning a
        :class:`~chainlet.Parameter` in ``init_scope``).

        Args:
            name: Attribute name.
            shape: Shape; ``None`` leaves the parameter uninitialized (lazy).
            dtype: dtype of the data when ``initializer`` does not fix it.
            initializer: Initializer, scalar or array; NaN of ``dtype`` by default.

        Raises:
            AttributeError: The link already has an attribute ``name``.
        """
        self._check_init_done()
        if name in self.__dict__:
            raise AttributeError(f'{type(self).__name__}.add_param: cannot register a new '
                                 f'parameter {name!r}: the attribute exists')
        if initializer is None:
            from chainlet import initializers
            initializer = initializers.NaN(dtype)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Register ``value`` (an array, a scalar, any serializable value) as persistent: it is
        saved, loaded and moved with the link.

        Raises:
            AttributeError: The link already has an attribute ``name``.
        """
        self._check_init_done()
        d = self.__dict__
        if name in d:
            raise AttributeError(f'{type(self).__name__}.add_persistent: cannot register a new '
                                 f'persistent value {name!r}: the attribute exists')
        self._persistent.add(name)
        self._params.discard(name)
        if _is_array(value) and not isinstance(self._device, backend.CpuDevice):
            value = self._device.send(value)
        d[name] = value

    def register_persistent(self, name: str) -> None:
        """Mark the existing attribute ``name`` as persistent (a parameter of that name stops
        being one).

        Raises:
            AttributeError: The link has no attribute ``name``.
        """
        if not hasattr(self, name):
            raise AttributeError(f'{type(self).__name__}.register_persistent: cannot register '
                                 f'the non-existent attribute {name!r}')
        self._persistent.add(name)
        self._params.discard(name)

    # -- calling --

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._init_done:
            raise RuntimeError(_INIT_MISSING)
        if _hooks.links.active or self._local_link_hooks:
            return self._forward_with_hooks(args, kwargs)
        if self._mixin_call:
            return super().__call__(*args, **kwargs)  # type: ignore[misc]
        return self.forward(*args, **kwargs)  # type: ignore[attr-defined]

    def _forward_method(self) -> Callable:
        # Not `_forward`: Chainer models use that name for their own attributes (ResNet's
        # BuildingBlock keeps a list of its steps there).
        if self._mixin_call:
            return super().__call__  # type: ignore[misc]
        return self.forward  # type: ignore[attr-defined]

    def _forward_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        hooks = _hooks.links.hooks
        if self._local_link_hooks:
            # A local hook with the name of a global one takes its place (as in Chainer).
            hooks = collections.OrderedDict(hooks)
            hooks.update(self._local_link_hooks)
        active = list(hooks.values())
        forward = self._forward_method()
        if not active:  # global hooks are active in another thread only
            return forward(*args, **kwargs)
        pre = _PreArgs(self, 'forward', args, kwargs)
        for hook in active:
            hook.forward_preprocess(pre)
        out = forward(*args, **kwargs)
        post = _PostArgs(self, 'forward', args, kwargs, out)
        for hook in active:
            hook.forward_postprocess(post)
        return out

    # -- link hooks --

    @property
    def local_link_hooks(self) -> collections.OrderedDict:
        """Ordered dict ``name -> hook`` of the link hooks registered on this link only."""
        hooks = self._local_link_hooks
        if hooks is None:
            hooks = self.__dict__['_local_link_hooks'] = collections.OrderedDict()
        return hooks

    @property
    def _n_local_link_hooks(self) -> int:
        return len(self._local_link_hooks or ())

    def add_hook(self, hook: LinkHook, name: Optional[str] = None) -> 'Link':
        """Register a link hook on this link (its ``added(self)`` is called).

        Args:
            hook: A :class:`~chainlet.LinkHook`.
            name: Registration name; ``hook.name`` when ``None``. It must be unique among the
                hooks of this link.

        Returns:
            This link, so that ``L.Linear(3, 2).add_hook(hook)`` can be assigned directly.

        Raises:
            TypeError: ``hook`` is not a LinkHook, or ``name`` is not a string.
            KeyError: A hook of this link already has that name.
        """
        cls = type(self).__name__
        if not isinstance(hook, LinkHook):
            raise TypeError(f'{cls}.add_hook: argument hook: expected a chainlet.LinkHook, got '
                            f'{type(hook).__name__}')
        if name is None:
            name = hook.name
        if not isinstance(name, str):
            raise TypeError(f'{cls}.add_hook: argument name: expected a str or None, got '
                            f'{type(name).__name__}')
        hooks = self.local_link_hooks
        if name in hooks:
            raise KeyError(f'{cls}.add_hook: argument name: a hook named {name!r} is already '
                           f'registered on this link; delete it or pass another name')
        hooks[name] = hook
        try:
            hook.added(self)
        except BaseException:
            del hooks[name]  # a hook that refuses the link is not left half-registered
            raise
        return self

    def delete_hook(self, name: str) -> None:
        """Unregister the hook called ``name`` from this link (its ``deleted(self)`` is called).

        Raises:
            KeyError: No hook of this link has that name.
        """
        hooks = self.local_link_hooks
        if name not in hooks:
            raise KeyError(f'{type(self).__name__}.delete_hook: argument name: expected the name '
                           f'of a hook of this link ({", ".join(map(repr, hooks)) or "none"}), '
                           f'got {name!r}')
        hooks[name].deleted(self)
        del hooks[name]

    # -- traversal: own parameters sorted by name, then the children's --

    def _own_params(self, include_uninit: bool) -> Iterator[tuple[str, Parameter]]:
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            if include_uninit or param.array is not None:
                yield name, param

    def _child_items(self) -> Iterator[tuple[str, 'Link']]:
        return iter(())

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """Yield every parameter of this link and its descendants, each once.

        Args:
            include_uninit: Also yield parameters whose data are not created yet.
        """
        # The same order as namedparams, without building the paths (optimizers and
        # cleargrads walk this every step).
        seen: set = set()
        for link in self._preorder():
            if link._params:
                for _, param in link._own_params(include_uninit):
                    if id(param) not in seen:
                        seen.add(id(param))
                        yield param

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield ``(path, parameter)`` with paths like ``'/l1/W'`` (a parameter shared by
        several links comes once, under its first path).

        Args:
            include_uninit: Also yield parameters whose data are not created yet.
        """
        seen: set = set()
        for prefix, link in self.namedlinks():
            base = '' if prefix == '/' else prefix
            for name, param in link._own_params(include_uninit):
                if id(param) not in seen:
                    seen.add(id(param))
                    yield f'{base}/{name}', param

    def children(self) -> Iterator['Link']:
        """Yield the direct child links (a Chain's sorted by name, a ChainList's in order)."""
        for _, child in self._child_items():
            yield child

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, 'Link']]:
        """Yield ``(path, link)`` for this link (``'/'``) and its descendants, depth first."""
        if not skipself:
            yield '/', self
        stack = [('', iter(list(self._child_items())))]
        while stack:  # iterative, so that deep hierarchies do not hit the recursion limit
            prefix, items = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                continue
            path = f'{prefix}/{item[0]}'
            yield path, item[1]
            stack.append((path, iter(list(item[1]._child_items()))))

    def _preorder(self) -> list:
        """This link and its descendants in :meth:`namedlinks`'s order, as a list."""
        out = []
        stack = [self]
        while stack:  # iterative, so that deep hierarchies do not hit the recursion limit
            link = stack.pop()
            out.append(link)
            children = [child for _, child in link._child_items()]
            if children:
                stack.extend(reversed(children))
        return out

    def links(self, skipself: bool = False) -> Iterator['Link']:
        """Yield this link (unless ``skipself``) and every descendant, depth first."""
        for _, link in self.namedlinks(skipself):
            yield link

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        d = self.__dict__
        for name in sorted(self._params):
            visitor.visit_variable(d[name])
        for name in sorted(self._persistent):
            value = d[name]
            if _is_array(value):
                d[name] = visitor.visit_array(value)
        for _, child in self._child_items():
            child.device_resident_accept(visitor)

    @property
    def _gpu_id(self) -> int:
        return self._device.device_id if isinstance(self._device, backend.GpuDevice) else -1

    @property
    def _device_id(self) -> Optional[int]:
        warnings.warn('Link._device_id is left only for backward compatibility; use '
                      'Link.device instead', DeprecationWarning, stacklevel=2)
        gpu = self._gpu_id
        return None if gpu < 0 else gpu

    # -- gradients and parameters --

    def cleargrads(self) -> None:
        """Set every parameter's gradient to ``None`` (the cheap way to reset before backward)."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Fill every gradient with zeros. Deprecated as in Chainer: use :meth:`cleargrads`."""
        warnings.warn('Link.zerograds is deprecated. Use Link.cleargrads instead.',
                      DeprecationWarning, stacklevel=2)
        with warnings.catch_warnings():  # one warning per call, not one per parameter
            warnings.simplefilter('ignore', DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def addgrads(self, link: 'Link') -> None:
        """Add the gradients of ``link`` (same structure) to this link's gradients, even across
        devices; a parameter without a gradient here takes a copy of the source's."""
        src = link.__dict__
        dst = self.__dict__
        for name in sorted(self._params):
            dst[name].addgrad(src[name])
        for (name, child), (_, other) in zip(self._child_items(), link._child_items()):
            child.addgrads(other)

    def copyparams(self, link: 'Link', copy_persistent: bool = True) -> None:
        """Copy the parameter data (not the gradients) of ``link``, which has the same
        structure, even across devices.

        Args:
            link: The source.
            copy_persistent: Also copy persistent values: arrays element-wise, other values
                with ``copy.deepcopy``.
        """
        src = link.__dict__
        dst = self.__dict__
        for name in sorted(self._params):
            dst[name].copydata(src[name])
        if copy_persistent:
            for name in sorted(self._persistent):
                d, s = dst[name], src[name]
                if _is_array(d) and _is_array(s):
                    backend.copyto(d, s)
                else:
                    dst[name] = copy_module.deepcopy(s)
        for (name, child), (_, other) in zip(self._child_items(), link._child_items()):
            child.copyparams(other, copy_persistent)

    def copy(self, mode: str = 'share') -> 'Link':
        """Return a copy of the hierarchy rooted here; the copy's :attr:`name` is ``None``
        for ``'share'`` (the copy belongs to no parent yet).

        Args:
            mode: ``'share'``: new links and Parameter objects that share the data arrays
                (gradients cleared); ``'copy'``: a deep copy; ``'init'``: a deep copy whose
                initialized parameters are re-drawn from their initializers.

        Raises:
            ValueError: Unknown ``mode``.
        """
        if mode == 'share':
            ret = copy_module.copy(self)
            rd = ret.__dict__
            rd['_params'] = set(self._params)
            rd['_persistent'] = set(self._persistent)
            rd['name'] = None
            for name in ret._params:
                # As in Chainer, the copy shares the parameter's array slot, not only today's
                # array: initializing the original later (a lazy Linear(None, n)), assigning its
                # .array or moving it to a device shows in the copy, and the other way round.
                param = copy_module.copy(rd[name])
                param.grad = None
                rd[name] = param
            ret._copy_children(mode)
            return ret
        if mode == 'copy':
            return copy_module.deepcopy(self)
        if mode == 'init':
            ret = copy_module.deepcopy(self)
            for param in ret.params(include_uninit=False):
                param.initialize(param.shape)
            return ret
        raise ValueError(f"{type(self).__name__}.copy: argument mode: expected 'init', 'copy' or "
                         f"'share', got {mode!r}")

    def _copy_children(self, mode: str) -> None:
        """Replace the children of a shallow copy by copies (containers override this)."""

    def __getstate__(self) -> dict:
        # Parameters pickle without their update rules; keep them with the link so that a
        # pickled optimizer (which pickles its target) resumes with its state, as in Chainer.
        state = dict(self.__dict__)
        rules = {name: getattr(state[name], 'update_rule', None)
                 for name in state.get('_params', ())}
        state['_param_update_rules'] = {k: v for k, v in rules.items() if v is not None}
        return state

    def __setstate__(self, state: dict) -> None:
        rules = state.pop('_param_update_rules', {})
        self.__dict__.update(state)
        for name, rule in rules.items():
            if self.__dict__[name].update_rule is None:
                self.__dict__[name].update_rule = rule

    def count_params(self) -> int:
        """Number of scalars in all parameters; uninitialized ones are skipped with a
        ``UserWarning`` naming them."""
        size = 0
        for name, param in self.namedparams():
            if param.array is None:
                warnings.warn(f'Parameter {name!r} has not been initialized, so the resulting '
                              f'count will not include the number of parameters in it.',
                              stacklevel=2)
                continue
            size += param.size
        return size

    def enable_update(self) -> None:
        """Let optimizers update every parameter of this link and its descendants."""
        self._set_update(True)

    def disable_update(self) -> None:
        """Freeze every parameter of this link and its descendants (optimizers skip them)."""
        self._set_update(False)

    def _set_update(self, enabled: bool) -> None:
        # The flag also reaches optimizers set up later (Chainer only flips existing rules).
        for link in self.links():
            link.__dict__['_update_enabled'] = enabled
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = enabled

    @property
    def update_enabled(self) -> bool:
        """True if some parameter's update rule is enabled (without rules: unless
        :meth:`disable_update` was called)."""
        rules = [p.update_rule for p in self.params() if p.update_rule is not None]
        if rules:
            return any(rule.enabled for rule in rules)
        return self.__dict__.get('_update_enabled', True)

    # -- serialization --

    def serialize(self, serializer: Any) -> None:
        """Save or load parameters and persistent values through ``serializer``, then the
        children's under their names.

        The serializer reads or fills initialized arrays in place (its return value is not
        used for them); loading into an uninitialized parameter initializes it with the loaded
        shape, and a ``None`` from the serializer leaves it uninitialized.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                # A deserializer fills initialized arrays in place; an uninitialized parameter
                # takes the loaded shape and values.
                param.initialize(data.shape)
                backend.copyto(param.array, data)
        for name in sorted(self._persistent):
            d[name] = serializer(name, d[name])
        for name, child in self._child_items():
            child.serialize(serializer[name])

    # -- other --

    def repeat(self, n_repeat: int, mode: str = 'init') -> 'Sequential':
        """A :class:`Sequential` of ``n_repeat`` copies of this link (``mode`` as in
        :meth:`copy`); empty when ``n_repeat <= 0``.

        Raises:
            ValueError: Unknown ``mode``.
        """
        ret = Sequential()
        if n_repeat <= 0:
            return ret
        if mode not in ('init', 'copy', 'share'):
            raise ValueError(f"{type(self).__name__}.repeat: argument mode: expected 'init', "
                             f"'copy' or 'share', got {mode!r}")
        for _ in range(n_repeat):
            ret.append(self.copy(mode))
        return ret

    def _repr_args(self) -> dict:
        """Hyper-parameters shown by ``repr`` and ``str`` (links override this)."""
        return {}

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs shown by ``str(link)`` (by default the constructor's
        hyper-parameters)."""
        yield from self._repr_args().items()

    def __str__(self) -> str:
        specs = ', '.join(f'{k}={v}' for k, v in self.printable_specs)
        children = list(self._child_items())
        if not children:
            return f'{type(self).__name__}({specs})'
        lines = []
        for name, child in children:
            for line in f'({name}): {child},'.splitlines():
                lines.append(f'  {line}')
        return f'{type(self).__name__}(\n' + '\n'.join(lines) + '\n)'

    def __repr__(self) -> str:
        args = ', '.join(f'{k}={v!r}' for k, v in self._repr_args().items())
        children = list(self._child_items())
        if not children:
            return f'{type(self).__name__}({args})'
        lines = [f'{type(self).__name__}({args}']
        for name, child in children:
            body = repr(child).replace('\n', '\n  ')
            lines.append(f'  ({name}): {body},')
        lines.append(')')
        return '\n'.join(lines)


class Chain(Link):
    """A link made of child links, registered by attribute assignment inside ``init_scope``.

    Children are visited in the order of their names.

    Args:
        links: Initial children, by name.
    """

    _children: set  # names of the child links

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self.__dict__['_children'] = set()
        for name, link in links.items():
            self.add_link(name, link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            if name not in self._children and hasattr(self, name):
                raise AttributeError(f'{type(self).__name__}: cannot register a new link '
                                     f'{name!r}: the attribute exists')
            value.name = name
            self._children.add(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        children = self.__dict__.get('_children')
        if children is not None:
            children.discard(name)
        super().__delattr__(name)

    def __getitem__(self, name: str) -> Any:
        """``chain['l1']`` is ``chain.l1``."""
        return getattr(self, name)

    def add_link(self, name: str, link: Link) -> None:
        """Register ``link`` as the child ``name``.

        Raises:
            AttributeError: The chain already has an attribute ``name``.
            TypeError: ``link`` is not a Link.
        """
        if name in self.__dict__:
            raise AttributeError(f'{type(self).__name__}.add_link: cannot register a new link '
                                 f'{name!r}: the attribute exists')
        if not isinstance(link, Link):
            raise TypeError(f'{type(self).__name__}.add_link: argument link: expected a Link, '
                            f'got {type(link).__name__}')
        with self.init_scope():
            setattr(self, name, link)

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        d = self.__dict__
        for name in sorted(d.get('_children', ())):
            yield name, d[name]

    def _copy_children(self, mode: str) -> None:
        d = self.__dict__
        d['_children'] = set(self._children)
        for name in self._children:
            child = d[name].copy(mode)
            child.name = name
            d[name] = child


class ChainList(Link, collections.abc.MutableSequence):
    """A link holding a list of child links, named ``'0'``, ``'1'``, ... by position.

    It is a mutable sequence: indexing, slicing, assignment, ``del``, ``insert``, ``append``,
    ``extend``, ``+=``, ``pop``, ``remove`` work as on a list and keep the names in step.

    Args:
        links: Initial children.
    """

    _children: list

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self.__dict__['_children'] = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            raise TypeError(f'{type(self).__name__}: cannot register a new link within a '
                            f'"with chainlist.init_scope():" block; use add_link or append')
        super().__setattr__(name, value)

    def _check_link(self, link: Any) -> Link:
        if not isinstance(link, Link):
            raise TypeError(f'{type(self).__name__}: expected a Link, got '
                            f'{type(link).__name__}')
        return link

    def _rename(self) -> None:
        for i, child in enumerate(self._children):
            child.name = str(i)

    def __getitem__(self, index: Any) -> Any:
        return self._children[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            self._children[index] = [self._check_link(v) for v in value]
            self._rename()
        elif isinstance(index, (int, numpy.integer)):
            self._children[index] = self._check_link(value)
            value.name = str(index % len(self._children))
        else:
            raise TypeError(f'{type(self).__name__} indices must be integers or slices, not '
                            f'{type(index).__name__}')

    def __delitem__(self, index: Any) -> None:
        del self._children[index]
        self._rename()

    def insert(self, index: int, link: Link) -> None:
        """Insert a child link at ``index``."""
        self._children.insert(index, self._check_link(link))
        self._rename()

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    def add_link(self, link: Link) -> None:
        """Append a child link."""
        self.append(link)

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        for i, link in enumerate(self.__dict__.get('_children', ())):
            yield str(i), link

    def _copy_children(self, mode: str) -> None:
        children = self.__dict__['_children'] = list(self._children)
        for i, child in enumerate(children):
            child = child.copy(mode)
            child.name = str(i)
            children[i] = child


class SequentialError(TypeError, ValueError):
    """A value that cannot be a step of a :class:`Sequential` (a ``TypeError``, and a
    ``ValueError`` as Chainer raises)."""


class SequentialIndexError(IndexError, ValueError):
    """An index past the steps of a :class:`Sequential` in an assignment (an ``IndexError``,
    and the ``ValueError`` Chainer raises)."""


class Sequential(ChainList):
    """Apply links and plain callables in order: ``Sequential(L.Linear(3), F.relu, ...)``.

    Links become children (their parameters are registered); other callables are kept as steps.

    The children are named ``'0'``, ``'1'``, ... in Chainer 7's order, which is the order of the
    steps only for up to two links: Chainer puts a link added after position 0 right after the
    *first* link before it, so ``Sequential(l0, l1, l2)`` names ``l2`` ``'1'`` and ``l1``
    ``'2'``. Parameter names (``/1/W``) and saved files therefore match Chainer's, and a model
    saved by Chainer loads with the right weights in each layer. Indexing and iteration follow
    the steps.

    Example:
        >>> import numpy as np, chainlet.links as L, chainlet.functions as F
        >>> from chainlet import Sequential
        >>> model = Sequential(L.Linear(4, 3), F.tanh, L.Linear(3, 1))
        >>> model(np.zeros((2, 4), np.float32)).shape
        (2, 1)
        >>> len(model)
        3
        >>> three = Sequential(L.Linear(2, 3), L.Linear(3, 4), L.Linear(4, 5))
        >>> [name for name, _ in three.namedlinks(skipself=True)]   # as in Chainer
        ['/0', '/1', '/2']
        >>> three[2].name, three[1].name
        ('1', '2')
    """

    _layers: list  # the steps: links and plain callables

    def __init__(self, *layers: Callable) -> None:
        super().__init__()
        self.__dict__['_layers'] = []
        for layer in layers:
            self.append(layer)

    def append(self, layer: Callable) -> None:  # type: ignore[override]
        """Add a step at the end."""
        self.insert(len(self._layers), layer)

    def insert(self, index: int, layer: Callable) -> None:
        """Add a step at ``index``."""
        if not callable(layer):
            raise SequentialError(f'Sequential: expected a Link or a callable, got '
                                  f'{type(layer).__name__}')
        n = len(self._layers)
        index = max(0, min(n, index + n if index < 0 else index))
        self._layers.insert(index, layer)
        if isinstance(layer, Link):
            self._insert_child(index, layer)

    def remove(self, layer: Callable) -> None:
        """Remove the first occurrence of ``layer``."""
        for i, step in enumerate(self._layers):
            if step is layer:
                del self._layers[i]
                self._sync_children()
                return
        raise ValueError('Sequential.remove: the layer is not in this Sequential')

    def pop(self, index: int = -1) -> Callable:
        """Remove and return the step at ``index``."""
        layer = self._layers.pop(index)
        self._sync_children()
        return layer

    def _insert_child(self, index: int, link: Link) -> None:
        # Chainer 7's rule (kept so that names and saved files match Chainer's): a link at
        # step 0 becomes the first child; otherwise it goes right after the first link among
        # the steps before it (after child 0 when there is none).
        if index == 0:
            position = 0
        else:
            position = 1 + next((j for j in range(index) if isinstance(self._layers[j], Link)),
                                0)
        children = self.__dict__.setdefault('_children', [])
        children.insert(position, link)
        self._rename_children()

    def _rename_children(self) -> None:
        for i, link in enumerate(self._children):
            link.name = str(i)

    def _sync_children(self) -> None:
        """Drop the children whose steps were removed (the others keep their order)."""
        present = {id(s) for s in self._layers if isinstance(s, Link)}
        self.__dict__['_children'] = [c for c in self.__dict__.get('_children', ())
                                      if id(c) in present]
        self._rename_children()

    def _copy_children(self, mode: str) -> None:
        # The steps list holds the children too: copy the links in it, keep the functions.
        # Chainer's copy appends the steps one by one, so the children get the order of a
        # Sequential built from these steps (not necessarily the original's after inserts).
        self.__dict__['_layers'] = [s.copy(mode) if isinstance(s, Link) else s
                                    for s in self._layers]
        self.__dict__['_children'] = []
        for index, step in enumerate(self._layers):
            if isinstance(step, Link):
                self._insert_child(index, step)

    def forward(self, *x: Any) -> Any:
        if not self._layers:
            raise RuntimeError('Sequential does not have any layer.')
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Sequential(*self._layers[index])
        return self._layers[index]

    def __setitem__(self, index: Any, layer: Any) -> None:  # an int index and a callable
        if not callable(layer):
            raise SequentialError(f'Sequential: expected a Link or a callable, got '
                                  f'{type(layer).__name__}')
        # As in Chainer: remove the old step, insert the new one at its place.
        n = len(self._layers)
        if not -n <= index < n:
            raise SequentialIndexError(f'Sequential: index {index} is out of range for '
                                       f'{n} steps')
        index = index + n if index < 0 else index
        del self[index]
        self.insert(index, layer)

    def __delitem__(self, index: Any) -> None:
        del self._layers[index]
        self._sync_children()

    def __len__(self) -> int:
        return len(self._layers)

    def __iter__(self) -> Iterator[Callable]:  # type: ignore[override]  # steps, not only links
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Callable]:
        return reversed(self._layers)

    def __contains__(self, layer: Any) -> bool:
        return any(step is layer for step in self._layers)

    def __add__(self, other: Any) -> 'Sequential':
        """A new Sequential with the steps of ``self`` then those of ``other`` (shared)."""
        self._check_sequential(other)
        return Sequential(*self._layers, *other._layers)

    def __iadd__(self, other: Any) -> 'Sequential':
        self._check_sequential(other)
        self.extend(other)
        return self

    @staticmethod
    def _check_sequential(other: Any) -> None:
        if not isinstance(other, Sequential):
            raise SequentialError(f'Sequential: + and += take another Sequential, got '
                                  f'{type(other).__name__}')

    def __reduce_ex__(self, protocol: Any) -> Any:
        if any(getattr(step, '__name__', None) == '<lambda>' for step in self._layers):
            raise ValueError('Sequential: a lambda step cannot be pickled; use a function '
                             'defined at module level or functools.partial')
        return super().__reduce_ex__(protocol)

    def __deepcopy__(self, memo: dict) -> 'Sequential':
        # copy('copy') deep-copies; functions (lambdas too) are shared, so only pickling needs
        # the check above.
        return copy_module._reconstruct(  # type: ignore[attr-defined]  # private to copy
            self, memo, *super().__reduce_ex__(4))

    def extend(self, layers: Any) -> None:
        """Append every step of ``layers`` (a Sequential or an iterable of callables)."""
        for layer in list(layers):
            self.append(layer)

    def index(self, layer: Callable, start: int = 0, end: Optional[int] = None) -> int:
        """Position of the first step that is ``layer``."""
        stop = len(self._layers) if end is None else end
        for i in range(start, min(stop, len(self._layers))):
            if self._layers[i] is layer:
                return i
        raise ValueError('Sequential.index: the layer is not in this Sequential')

    def count(self, layer: Callable) -> int:
        """Number of steps that are ``layer``."""
        return sum(step is layer for step in self._layers)

    @staticmethod
    def _type_name(layer: Callable) -> str:
        if isinstance(layer, Link):
            return type(layer).__name__
        return getattr(layer, '__name__', type(layer).__name__)

    def count_by_layer_type(self, type_name: str) -> int:
        """Number of steps whose class name (links) or ``__name__`` (functions) is
        ``type_name``."""
        return sum(self._type_name(step) == type_name for step in self._layers)

    def remove_by_layer_type(self, type_name: str) -> None:
        """Remove every step whose class name or function name is ``type_name``."""
        self._layers[:] = [s for s in self._layers if self._type_name(s) != type_name]
        self._sync_children()

    def clear(self) -> None:
        """Remove every step."""
        self._layers.clear()
        self._sync_children()

    def flatten(self) -> 'Sequential':
        """A new Sequential where nested Sequentials are replaced by their steps."""
        ret = Sequential()
        for layer in self._layers:
            if isinstance(layer, Sequential):
                ret.extend(layer.flatten())
            else:
                ret.append(layer)
        return ret

    def __repr__(self) -> str:
        lines = ['Sequential(']
        for i, step in enumerate(self._layers):
            body = repr(step) if isinstance(step, Link) else getattr(step, '__name__', repr(step))
            lines.append(f'  ({i}): {body},'.replace('\n', '\n  '))
        lines.append(')')
        return '\n'.join(lines)

    def __str__(self) -> str:
        # Chainer's form: str() of each step, so functions show as <function relu at 0x...>.
        if not self._layers:
            return f'{type(self).__name__}()'
        lines = []
        for i, step in enumerate(self._layers):
            for line in f'({i}): {step},'.splitlines():
                lines.append(f'  {line}')
        return f'{type(self).__name__}(\n' + '\n'.join(lines) + '\n)'
