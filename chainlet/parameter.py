"""``Parameter``: a Variable that knows how to initialize itself, possibly later.

Example:
    >>> import numpy as np, chainlet
    >>> from chainlet import initializers
    >>> p = chainlet.Parameter(initializers.Constant(1.0), (2,))
    >>> p.array
    array([1., 1.], dtype=float32)
    >>> q = chainlet.Parameter(initializers.Zero())   # shape unknown yet
    >>> q.is_initialized
    False
    >>> q.initialize((3,))
    >>> q.shape
    (3,)
"""
from __future__ import annotations

import numbers
import warnings
import weakref
from typing import Any, Optional, Sequence, Union, cast

import numpy

from chainlet import backend
from chainlet.variable import Variable, _check_layout


class Parameter(Variable):
    """A trainable array owned by a :class:`~chainlet.Link`.

    Args:
        initializer: An initializer, a scalar, an ndarray (used as the data) or ``None`` (NaN).
        shape: Shape to initialize now; ``None`` defers initialization (lazy parameters, e.g. a
            ``Linear`` whose input size is inferred from the first batch).
        name: Optional name.
        layout: Chainer 7.8's memory layout; only ``None`` (the standard one) is supported.

    Attributes:
        initializer: How the data is (re)generated.
        update_rule: Set by an optimizer's ``setup``; ``update()`` applies it.
    """

    # ``_loss_scale`` (unset by default) is Chainer's record of the loss scale that the
    # gradient carries; update rules divide by it (``getattr(param, '_loss_scale', None)``).
    # ``_shared``: the parameters that share this one's array slot (``Link.copy('share')``), or
    # None.
    __slots__ = ('initializer', 'update_rule', '_gpu_id', '_grad_initializer', '_grad_valid',
                 '_loss_scale', '_shared')

    def __init__(self, initializer: Any = None, shape: Union[int, Sequence[int], None] = None,
                 name: Optional[str] = None, layout: Any = None) -> None:
        from chainlet import initializers
        if layout is not None:
            _check_layout(layout, 'Parameter')
        self._shared: Optional[_SharedSlot] = None
        self.update_rule: Any = None
        self._gpu_id = -1
        self._grad_initializer: Any = None  # an initializer, or None
        self._grad_valid = True
        if backend.is_array(initializer):
            super().__init__(initializer, name=name)
            # The array itself, not a copy, as in Chainer (its ``initializer`` is the array):
            # a copy doubled the memory of every model built from arrays (all Keras weights).
            self.initializer = initializers.Constant(initializer, initializer.dtype) \
                if isinstance(initializer, numpy.ndarray) else initializers.NaN(initializer.dtype)
            return
        self.initializer = initializers.get_initializer(initializer)
        super().__init__(None, name=name)
        # As in Chainer, the gradient of a parameter created without data is NaN-filled when
        # the data is created (so a missing cleargrads() shows), and reading it before
        # cleargrad()/zerograd() or initialization is an error.
        self._grad_initializer = initializers.NaN(getattr(self.initializer, 'dtype', None))
        if shape is not None:
            self.initialize(shape)
            # Only a parameter born uninitialized regenerates its gradient when (re)initialized.
            self._grad_initializer = None
        else:
            self._grad_valid = False

    @property
    def grad(self) -> Any:
        """The gradient array, or ``None``.

        Raises:
            RuntimeError: The parameter is uninitialized and neither :meth:`cleargrad` nor
                :meth:`zerograd` was called (Chainer's rule).
        """
        if not self._grad_valid:
            raise RuntimeError('Cannot retrieve Variable.grad. Either it must be set manually '
                               'or Variable.cleargrad() must be called beforehand.')
        g = self._own_grad  # a parameter's node always tracks it (see Variable._grad_var)
        return None if g is None else g._data

    @grad.setter
    def grad(self, g: Any) -> None:
        Variable.grad.fset(self, g)  # type: ignore[attr-defined]  # mypy sees no fset
        self._grad_valid = True

    # -- the array, which copies made by Link.copy('share') see too --

    @property
    def array(self) -> Any:
        """The underlying ndarray (``None`` while uninitialized)."""
        return self._data

    @array.setter
    def array(self, data: Any) -> None:
        Variable.array.fset(self, data)  # type: ignore[attr-defined]
        if self._shared is not None:
            self._shared.assign(self, data)

    data = array

    def _move(self, convert: Any) -> None:
        super()._move(convert)
        if self._shared is not None:
            self._shared.assign(self, self._data)

    def _share_slot_with(self, other: 'Parameter') -> None:
        """Make ``other`` see every later assignment of this parameter's array, and the other
        way round (Chainer's copies share the one-element list holding the array)."""
        if self._shared is None:
            self._shared = _SharedSlot(self)
        self._shared.add(other)
        other._shared = self._shared

    @property
    def is_initialized(self) -> bool:
        """Whether the data exists."""
        return self._data is not None

    @property
    def dtype(self) -> numpy.dtype:
        """The dtype of the data; before initialization, the initializer's (``config.dtype``
        if it says ``None``).

        Raises:
            RuntimeError: The parameter is uninitialized and its initializer has no ``dtype``
                attribute (a plain callable), as in Chainer.
        """
        if self._data is not None:
            return self._data.dtype
        if not hasattr(self.initializer, 'dtype'):
            raise RuntimeError("Dtype of the parameter is not determined yet because it's "
                               'uninitialized and dtype was not explicitly given.')
        from chainlet import _config
        return _config.get_dtype(self.initializer.dtype)

    def initialize(self, shape: Union[int, Sequence[int]]) -> None:
        """Create the data with the initializer (on the device the parameter was sent to).

        ``shape`` is a tuple of ints or, as in Chainer, a single int for a 1-d parameter. The
        dtype is the initializer's, else ``config.dtype``. The gradient is created as well:
        NaN-filled, zeros after :meth:`zerograd`, or ``None`` after :meth:`cleargrad`.
        """
        from chainlet import initializers
        shape = (int(shape),) if isinstance(shape, numbers.Integral) else \
            tuple(cast(Sequence[int], shape))
        data = initializers.generate_array(self.initializer, shape, numpy)
        grad = None
        if self._grad_initializer is not None:
            grad = initializers.generate_array(self._grad_initializer, shape, numpy, data.dtype)
        if self._gpu_id >= 0:
            data = backend.to_gpu(data, self._gpu_id)
            grad = None if grad is None else backend.to_gpu(grad, self._gpu_id)
        self.array = data
        self._grad_var = None if grad is None else Variable(grad)
        self._grad_valid = True

    def update(self) -> None:
        """Apply this parameter's update rule (set by an optimizer), if any."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    def cleargrad(self) -> None:
        """Forget the gradient; an uninitialized parameter will get none when initialized."""
        self._grad_var = None
        self._grad_valid = True
        if self._data is None:
            self._grad_initializer = None

    def zerograd(self) -> None:
        """Zero the gradient (deprecated, as in Chainer); an uninitialized parameter gets a
        zero gradient when initialized."""
        from chainlet import initializers
        warnings.warn('Variable.zerograd is deprecated. Use Variable.cleargrad instead.',
                      DeprecationWarning, stacklevel=2)
        self._grad_valid = True
        if self._data is None:
            self._grad_initializer = initializers.Zero(getattr(self.initializer, 'dtype', None))
        else:
            self._zerograd()

    def addgrad(self, var: Variable) -> None:
        """Add ``var``'s gradient to this one's, initializing this parameter with ``var``'s
        shape first if it has no data yet (as in Chainer)."""
        if self._data is None and var.grad is not None:
            self.initialize(var.shape)
        super().addgrad(var)

    def to_cpu(self) -> 'Parameter':
        self._gpu_id = -1
        super().to_cpu()
        return self

    def to_gpu(self, device: Optional[int] = None) -> 'Parameter':
        if self._data is None:
            backend.import_cupy()
            self._gpu_id = 0 if device is None else device
            return self
        super().to_gpu(device)
        self._gpu_id = self._data.device.id
        return self

    def __copy__(self) -> 'Parameter':
        # As Chainer's: a new Parameter (its own node and gradient) sharing this one's array slot.
        func, args = self.__reduce__()
        new = func(*args)
        self._share_slot_with(new)
        return new

    def __deepcopy__(self, memo: dict) -> 'Parameter':
        import copy
        new = Parameter.__new__(Parameter)
        memo[id(self)] = new
        Variable.__init__(new, copy.deepcopy(self._data, memo), name=self.name)
        new._shared = None  # a deep copy owns its array
        new.initializer = self.initializer
        new.update_rule = None
        new._gpu_id = self._gpu_id
        new._grad_initializer = _copied_grad_initializer(self)
        new._grad_valid = self._grad_valid
        if self._grad_var is not None:
            new._grad_var = Variable(copy.deepcopy(self._grad_var._data, memo),
                                     requires_grad=False)
        return new

    def __reduce__(self):
        g = self._grad_var
        return (_rebuild_parameter, (self._data, self.name, self.initializer,
                                     None if g is None else g._data, self._grad_valid))

    def __repr__(self) -> str:
        if self._data is None:
            return f'parameter(uninitialized, name={self.name!r})'
        return 'parameter' + super().__repr__()[len('variable'):]


class _SharedSlot:
    """The parameters that share one array slot: assigning the array of one (``p.array = a``,
    initialization, a device move) assigns it in all (held weakly, so a dropped copy goes)."""

    __slots__ = ('members',)

    def __init__(self, first: Parameter) -> None:
        self.members: weakref.WeakSet = weakref.WeakSet([first])

    def add(self, param: Parameter) -> None:
        self.members.add(param)

    def assign(self, source: Parameter, data: Any) -> None:
        for p in list(self.members):
            if p is not source and p._data is not data:
                Variable.array.fset(p, data)  # type: ignore[attr-defined]
                if data is not None:
                    p._gpu_id = source._gpu_id


def _rebuild_parameter(data: Any, name: Optional[str], initializer: Any, grad: Any,
                       grad_valid: bool = True) -> Parameter:
    p = Parameter(data if data is not None else initializer, name=name)
    p.initializer = initializer
    p._grad_initializer = _copied_grad_initializer(p)
    if grad is not None:
        p.grad = grad
    p._grad_valid = grad_valid
    return p


def _copied_grad_initializer(param: Parameter) -> Any:
    # Chainer rebuilds a copied or unpickled parameter as a fresh uninitialized one, so a later
    # initialize() gives it a NaN gradient whatever the original's state (Link.copy('init')
    # relies on this).
    from chainlet import initializers
    return initializers.NaN(getattr(param.initializer, 'dtype', None))
