"""``Variable`` (what users hold) and ``VariableNode`` (the graph vertex behind it).

A Variable owns its array and its gradient. Its VariableNode records where the value came from
(``creator_node``), its ``rank`` and its shape and dtype, and outlives the Variable: the function
that consumed it keeps the node alive, so backward still works after the user dropped the handle.
The node keeps the array itself only while some function retained it for backward.

Example:
    >>> import numpy as np, chainlet
    >>> x = chainlet.Variable(np.array([1.0, 2.0], np.float32))
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    array([2., 4.], dtype=float32)
"""
from __future__ import annotations

import warnings
import weakref
from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlet import backend


def _check_array(data: Any, what: str) -> None:
    if data is None or type(data) is numpy.ndarray or backend.is_cupy_array(data):
        return
    if isinstance(data, numpy.ndarray):  # ndarray subclasses such as np.matrix or memmap
        return
    if isinstance(data, numpy.generic):
        hint = '; wrap a scalar with numpy.asarray(value, dtype)'
    elif isinstance(data, (list, tuple, int, float, complex, bool)):
        hint = '; convert it with numpy.asarray(value, dtype=numpy.float32)'
    else:
        hint = ''
    raise TypeError(f'{what}: expected a numpy or cupy ndarray or None, '
                    f'got {type(data).__name__}{hint}')


def _check_layout(layout: Any, where: str) -> None:
    # Chainer 7.8 can keep an array in a non-standard memory layout (channels last, for cuDNN's
    # fast path); chainlet computes in the standard one only (docs/differences.md).
    if layout is not None:
        raise ValueError(
            f'{where}: layout must be None (the standard memory layout, '
            f'memory_layouts.CUDNN_CHANNEL_FIRST_X); chainlet keeps no other, got {layout!r}')


def _reject_kwargs(kwargs: dict) -> None:
    if 'layout' in kwargs:
        _check_layout(kwargs.pop('layout'), 'Variable')
        if not kwargs:
            return
    if 'volatile' in kwargs:
        raise ValueError('Variable: volatile argument is not supported anymore. '
                         'Use chainlet.using_config (or no_backprop_mode)')
    raise TypeError(f'Variable: unexpected keyword argument {next(iter(kwargs))!r}')


def _array_text(var: 'Variable', separator: str) -> str:
    # Chainer's layout: the prefix names the variable and continuation lines are indented
    # under it, as numpy.array2string does for a prefix.
    prefix = f'variable {var.name}' if var.name else 'variable'
    arr = var._data
    if arr is None:
        return f'{prefix}(None)'
    arr = backend.to_cpu(arr)
    if separator == ', ' and arr.size == 0 and arr.shape != (0,):
        return f'{prefix}([], shape={arr.shape!r})'  # the shape is lost otherwise
    return f'{prefix}({numpy.array2string(arr, separator=separator, prefix=prefix + "(")})'


