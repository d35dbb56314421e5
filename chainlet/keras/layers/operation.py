"""``Operation``: the layer recorded when arithmetic or slicing is applied to KerasTensors."""
from __future__ import annotations

from typing import Any, Callable

import chainlet.functions as F
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.keras_tensor import KerasTensor

_OPS: dict[str, Callable[..., Any]] = {
    'add': lambda a, b: a + b, 'sub': lambda a, b: a - b, 'mul': lambda a, b: a * b,
    'div': lambda a, b: a / b, 'pow': lambda a, b: a ** b, 'matmul': lambda a, b: a @ b,
    'neg': lambda a: -a, 'abs': lambda a: F.absolute(a), 'getitem': lambda a, index: a[index],
}


class Operation(Layer):
    """Applies one operator (``add``, ``mul``, ``getitem``, ...) to its symbolic inputs.

    Non-tensor operands (scalars, arrays, indices) are stored in the layer and its config.

    Args:
        op: Operator name.
        operands: Template of the operands: ``None`` marks a tensor position, anything else is a
            constant.
    """

    def __init__(self, op: str, operands: list, **kwargs: Any) -> None:
        if op not in _OPS:
            raise ValueError(f'Operation: unknown op {op!r}; known: {sorted(_OPS)}')
        kwargs.setdefault('name', None)
        super().__init__(**kwargs)
        self.op = op
        self.operands = list(operands)

    def call(self, inputs: Any) -> Any:
        tensors = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        it = iter(tensors)
        args = [next(it) if o is None else o for o in self.operands]
        return _OPS[self.op](*args)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(op=self.op, operands=_plain(self.operands))
        return config

    @classmethod
    def from_config(cls, config: dict) -> 'Operation':
        config = dict(config)
        config['operands'] = _restore(config['operands'])
        return cls(**config)


def _plain(value: Any) -> Any:
    if isinstance(value, slice):
        return {'__slice__': [value.start, value.stop, value.step]}
    if isinstance(value, tuple):  # an index tuple stays a tuple after the round trip
        return {'__tuple__': [_plain(v) for v in value]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, 'tolist'):
        return value.tolist()
    return value


def _restore(value: Any) -> Any:
    if isinstance(value, dict) and '__slice__' in value:
        return slice(*value['__slice__'])
    if isinstance(value, dict) and '__tuple__' in value:
        return tuple(_restore(v) for v in value['__tuple__'])
    if isinstance(value, list):
        return [_restore(v) for v in value]
    return value


def apply_op(op: str, *operands: Any) -> KerasTensor:
    """Record ``op`` on the KerasTensors among ``operands`` (called by KerasTensor operators)."""
    tensors = [o for o in operands if isinstance(o, KerasTensor)]
    template = [None if isinstance(o, KerasTensor) else o for o in operands]
    layer = Operation(op, template)
    return layer(tensors if len(tensors) > 1 else tensors[0])
