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
from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet.variable import Variable


class Parameter(Variable):
    """A trainable array owned by a :class:`~chainlet.Link`.

    Args:
        initializer: An initializer, a scalar, an ndarray (used as the data) or ``None`` (NaN).
        shape: Shape to initialize now; ``None`` defers initialization (lazy parameters, e.g. a
            ``Linear`` whose input size is inferred from the first batch).
        name: Optional name.

    Attributes:
        initializer: How the data is (re)generated.
        update_rule: Set by an optimizer's ``setup``; ``update()`` applies it.
    """

    __slots__ = ('initializer', 'update_rule', '_gpu_id')

    def __init__(self, initializer: Any = None, shape: Union[int, Sequence[int], None] = None,
                 name: Optional[str] = None) -> None:
        from chainlet import initializers
        self.update_rule = None
        self._gpu_id = -1
        if backend.is_array(initializer):
            super().__init__(initializer, name=name)
            self.initializer = initializers.Constant(initializer.copy(), initializer.dtype) \
                if isinstance(initializer, numpy.ndarray) else initializers.NaN(initializer.dtype)
            return
        self.initializer = initializers.get_initializer(initializer)
        super().__init__(None, name=name)
        if shape is not None:
            self.initialize(shape)

    @property
    def is_initialized(self) -> bool:
        """Whether the data exists."""
        return self._data is not None

    @property
    def dtype(self) -> numpy.dtype:
        if self._data is not None:
            return self._data.dtype
        return numpy.dtype(getattr(self.initializer, 'dtype', None) or numpy.float32)

    def initialize(self, shape: Union[int, Sequence[int]]) -> None:
        """Create the data with the initializer (on the device the parameter was sent to).

        ``shape`` is a tuple of ints or, as in Chainer, a single int for a 1-d parameter.
        """
        from chainlet import initializers
        shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(shape)
        data = initializers.generate_array(self.initializer, shape, numpy, self.dtype)
        if self._gpu_id >= 0:
            data = backend.to_gpu(data, self._gpu_id)
        self.array = data
        self._grad_var = None

    def update(self) -> None:
        """Apply this parameter's update rule (set by an optimizer), if any."""
        if self.update_rule is not None:
            self.update_rule.update(self)

    def cleargrad(self) -> None:
        self._grad_var = None

    def zerograd(self) -> None:
        if self._data is not None:
            super().zerograd()

    def to_cpu(self) -> 'Parameter':
        self._gpu_id = -1
        return super().to_cpu()

    def to_gpu(self, device: Optional[int] = None) -> 'Parameter':
        if self._data is None:
            backend.import_cupy()
            self._gpu_id = 0 if device is None else device
            return self
        super().to_gpu(device)
        self._gpu_id = self._data.device.id
        return self

    def __deepcopy__(self, memo: dict) -> 'Parameter':
        import copy
        new = Parameter.__new__(Parameter)
        memo[id(self)] = new
        Variable.__init__(new, copy.deepcopy(self._data, memo), name=self.name)
        new.initializer = self.initializer
        new.update_rule = None
        new._gpu_id = self._gpu_id
        if self._grad_var is not None:
            new._grad_var = Variable(copy.deepcopy(self._grad_var._data, memo),
                                     requires_grad=False)
        return new

    def __reduce__(self):
        return (_rebuild_parameter, (self._data, self.name, self.initializer, self.grad))

    def __repr__(self) -> str:
        if self._data is None:
            return f'parameter(uninitialized, name={self.name!r})'
        return 'parameter' + super().__repr__()[len('variable'):]


def _rebuild_parameter(data: Any, name: Optional[str], initializer: Any, grad: Any) -> Parameter:
    p = Parameter(data if data is not None else initializer, name=name)
    p.initializer = initializer
    if grad is not None:
        p.grad = grad
    return p