class VariableNode:
    """A vertex of the computational graph standing for one value.

    Attributes:
        creator_node: The :class:`FunctionNode` that produced the value, or ``None`` for a leaf.
        rank: 0 for a leaf; one more than its creator's rank otherwise.
        shape, dtype: Shape and dtype of the value (kept after the array itself is freed).
        data: The array, only while a function retains it for backward; otherwise ``None``.
        requires_grad: Whether gradients flow to this node.
        name: Optional name shown in graph dumps.
    """

    __slots__ = ('_variable', 'creator_node', 'rank', 'shape', 'dtype', 'data',
                 'requires_grad', 'name', '_grad_var', '__weakref__')
    # A weak reference to the Variable, or ``_no_variable`` where none is tracked: a function's
    # output (see ``Variable._from_output``) or a constant.
    _variable: Any
    # The gradient of an untracked node's Variables; a tracked node's Variable keeps its own, as
    # in Chainer (so that a leaf's gradient graph, after double backprop, does not hold the
    # leaf's node in a reference cycle).
    _grad_var: Optional['Variable']
    creator_node: Any
    rank: int
    shape: Optional[tuple]
    dtype: Any
    data: Any
    requires_grad: bool
    name: Optional[str]

    def __init__(self, variable: 'Variable', name: Optional[str] = None,
                 requires_grad: Optional[bool] = None, **kwargs: Any) -> None:
        if kwargs:
            if 'grad' in kwargs:
                # Chainer 2 took a gradient here; Chainer 7 refuses it with ValueError.
                raise ValueError('VariableNode: unexpected keyword argument "grad": pass the '
                                 'gradient to Variable instead')
            raise TypeError(f'VariableNode: unexpected keyword argument {next(iter(kwargs))!r}')
        if requires_grad is None:
            node = getattr(variable, '_node', None)
            requires_grad = True if node is None else node.requires_grad
        self._variable = weakref.ref(variable)
        self.creator_node = None
        self.rank = 0
        data = variable._data
        self.shape = None if data is None else data.shape
        self.dtype = None if data is None else data.dtype
        self.data = None
        self.requires_grad = requires_grad
        self.name = name
        self._grad_var = None
        if not hasattr(variable, '_own_grad'):  # a function's output handed to a new node
            variable._own_grad = None

    @property
    def creator(self):
        """The function that created this value: ``creator_node``, or the old-style
        :class:`~chainlet.Function` behind it."""
        node = self.creator_node
        return None if node is None else node._as_creator()

    @creator.setter
    def creator(self, func) -> None:
        self.set_creator_node(getattr(func, 'node', func))

    def set_creator(self, creator) -> None:
        """Set the function (a :class:`~chainlet.Function` or a FunctionNode) that created
        this node; the same as assigning :attr:`creator`."""
        self.creator = creator

    def set_creator_node(self, creator_node) -> None:
        """Set the FunctionNode (or the node of a :class:`~chainlet.Function`) that created
        this node and take the rank after it; ``None`` unchains the node, keeping its rank."""
        creator_node = getattr(creator_node, 'node', creator_node)
        self.creator_node = creator_node
        if creator_node is not None:
            self.rank = creator_node.rank + 1

    @property
    def _requires_grad(self) -> bool:
        # Chainer's attribute name; ported tests and user code set it directly.
        return self.requires_grad

    @_requires_grad.setter
    def _requires_grad(self, flag: bool) -> None:
        self.requires_grad = flag

    @property
    def grad(self) -> Any:
        """The gradient array of the node's Variable, or ``None`` (also when a tracked Variable
        is gone)."""
        g = self.grad_var
        return None if g is None else g._data

    @property
    def grad_var(self) -> Optional['Variable']:
        """The gradient of the node's Variable as a Variable, or ``None``."""
        holder = self._grad_holder()
        return None if holder is None else holder._grad_var

    def _set_grad_var_if_available(self, g: Optional['Variable']) -> None:
        holder = self._grad_holder()
        if holder is not None:
            holder._grad_var = g

    def _grad_holder(self) -> Any:
        """What keeps this node's gradient in its ``_grad_var``: the node itself for a
        function's output (it does not know its Variable), the Variable for a node that tracks
        one, ``None`` once that Variable is gone."""
        ref = self._variable
        return self if ref is _no_variable else ref()

    @property
    def _rank(self) -> int:
        # Chainer's name for the rank; some ported tests set it directly.
        return self.rank

    @_rank.setter
    def _rank(self, rank: int) -> None:
        self.rank = rank

    @property
    def label(self) -> str:
        """Short text used in graph dumps, as Chainer writes it: ``(2, 3), float32``, ``(1),
        float32`` for one axis, and the dtype alone (``float32``) for a 0-d value."""
        shape = self.shape
        if shape is None:
            return 'None'
        if shape == ():
            return str(self.dtype)
        return f'({", ".join(map(str, shape))}), {self.dtype}'

    def get_variable(self) -> 'Variable':
        """Return the Variable of this node: the live one if the node knows it, else a new one
        over the node's retained data (a function's output does not know its Variable, see
        ``Variable._from_output``; the gradient lives on the node, so every such Variable
        shares it)."""
        var = self._variable()
        if var is not None:
            return var
        var = Variable.__new__(Variable)
        var._data = self.data
        var._node = self
        var._own_grad = None
        if self._variable is not _no_variable:
            # The node's own Variable is gone: this one takes its place. An output node stays
            # untracked, so that a Variable made here for a moment (a backward asking for its
            # retained inputs) does not hide the output Variable the user still holds.
            self._variable = weakref.ref(var)
        return var

    def get_variable_or_none(self) -> Optional['Variable']:
        """Return the Variable of this node if the node knows it and it is alive, else ``None``
        (a function's output never knows its Variable, see ``Variable._from_output``)."""
        return self._variable()

    def retain_data(self) -> None:
        """Keep the value's array on the node so backward can use it after the Variable dies."""
        var = self._variable()
        if var is None:
            raise RuntimeError(
                'VariableNode.retain_data: the node has no Variable to take the array from (it '
                'was freed, or the node is a function output, which keeps no reference to its '
                'Variable); call retain_data() on the Variable instead')
        self.data = var._data

    def unchain(self) -> None:
        """Cut the edge to the creator, making this node a leaf of the graph."""
        self.creator_node = None

    def __repr__(self) -> str:
        return f'<VariableNode {self.name or ""}{self.label} rank={self.rank}>'


