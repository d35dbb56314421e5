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
import contextlib
import copy as copy_module
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy

from chainlet import backend
from chainlet import link_hook as _link_hook
from chainlet.link_hook import LinkHook
from chainlet.link_hook import _ForwardPostprocessCallbackArgs as _PostArgs
from chainlet.link_hook import _ForwardPreprocessCallbackArgs as _PreArgs
from chainlet.parameter import Parameter


def _send(value: Any, gpu_id: int) -> Any:
    if backend.is_array(value):
        return backend.to_cpu(value) if gpu_id < 0 else backend.to_gpu(value, gpu_id)
    return value


class Link:
    """A building block with parameters and persistent values (see the module docstring).

    Subclasses implement ``forward``; calling the link calls it, between the callbacks of the
    active link hooks (see :class:`~chainlet.LinkHook`, :meth:`add_hook`).
    """

    # Created on the first add_hook; None keeps the unhooked call path to one test.
    _local_link_hooks: Optional[collections.OrderedDict] = None

    def __init__(self, **params: Any) -> None:
        d = self.__dict__
        d['_params'] = []
        d['_persistent'] = []
        d['_within_init_scope'] = False
        d['_gpu_id'] = -1
        d['name'] = None
        for name, shape in params.items():  # Chainer's old Link(W=(3, 4)) form
            self.add_param(name, shape)

    # -- registration --

    @property
    def within_init_scope(self) -> bool:
        """True inside ``with self.init_scope():``."""
        return self.__dict__.get('_within_init_scope', False)

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Register Parameters (and, in a Chain, Links) assigned to attributes in this block."""
        if '_params' not in self.__dict__:
            raise RuntimeError(f'{type(self).__name__}: call super().__init__() before '
                               f'init_scope()')
        old = self._within_init_scope
        self.__dict__['_within_init_scope'] = True
        try:
            yield
        finally:
            self.__dict__['_within_init_scope'] = old

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Parameter):
            value.name = name
            if self._gpu_id >= 0:
                value.to_gpu(self._gpu_id)
            if name not in self._params:
                self._params.append(name)
            self._forget_persistent(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        if name in d.get('_params', ()):
            d['_params'].remove(name)
        self._forget_persistent(name)
        super().__delattr__(name)

    def _forget_persistent(self, name: str) -> None:
        persistent = self.__dict__.get('_persistent', ())
        if name in persistent:
            persistent.remove(name)

    def add_param(self, name: str, shape: Optional[Sequence[int]] = None, dtype: Any = None,
                  initializer: Any = None) -> None:
        """Register a new parameter ``name`` (lazy if ``shape`` is ``None``)."""
        if name in self.__dict__:
            raise AttributeError(f'{type(self).__name__}.add_param: the attribute {name!r} '
                                 f'already exists')
        if initializer is None:
            from chainlet import initializers
            initializer = initializers.NaN(dtype or numpy.float32)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Register ``value`` (an array or a scalar) to be saved and moved with the link."""
        if name in self.__dict__:
            raise AttributeError(f'{type(self).__name__}.add_persistent: the attribute '
                                 f'{name!r} already exists')
        self._persistent.append(name)
        self.__dict__[name] = _send(value, self._gpu_id)

    def register_persistent(self, name: str) -> None:
        """Mark an existing attribute as persistent."""
        if name not in self.__dict__:
            raise AttributeError(f'{type(self).__name__}.register_persistent: no attribute '
                                 f'{name!r}')
        if name not in self._persistent:
            self._persistent.append(name)

    # -- calling --

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _link_hook._active_count or self._local_link_hooks:
            return self._forward_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def _forward_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        hooks = _link_hook._registry.hooks
        if self._local_link_hooks:
            # A local hook with the name of a global one takes its place (as in Chainer).
            hooks = collections.OrderedDict(hooks)
            hooks.update(self._local_link_hooks)
        hooks = list(hooks.values())
        if not hooks:  # global hooks are active in another thread only
            return self.forward(*args, **kwargs)
        pre = _PreArgs(self, 'forward', args, kwargs)
        for hook in hooks:
            hook.forward_preprocess(pre)
        out = self.forward(*args, **kwargs)
        post = _PostArgs(self, 'forward', args, kwargs, out)
        for hook in hooks:
            hook.forward_postprocess(post)
        return out

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of the link; subclasses define it."""
        raise NotImplementedError(f'{type(self).__name__} does not define forward')

    # -- link hooks --

    @property
    def local_link_hooks(self) -> collections.OrderedDict:
        """Ordered dict ``name -> hook`` of the link hooks registered on this link only."""
        hooks = self._local_link_hooks
        if hooks is None:
            hooks = self.__dict__['_local_link_hooks'] = collections.OrderedDict()
        return hooks

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

    # -- traversal --

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """Yield every parameter of this link and its descendants (each once)."""
        for _, param in self.namedparams(include_uninit):
            yield param

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield ``(path, parameter)``, paths like ``/l1/W``; shared parameters come once."""
        seen = set()
        for prefix, link in self.namedlinks():
            base = '' if prefix == '/' else prefix
            for name in link._params:
                param = link.__dict__[name]
                if id(param) in seen or (not include_uninit and param.array is None):
                    continue
                seen.add(id(param))
                yield f'{base}/{name}', param

    def _child_items(self) -> Iterator[tuple[str, 'Link']]:
        return iter(())

    def children(self) -> Iterator['Link']:
        """Yield the direct child links."""
        for _, child in self._child_items():
            yield child

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, 'Link']]:
        """Yield ``(path, link)`` for this link (``'/'``) and all descendants."""
        if not skipself:
            yield '/', self
        stack = [('', self)]
        while stack:
            prefix, link = stack.pop(0)
            for name, child in link._child_items():
                path = f'{prefix}/{name}'
                yield path, child
                stack.append((path, child))

    def links(self, skipself: bool = False) -> Iterator['Link']:
        """Yield this link (unless ``skipself``) and every descendant."""
        for _, link in self.namedlinks(skipself):
            yield link

    # -- gradients and parameters --

    def cleargrads(self) -> None:
        """Set every parameter's gradient to ``None`` (the cheap way to reset before backward)."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Fill every gradient with zeros (prefer ``cleargrads``)."""
        for param in self.params():
            param.zerograd()

    def addgrads(self, link: 'Link') -> None:
        """Add the gradients of ``link`` (same structure) to this link's gradients."""
        src = dict(link.namedparams())
        for name, param in self.namedparams():
            if name in src:
                param.addgrad(src[name])

    def copyparams(self, link: 'Link', copy_persistent: bool = True) -> None:
        """Copy parameter values (and persistents) from ``link`` of the same structure."""
        src = dict(link.namedparams())
        for name, param in self.namedparams():
            other = src.get(name)
            if other is None or other.array is None:
                continue
            if param.array is None:
                param.initialize(other.shape)
            if param.shape != other.shape:
                raise ValueError(f'copyparams: parameter {name} has shape {param.shape}, the '
                                 f'source has {other.shape}')
            backend.copyto(param.array, other.array)
        if copy_persistent:
            src_links = dict(link.namedlinks())
            for path, dst in self.namedlinks():
                s = src_links.get(path)
                if s is None:
                    continue
                for name in dst._persistent:
                    value = s.__dict__.get(name)
                    if backend.is_array(value):
                        backend.copyto(dst.__dict__[name], value)
                    elif value is not None:
                        dst.__dict__[name] = value

    def copy(self, mode: str = 'share') -> 'Link':
        """Return a copy: ``'share'`` shares arrays (and link hooks), ``'copy'`` copies them,
        ``'init'`` re-initializes the parameters with their initializers."""
        if mode not in ('share', 'copy', 'init'):
            raise ValueError(f"Link.copy: argument mode: expected 'share', 'copy' or 'init', "
                             f'got {mode!r}')
        memo: dict = {}
        for link in self.links():  # arrays are shared in the shallow copy made below
            for name in link._params:
                p = link.__dict__[name]
                if p.array is not None:
                    memo[id(p.array)] = p.array
                if p.grad is not None:
                    memo[id(p.grad)] = p.grad
            for name in link._persistent:
                value = link.__dict__[name]
                if backend.is_array(value):
                    memo[id(value)] = value
            for hook in (link._local_link_hooks or {}).values():
                memo[id(hook)] = hook  # link hooks are shared too, as in Chainer
        new = copy_module.deepcopy(self, memo) if mode == 'share' else copy_module.deepcopy(self)
        if mode == 'init':
            for param in new.params():
                if param.array is not None:
                    param.initialize(param.shape)
        for param in new.params():
            param.update_rule = None
            param.cleargrad()
        return new

    def count_params(self) -> int:
        """Number of scalar parameters (uninitialized ones count as zero)."""
        return sum(p.size for p in self.params() if p.array is not None)

    def enable_update(self) -> None:
        """Let optimizers update every parameter of this link and its descendants."""
        self._set_update(True)

    def disable_update(self) -> None:
        """Freeze every parameter of this link and its descendants (optimizers skip them)."""
        self._set_update(False)

    def _set_update(self, enabled: bool) -> None:
        for link in self.links():
            link.__dict__['_update_enabled'] = enabled
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = enabled

    @property
    def update_enabled(self) -> bool:
        """False after ``disable_update()``."""
        return self.__dict__.get('_update_enabled', True)

    # -- devices --

    @property
    def xp(self) -> Any:
        """``numpy`` or ``cupy``: where the link's arrays live."""
        return numpy if self._gpu_id < 0 else backend.import_cupy()

    @property
    def device(self) -> str:
        """``'@numpy'`` or ``'@cupy:N'``."""
        return '@numpy' if self._gpu_id < 0 else f'@cupy:{self._gpu_id}'

    def to_device(self, device: Any) -> 'Link':
        """Move all parameters and persistents to ``device`` (see ``backend.parse_device_spec``).
        """
        gpu_id = backend.parse_device_spec(device)
        if gpu_id >= 0:
            backend.import_cupy()
        for link in self.links():
            link.__dict__['_gpu_id'] = gpu_id
            for name in link._params:
                param = link.__dict__[name]
                param.to_cpu() if gpu_id < 0 else param.to_gpu(gpu_id)
            for name in link._persistent:
                link.__dict__[name] = _send(link.__dict__[name], gpu_id)
        return self

    def to_cpu(self) -> 'Link':
        """Move to the CPU (NumPy)."""
        return self.to_device(-1)

    def to_gpu(self, device: Optional[int] = None) -> 'Link':
        """Move to GPU ``device`` (the current one, 0 by default)."""
        return self.to_device(0 if device is None else device)

    # -- serialization --

    def serialize(self, serializer: Any) -> None:
        """Save or load parameters and persistents through ``serializer`` (see serializers)."""
        d = self.__dict__
        for name in self._params:
            param = d[name]
            data = serializer(name, param.array)
            if data is None or data is param.array:
                continue
            if param.array is None:
                param.initialize(data.shape)
            backend.copyto(param.array, data)
        for name in self._persistent:
            d[name] = serializer(name, d[name])

    # -- other --

    def repeat(self, n_repeat: int, mode: str = 'init') -> 'Sequential':
        """A Sequential of ``n_repeat`` copies of this link (``mode`` as in :meth:`copy`)."""
        if n_repeat <= 0:
            return Sequential()
        return Sequential(*[self.copy(mode) for _ in range(n_repeat)])

    def _repr_args(self) -> dict:
        """Hyper-parameters shown by ``repr`` (links override this)."""
        return {}

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
    """A link made of child links, registered by attribute assignment inside ``init_scope``."""

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self.__dict__['_children'] = []
        with self.init_scope():
            for name, link in links.items():
                setattr(self, name, link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            if name in self.__dict__ and name not in self._children:
                raise AttributeError(f'{type(self).__name__}: attribute {name!r} already exists')
            value.name = name
            if name not in self._children:
                self._children.append(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        children = self.__dict__.get('_children', ())
        if name in children:
            children.remove(name)
        super().__delattr__(name)

    def __getitem__(self, name: str) -> Any:
        return getattr(self, name)

    def add_link(self, name: str, link: Link) -> None:
        """Register ``link`` as the child ``name``."""
        if name in self.__dict__:
            raise AttributeError(f'{type(self).__name__}.add_link: the attribute {name!r} '
                                 f'already exists')
        with self.init_scope():
            setattr(self, name, link)

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        for name in self.__dict__.get('_children', ()):
            yield name, self.__dict__[name]

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for name, child in self._child_items():
            child.serialize(serializer[name])


class ChainList(Link):
    """A link holding a list of child links, named ``'0'``, ``'1'``, ..."""

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self.__dict__['_children'] = []
        for link in links:
            self.add_link(link)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.within_init_scope and isinstance(value, Link):
            raise TypeError(f'{type(self).__name__}: register child links with add_link or '
                            f'append, not by attribute assignment')
        super().__setattr__(name, value)

    def add_link(self, link: Link) -> None:
        """Append a child link."""
        if not isinstance(link, Link):
            raise TypeError(f'{type(self).__name__}.add_link: expected a Link, got '
                            f'{type(link).__name__}')
        link.name = str(len(self._children))
        self._children.append(link)

    append = add_link

    def __getitem__(self, index: Any) -> Any:
        return self._children[index]

    def __len__(self) -> int:
        return len(self._children)

    def __iter__(self) -> Iterator[Link]:
        return iter(self._children)

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        for i, link in enumerate(self.__dict__.get('_children', ())):
            yield str(i), link

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for name, child in self._child_items():
            child.serialize(serializer[name])


class Sequential(ChainList):
    """Apply links and plain callables in order: ``Sequential(L.Linear(3), F.relu, ...)``.

    Links become children (their parameters are registered); other callables are kept as steps.

    Example:
        >>> import numpy as np, chainlet.links as L, chainlet.functions as F
        >>> from chainlet import Sequential
        >>> model = Sequential(L.Linear(4, 3), F.tanh, L.Linear(3, 1))
        >>> model(np.zeros((2, 4), np.float32)).shape
        (2, 1)
        >>> len(model)
        3
    """

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
            raise TypeError(f'Sequential: expected a Link or a callable, got '
                            f'{type(layer).__name__}')
        self._layers.insert(index, layer)
        self._sync_children()

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

    def _sync_children(self) -> None:
        self.__dict__['_children'] = [s for s in self._layers if isinstance(s, Link)]
        for i, link in enumerate(self._children):
            link.name = str(i)

    def forward(self, *x: Any) -> Any:
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Sequential(*self._layers[index])
        return self._layers[index]

    def __setitem__(self, index: int, layer: Callable) -> None:
        if not callable(layer):
            raise TypeError(f'Sequential: expected a Link or a callable, got '
                            f'{type(layer).__name__}')
        self._layers[index] = layer
        self._sync_children()

    def __delitem__(self, index: Any) -> None:
        del self._layers[index]
        self._sync_children()

    def __len__(self) -> int:
        return len(self._layers)

    def __iter__(self) -> Iterator[Callable]:
        return iter(self._layers)

    def __reversed__(self) -> Iterator[Callable]:
        return reversed(self._layers)

    def __contains__(self, layer: Any) -> bool:
        return any(step is layer for step in self._layers)

    def __add__(self, other: Any) -> 'Sequential':
        """A new Sequential with the steps of ``self`` then those of ``other`` (shared)."""
        if not isinstance(other, Sequential):
            return NotImplemented
        return Sequential(*self._layers, *other._layers)

    def __iadd__(self, other: Any) -> 'Sequential':
        if not isinstance(other, Sequential):
            return NotImplemented
        self.extend(other)
        return self

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
