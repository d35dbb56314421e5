"""``InputLayer`` and ``Input``: where a functional graph starts."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import Variable, backend
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.engine.node import Node


class InputLayer(Layer):
    """The layer behind :func:`Input`; it owns the symbolic input tensor of a model.

    Args:
        shape: Shape without the batch dimension (``None`` entries for variable sizes).
        batch_size: Fixed batch size, or ``None``.
        dtype: Dtype of the input.
        sparse, ragged: Keras's sparse and ragged inputs; only ``None``/``False`` (dense).
        batch_shape: Full shape including the batch dimension (instead of ``shape``).
        input_tensor: Accepted for Keras's signature.
        optional: Whether the model may be called with ``None`` for this input (the layers
            downstream must then handle ``None``), as Keras 3.
        name: Layer name (automatic ``input_layer``, ``input_layer_1``... by default).
    """

    def __init__(self, shape: Optional[Sequence[Optional[int]]] = None,
                 batch_size: Optional[int] = None, dtype: Any = None, sparse: Any = None,
                 ragged: Any = None, batch_shape: Optional[Sequence[Optional[int]]] = None,
                 input_tensor: Any = None, optional: bool = False, name: Optional[str] = None,
                 **kwargs: Any) -> None:
        # Keras 2 spellings of the same arguments
        alias_shape = kwargs.pop('input_shape', None)
        alias_batch_shape = kwargs.pop('batch_input_shape', None)
        shape = alias_shape if shape is None else shape
        batch_shape = alias_batch_shape if batch_shape is None else batch_shape
        super().__init__(name=name, dtype=dtype, **kwargs)
        for kind, given in (('sparse', sparse), ('ragged', ragged)):
            if given:
                raise ValueError(f'InputLayer "{self.name}": argument {kind}: {kind} inputs '
                                 f'are not supported (dense arrays only)')
        self.optional = bool(optional)
        if batch_shape is None:
            if shape is None:
                raise ValueError(f'InputLayer "{self.name}": give shape=... (without the batch '
                                 f'dimension) or batch_shape=...')
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            batch_shape = (batch_size,) + shape
        self._batch_shape = tuple(batch_shape)
        self.built = True
        tensor = KerasTensor(self._batch_shape, self._dtype, name=self.name)
        Node(self, call_args=(), call_kwargs={}, outputs=tensor)
        self._input_tensor = tensor

    @property
    def batch_shape(self) -> tuple:
        """Shape including the (possibly ``None``) batch dimension."""
        return self._batch_shape

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    def _cast_input(self, x: Any) -> Any:
        # As Keras's functional models: numeric inputs are converted to the Input's dtype
        # (uint8 images to float32, int64 or float token ids to an int32 Input); floats to a
        # float Input are cast by Layer._cast_input, with their gradient.
        if isinstance(x, Variable) or backend.is_array(x):
            want = numpy.dtype(self._dtype)
            if x.dtype != want and x.dtype.kind in 'biuf' and want.kind in 'biuf' and \
                    not (x.dtype.kind == 'f' and want.kind == 'f'):
                # an integer target or source carries no gradient, so the array is converted
                array = x.array if isinstance(x, Variable) else x
                x = array.astype(want)
        return super()._cast_input(x)

    def get_config(self) -> dict:
        config: dict[str, Any] = {'batch_shape': self._batch_shape, 'dtype': self._dtype,
                                  'name': self.name}
        if self.optional:
            config['optional'] = True
        return config


def Input(shape: Optional[Sequence[Optional[int]]] = None, batch_size: Optional[int] = None,
          dtype: Any = None, sparse: Any = None, ragged: Any = None,
          batch_shape: Optional[Sequence[Optional[int]]] = None, name: Optional[str] = None,
          tensor: Any = None, optional: bool = False, **kwargs: Any) -> KerasTensor:
    """Create a symbolic input of a functional model.

    Args:
        shape: Shape of one sample (without the batch dimension), e.g. ``(3,)``.
        batch_size: Optional fixed batch size.
        dtype: Dtype name (``'float32'`` by default).
        name: Optional name (also the key for dict inputs to ``fit``/``predict``).
        batch_shape: Full shape with the batch dimension, instead of ``shape``.
        sparse, ragged: Only ``None``/``False`` (dense inputs).
        tensor: Accepted for Keras's signature.
        optional: Whether the model may be called with ``None`` for this input.

    Returns:
        A :class:`~chainlet.keras.engine.keras_tensor.KerasTensor` whose ``_keras_history``
        points at a new :class:`InputLayer`.

    Example:
        >>> from chainlet import keras
        >>> x = keras.Input(shape=(3,), name='features')
        >>> x.shape, x.dtype
        ((None, 3), 'float32')
        >>> type(x._keras_history.layer).__name__
        'InputLayer'
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, sparse=sparse,
                       ragged=ragged, batch_shape=batch_shape, input_tensor=tensor,
                       optional=optional, name=name, **kwargs)
    return layer._input_tensor