def _no_variable() -> None:
    return None


def track_output(var: 'Variable') -> None:
    """Let the node of ``var``, a function's output, know ``var`` as a leaf's node does.

    ``var.node.get_variable_or_none()`` is then ``var`` while it lives, and its gradient moves to
    the Variable (dropped with it, as in Chainer). ``FunctionNode.apply`` calls this only while
    hooks observe the graph; see ``Variable._from_output`` for why outputs are untracked
    otherwise.
    """
    node = var._node
    if node._variable is _no_variable:
        var._own_grad = node._grad_var
        node._grad_var = None
        node._variable = weakref.ref(var)


def constant_node(data: Any) -> VariableNode:
    """A graph node for a constant array input (no Variable, no gradient)."""
    node = object.__new__(VariableNode)
    node._variable = _no_variable
    node.creator_node = None
    node.rank = 0
    node.shape = None if data is None else data.shape  # None: a missing optional input
    node.dtype = None if data is None else data.dtype
    node.data = None
    node.requires_grad = False
    node.name = None
    node._grad_var = None
    return node


class Variable:
    """An array with a gradient, and a handle to its place in the computational graph.

    Args:
        data: A ``numpy.ndarray``, ``cupy.ndarray`` or ``None`` (to be set later). Lists and
            scalars are rejected with ``TypeError`` so that dtypes are never guessed.
        name: Optional name, shown in ``repr`` and graph dumps.
        grad: Optional initial gradient (same shape and dtype as ``data``).
        requires_grad: If ``False``, gradients are not computed for this variable.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.arange(3, dtype=np.float32))
        >>> (x * 2.0 + 1).array
        array([1., 3., 5.], dtype=float32)
    """

    # ``_keras_mask``: the mask chainlet.keras's masking layers attach to their outputs (Keras's
    # attribute name, read by Keras code); left unset (no cost) on every other Variable.
    __slots__ = ('_data', '_node', '_own_grad', '_keras_mask', '__weakref__')
    _data: Any
    _node: VariableNode
    _own_grad: Optional['Variable']  # the gradient when the node tracks this Variable
    _keras_mask: Any
    # Make NumPy defer to our reflected operators (ndarray + Variable -> Variable.__radd__).
    __array_ufunc__ = None
    __array_priority__ = 200
    __hash__ = object.__hash__
    # Chainer's flag for a ChainerX array, read by code ported from Chainer; chainlet has no
    # ChainerX backend, so it is a class constant (no per-instance cost).
    _has_chainerx_array = False
    # Chainer 7's memory layout of the array: chainlet keeps every array in the standard one.
    layout = None

    def __init__(self, data: Any = None, *, name: Optional[str] = None, grad: Any = None,
                 requires_grad: bool = True, **kwargs: Any) -> None:
        if kwargs:
            _reject_kwargs(kwargs)
        _check_array(data, 'Variable')
        self._data = data
        self._own_grad = None
        self._node = VariableNode(self, name, requires_grad)
        if grad is not None:
            self.grad = grad

    @staticmethod
    def _init_unchecked(data: Any = None, device: Any = None, name: Optional[str] = None,
                        grad: Any = None, grad_valid: bool = True, requires_grad: bool = True,
                        is_chainerx_array: Optional[bool] = None, node: Any = None,
                        layout: Any = None) -> 'Variable':
        """Chainer's constructor without argument checks (``device``, ``grad_valid``,
        ``is_chainerx_array`` and ``layout`` are accepted and have no effect here); ``node``
        reuses an existing :class:`VariableNode`."""
        var = Variable.__new__(Variable)
        var._data = data
        var._own_grad = None
        if node is None:
            node = VariableNode(var, name, requires_grad)
        elif node._variable is not _no_variable:  # as in get_variable
            node._variable = weakref.ref(var)
        var._node = node
        if grad is not None:
            var._grad_var = Variable(grad)
        return var

    # -- construction used by FunctionNode.apply (no checks: the data is a fresh ndarray) --

    @classmethod
    def _from_output(cls, data: Any, requires_grad: bool, creator: Any = None,
                     rank: int = 0) -> 'Variable':
        """A Variable for a fresh array a function computed (no checks), linked to its
        ``creator`` at ``rank`` (one above its inputs) when a graph is built.

        The node keeps no reference back to the Variable: the gradient lives on the node, and
        :meth:`VariableNode.get_variable` makes a Variable for the node when one is asked for.
        A weak reference here would be one more object per operation for the cyclic garbage
        collector to scan while the graph lives, a sixth of a small op's time
        (``docs/performance.md``).
        """
        var = object.__new__(cls)
        var._data = data
        node = object.__new__(VariableNode)
        node._variable = _no_variable
        node.creator_node = creator
        node.rank = rank
        try:
            node.shape = data.shape
            node.dtype = data.dtype
        except AttributeError:  # a function may output None (as in Chainer)
            node.shape = node.dtype = None
        node.data = None
        node.requires_grad = requires_grad
        node.name = None
        node._grad_var = None
        var._node = node
        return var

    # -- array and graph properties --

    @property
    def array(self) -> Any:
        """The underlying ndarray."""
        return self._data

    @array.setter
    def array(self, data: Any) -> None:
        _check_array(data, 'Variable.array')
        self._data = data
        node = self._node
        node.shape = None if data is None else data.shape
        node.dtype = None if data is None else data.dtype
        if node.data is not None:
            node.data = data

    data = array
    # Chainer 7 separates the raw array from ``array`` for non-standard memory layouts; with
    # the standard layout only they are the same.
    raw_array = array

    @property
    def node(self) -> VariableNode:
        """The :class:`VariableNode` of this variable."""
        return self._node

    @property
    def creator_node(self):
        """The :class:`FunctionNode` that produced this variable, or ``None``."""
        return self._node.creator_node

    @creator_node.setter
    def creator_node(self, func) -> None:
        self._node.creator_node = func
        if func is not None:
            self._node.rank = func.rank + 1

    @property
    def creator(self):
        """The function that created this variable (an old-style Function shows as itself)."""
        return self._node.creator

    @creator.setter
    def creator(self, func) -> None:
        self.creator_node = getattr(func, 'node', func)

    def set_creator(self, gen_func) -> None:
        """Make ``gen_func`` (a Function or FunctionNode) the creator; as ``creator = ...``."""
        self._node.set_creator(gen_func)

    def set_creator_node(self, fnode) -> None:
        """Make ``fnode`` the creator node; as ``creator_node = ...``."""
        self._node.set_creator_node(fnode)

    @property
    def rank(self) -> int:
        """Topological ordinal: 0 for leaves, creator's rank + 1 otherwise."""
        return self._node.rank

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this variable."""
        return self._node.requires_grad

    @property
    def name(self) -> Optional[str]:
        """Optional name of the variable."""
        return self._node.name

    @name.setter
    def name(self, n: Optional[str]) -> None:
        self._node.name = n

    @property
    def label(self) -> str:
        """Short description such as ``(2, 3), float32``."""
        return self._node.label

    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> numpy.dtype:
        return self._data.dtype

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError('len() of a 0-d Variable')
        return len(self._data)

    @property
    def xp(self):
        """The array module of the data (``numpy`` or ``cupy``)."""
        return backend.get_array_module(self._data)

    @property
    def device(self) -> Any:
        """The :class:`~chainlet.backend.Device` holding the data (the CPU when there is none).

        It compares equal to its name, so ``x.device == '@numpy'`` and ``'@cupy:0'`` work.
        """
        return backend.get_device_from_array(self._data)

    # -- gradient --

    # Chainer's private name of the gradient Variable. A Variable its node tracks (one made by
    # ``Variable(...)``) keeps it itself; a function's output keeps it on its node, which does
    # not know its Variable (see _from_output).
    @property
    def _grad_var(self) -> Optional['Variable']:
        node = self._node
        return node._grad_var if node._variable is _no_variable else self._own_grad

    @_grad_var.setter
    def _grad_var(self, g: Optional['Variable']) -> None:
        node = self._node
        if node._variable is _no_variable:
            node._grad_var = g
        else:
            self._own_grad = g

    @property
    def grad_var(self) -> Optional['Variable']:
        """The gradient as a Variable (may carry a graph after double backprop)."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, g: Optional['Variable']) -> None:
        if g is not None:
            if not isinstance(g, Variable):
                raise TypeError(f'Variable.grad_var: expected a Variable or None, '
                                f'got {type(g).__name__}')
            self._check_grad(g._data)
        self._grad_var = g

    @property
    def grad(self) -> Any:
        """The gradient array, or ``None``."""
        g = self._grad_var
        return None if g is None else g._data

    @grad.setter
    def grad(self, g: Any) -> None:
        if g is None:
            self._grad_var = None
            return
        _check_array(g, 'Variable.grad')
        self._check_grad(g)
        # As in Chainer, the gradient Variable made from an array requires grad (it is a leaf,
        # so that only matters if it is later used as an input).
        self._grad_var = Variable(g)

    @property
    def _grad(self) -> Any:
        # Chainer's private name of the gradient array (optimizers and tests reach it).
        g = self._grad_var
        return None if g is None else g._data

    @_grad.setter
    def _grad(self, g: Any) -> None:
        self._grad_var = None if g is None else Variable(g)

    def _check_grad(self, g: Any, what: str = 'Variable.grad') -> None:
        data = self._data
        if data is None:
            return
        if g.shape != data.shape:
            raise ValueError(f'{what}: expected shape {data.shape} (the shape of the '
                             f'data), got {g.shape}')
        if g.dtype != data.dtype:
            raise TypeError(f'{what}: expected dtype {data.dtype} (the dtype of the data), '
                            f'got {g.dtype}')
        if type(g) is not type(data) and not isinstance(g, type(data)):
            raise TypeError(f'{what}: expected {backend.array_type_name(data)} like the '
                            f'data, got {backend.array_type_name(g)}')

    def cleargrad(self) -> None:
        """Forget the gradient (the next backward stores a fresh one)."""
        self._grad_var = None

    def zerograd(self) -> None:
        """Set the gradient to zeros. Deprecated as in Chainer (``DeprecationWarning``): use
        :meth:`cleargrad`.

        An existing gradient is filled in place and cut from any graph it carries.
        """
        warnings.warn('Variable.zerograd is deprecated. Use Variable.cleargrad instead.',
                      DeprecationWarning, stacklevel=2)
        self._zerograd()

    def _zerograd(self) -> None:
        data = self._data
        if data is None:
            return
        gv = self._grad_var
        if gv is None:
            xp = backend.get_array_module(data)
            if isinstance(data, numpy.ndarray):
                self._grad_var = Variable(xp.zeros_like(data))
            else:
                with data.device:  # CuPy allocates on the current device, not the array's
                    self._grad_var = Variable(xp.zeros_like(data))
        else:
            gv.unchain()
            gv._data.fill(0)

    def backward(self, retain_grad: bool = False, enable_double_backprop: bool = False,
                 loss_scale: Optional[float] = None) -> None:
        """Compute gradients of this variable with respect to every leaf of its graph.

        Gradients accumulate into the ``grad`` of leaves that require them. A variable with one
        element gets an initial gradient of one when ``grad`` is unset (stored in its ``grad``,
        as in Chainer); larger ones need ``grad`` set first.

        Args:
            retain_grad: Keep the gradients of intermediate variables (still referenced by you).
            enable_double_backprop: Build a graph of the backward computation, so the gradients
                can be differentiated again.
            loss_scale: If given, the initial gradient that this call creates is multiplied by it
                (loss scaling); a ``grad`` you set yourself is used as it is.
        """
        data = self._data
        if self._grad_var is None and data is not None and data.size == 1 and data.ndim != 0:
            warnings.warn(
                'Treating a variable with only one element as a scalar in Variable.backward is '
                'deprecated. A scalar variable must be a 0-dimensional array. Apply '
                'chainer.functions.squeeze to obtain a scalar variable. If the size of this '
                'variable accidentally becomes one, set zero to grad.',
                DeprecationWarning, stacklevel=2)
        _backprop.backward_from(self, retain_grad, enable_double_backprop, loss_scale)
        if not retain_grad and self._node.creator_node is not None:
            # As in Chainer 7, backward consumes the output's gradient (retain_grad keeps it).
            self._grad_var = None

    # -- graph surgery --

    def unchain(self) -> None:
        """Make this variable a leaf by cutting the edge to its creator."""
        self._node.creator_node = None

    def unchain_backward(self) -> None:
        """Cut every edge behind this variable, so the graph behind it can be freed."""
        stack = [self._node.creator_node]
        seen: set = set()
        while stack:
            func = stack.pop()
            if func is None or id(func) in seen:
                continue
            seen.add(id(func))
            for node in func.inputs:
                stack.append(node.creator_node)
                node.creator_node = None
            func.unchain()
        self._node.creator_node = None

    # -- devices --

    def to_cpu(self) -> 'Variable':
        """Move data and gradient to the CPU in place; returns ``self``."""
        self._move(backend.to_cpu)
        return self

    def to_gpu(self, device: Optional[int] = None) -> 'Variable':
        """Move data and gradient to GPU ``device`` in place; returns ``self``."""
        self._move(lambda a: backend.to_gpu(a, device))
        return self

    def to_device(self, device: Any) -> 'Variable':
        """Move to ``device`` (``'@numpy'``, ``-1``, ``'@cupy:0'``, ``'cuda:0'`` or an int)."""
        gpu_id = backend.parse_device_spec(device)
        return self.to_cpu() if gpu_id < 0 else self.to_gpu(gpu_id)

    def to_intel64(self) -> None:
        """Chainer's move to iDeep arrays: raises ``RuntimeError`` (iDeep is not available)."""
        from chainlet.backends import intel64
        intel64.check_ideep_available()

    def to_chx(self) -> None:
        """Chainer's move to ChainerX arrays: raises ``RuntimeError`` (ChainerX is not
        available), as Chainer does when ChainerX is not built."""
        raise RuntimeError('ChainerX is not available.')

    def from_chx(self) -> None:
        """Chainer's move back from ChainerX arrays: nothing to do without ChainerX."""

    @property
    def chx_array(self) -> Any:
        """Chainer's ChainerX view of the array: ``ValueError``, the array is never ChainerX."""
        raise ValueError('chx_array is not available for Variable with non-ChainerX array.')

    def _move(self, convert) -> None:
        if self._data is not None:
            self._data = convert(self._data)
            if self._node.data is not None:
                self._node.data = self._data
        if self._grad_var is not None:
            self._grad_var._data = convert(self._grad_var._data)

    # -- copying and pickling: a copy is a new leaf (the graph is never copied) --

    def __deepcopy__(self, memo: dict) -> 'Variable':
        import copy
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        Variable.__init__(new, copy.deepcopy(self._data, memo), name=self.name,
                          requires_grad=self.requires_grad)
        if self._grad_var is not None:
            new._grad_var = Variable(copy.deepcopy(self._grad_var._data, memo),
                                     requires_grad=False)
        return new

    def __reduce__(self):
        return (_rebuild_variable, (self._data, self.name, self.grad, self.requires_grad))

    # -- conveniences --

    def item(self) -> Any:
        """The single element of a size-1 variable as a Python scalar."""
        return self._data.item()

    # -- conversions: as a Keras eager tensor (torch/NumPy backends) converts; Chainer's
    # Variable has none, so ``numpy.asarray(v)`` made an object array of 0-d Variables and
    # ``int(v)`` raised. None of them records a graph: the result is a plain value.

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> numpy.ndarray:
        """``numpy.asarray(variable)``: the data as a NumPy array (GPU data is copied to the
        host, as Keras's ``convert_to_numpy``)."""
        data = self._data
        if data is None:
            raise TypeError(f'numpy.asarray: the variable {self.summary()} has no data '
                            f'(an uninitialized parameter)')
        if not isinstance(data, numpy.ndarray):
            if copy is False:
                raise ValueError('numpy.asarray(copy=False): the variable\'s data is on a GPU; '
                                 'a copy to the host is needed')
            data = backend.to_cpu(data)
        if dtype is not None and data.dtype != dtype:
            return data.astype(dtype)
        return data.copy() if copy else data

    def _scalar(self, to: str) -> Any:
        data = self._data
        if data is None or data.size != 1:
            size = None if data is None else data.size
            raise TypeError(f'{to}(): only a variable with one element can be converted to a '
                            f'Python scalar, got shape {self.shape} (size {size})')
        return data.item()

    def __int__(self) -> int:
        """``int(v)`` of a one-element variable (truncates floats, as ``int(3.7)``)."""
        return int(self._scalar('int'))

    def __float__(self) -> float:
        """``float(v)`` of a one-element variable."""
        return float(self._scalar('float'))

    def __complex__(self) -> complex:
        return complex(self._scalar('complex'))

    def __index__(self) -> int:
        """``operator.index(v)`` (list indices, ``range``): one-element integer variables
        only, as for tensors and NumPy integer scalars."""
        if self._data is None or self._data.dtype.kind not in 'iu':
            raise TypeError(f'only integer variables can be used as an index, got dtype '
                            f'{self.dtype}')
        return int(self._scalar('index'))

    def copydata(self, var: 'Variable') -> None:
        """Copy the array of ``var`` into this variable's array in place.

        As in Chainer, an uninitialized side is initialized first: this variable takes a copy of
        the source's array (a :class:`~chainlet.Parameter` runs its initializer, then copies),
        and an uninitialized source parameter is initialized with this variable's shape.
        """
        src = var._data if isinstance(var, Variable) else var
        dst = self._data
        if src is None:
            if dst is None:
                return
            if not hasattr(var, 'initialize'):
                raise ValueError('Variable.copydata: the source variable has no data')
            var.initialize(dst.shape)
            src = var._data
        elif dst is None:
            if not hasattr(self, 'initialize'):
                self.array = src.copy()
                return
            self.initialize(src.shape)
            dst = self._data
        backend.copyto(dst, src)

    def addgrad(self, var: 'Variable') -> None:
        """Add ``var``'s gradient to this variable's gradient (allocating if unset).

        The gradients must have the same shape and dtype (no broadcasting), as in Chainer.
        """
        src = var.grad
        if src is None:
            return
        dst = self._data
        if isinstance(dst, numpy.ndarray):
            src = backend.to_cpu(src)
        elif dst is not None and (not backend.is_cupy_array(src) or src.device != dst.device):
            src = backend.to_gpu(src, dst.device.id)  # across the host or another GPU
        self._check_grad(src, 'Variable.addgrad')
        if self._grad_var is None:
            self._grad_var = Variable(src.copy(), requires_grad=False)
        else:
            self._grad_var._data += src

    def __repr__(self) -> str:
        """Chainer's format: ``variable([0., 1.])``, ``variable x(None)``, and the shape for an
        empty array other than 1-d (``variable([], shape=(0, 0))``); no dtype is shown."""
        return _array_text(self, ', ')

    def summary(self) -> str:
        """``<variable NAME>``, or ``<variable at 0x...>`` for an unnamed variable (Chainer)."""
        if self.name:
            return f'<variable {self.name}>'
        return f'<variable at 0x{id(self):x}>'

    def debug_print(self) -> str:
        """Multi-line description in Chainer's format: summary, device (``CPU`` for NumPy,
        the CuPy device otherwise), backend, shape, dtype, statistics and gradient; the
        fields are ``None`` for a variable without data."""
        data = self._data
        xp = backend.get_array_module(data) if data is not None else numpy

        def stats(a: Any) -> str:
            with warnings.catch_warnings():  # the mean of an empty array is NaN, quietly
                warnings.simplefilter('ignore', RuntimeWarning)
                return f'mean={float(xp.mean(a)):.8f}, std={float(xp.std(a)):.8f}'
        if data is None:
            device = kind = shape = dtype = statistics = None
        else:
            # NumPy 2 arrays have a ``device`` ('cpu'); Chainer prints CPU for host arrays.
            device = 'CPU' if isinstance(data, numpy.ndarray) else getattr(data, 'device', 'CPU')
            kind, shape, dtype, statistics = type(data), data.shape, data.dtype, stats(data)
        g = self.grad
        grad = None if g is None else 0 if bool(xp.all(g == 0)) else stats(g)
        return (f'{self.summary()}\n- device: {device}\n- backend: {kind}\n'
                f'- shape: {shape}\n- dtype: {dtype}\n- statistics: {statistics}\n'
                f'- grad: {grad}')

    def __str__(self) -> str:
        """Chainer's format: ``variable([0. 1.])`` (``str`` of the array, prefixed)."""
        return _array_text(self, ' ')

    def retain_data(self) -> None:
        """Let the node keep the array, so backward can use it after this Variable is gone."""
        self._node.data = self._data

    def __bool__(self) -> bool:
        # As in Chainer: truth of a Variable is ambiguous (and would hide graph breaks).
        raise TypeError('Variables cannot be evaluated as Python bool.')

    if TYPE_CHECKING:
        # Attached by chainlet.functions._variable_methods (the core imports no function):
        # declared here for type checkers and readers.
        T: 'Variable'

        def reshape(self, *shape: Any) -> 'Variable': ...

        def transpose(self, *axes: Any) -> 'Variable': ...

        def sum(self, axis: Any = None, keepdims: bool = False) -> 'Variable': ...

        def mean(self, axis: Any = None, *, weights: Any = None,
                 keepdims: bool = False) -> 'Variable': ...

        def __add__(self, other: Any) -> 'Variable': ...

        def __radd__(self, other: Any) -> 'Variable': ...

        def __sub__(self, other: Any) -> 'Variable': ...

        def __rsub__(self, other: Any) -> 'Variable': ...

        def __mul__(self, other: Any) -> 'Variable': ...

        def __rmul__(self, other: Any) -> 'Variable': ...

        def __truediv__(self, other: Any) -> 'Variable': ...

        def __rtruediv__(self, other: Any) -> 'Variable': ...

        def __floordiv__(self, other: Any) -> 'Variable': ...

        def __rfloordiv__(self, other: Any) -> 'Variable': ...

        def __pow__(self, other: Any) -> 'Variable': ...

        def __rpow__(self, other: Any) -> 'Variable': ...

        def __matmul__(self, other: Any) -> 'Variable': ...

        def __rmatmul__(self, other: Any) -> 'Variable': ...

        def __neg__(self) -> 'Variable': ...

        def __pos__(self) -> 'Variable': ...

        def __abs__(self) -> 'Variable': ...

        def __getitem__(self, slices: Any) -> 'Variable': ...

    # Comparisons act on the data and return boolean arrays (see DESIGN §6).
    def __lt__(self, other: Any) -> Any:
        return self._data < _data_of(other)

    def __le__(self, other: Any) -> Any:
        return self._data <= _data_of(other)

    def __gt__(self, other: Any) -> Any:
        return self._data > _data_of(other)

    def __ge__(self, other: Any) -> Any:
        return self._data >= _data_of(other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return self._data == _data_of(other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return self._data != _data_of(other)

    # Arithmetic operators (__add__, __mul__, ...) are attached with the methods above by
    # chainlet.functions._variable_methods.


def _rebuild_variable(data: Any, name: Optional[str], grad: Any,
                      requires_grad: bool) -> Variable:
    return Variable(data, name=name, grad=grad, requires_grad=requires_grad)


def _data_of(x: Any) -> Any:
    return x._data if isinstance(x, Variable) else x


def as_variable(obj: Any) -> Variable:
    """Return ``obj`` if it is a Variable, else wrap the array in one with ``requires_grad=False``.

    Example:
        >>> import numpy as np, chainlet
        >>> chainlet.as_variable(np.zeros(2)).requires_grad
        False
    """
    if isinstance(obj, Variable):
        return obj
    return Variable(obj, requires_grad=False)


def as_array(obj: Any) -> Any:
    """Return the array of a Variable, or ``obj`` itself if it is already an array."""
    return obj._data if isinstance(obj, Variable) else obj


def variable_repr(var: Variable) -> str:
    """``repr(var)``: the array as ``numpy.array_repr`` lays it out, prefixed ``variable NAME(``.

    Example:
        >>> import numpy as np
        >>> variable_repr(Variable(np.array([0., 1.]), name='x'))
        'variable x([0., 1.])'
    """
    return _array_text(var, ', ')


def variable_str(var: Variable) -> str:
    """``str(var)``: the array as ``str`` shows it, prefixed ``variable NAME(``.

    Example:
        >>> import numpy as np
        >>> variable_str(Variable(np.array([0., 1.])))
        'variable([0. 1.])'
    """
    return _array_text(var, ' ')


def __getattr__(name: str) -> Any:
    # Chainer code imports Parameter from chainer.variable; it lives in chainlet.parameter,
    # which imports this module, so it is fetched on first use.
    if name == 'Parameter':
        from chainlet.parameter import Parameter
        return Parameter
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


# The backward scheduler imports this module; imported last, so each backward() call does not
# pay for an import statement.
from chainlet import _backprop  # noqa: E402
