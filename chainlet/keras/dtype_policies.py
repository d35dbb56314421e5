"""``keras.dtype_policies`` and the ``keras.mixed_precision`` names that Keras 3 keeps: the
dtype policy objects of :mod:`chainlet.keras.config`, with their registry functions.

Mixed policies run in float32 here (see :mod:`chainlet.keras.config`); quantized policies
(int8, float8, GPTQ, AWQ) belong with Keras's quantization, which chainlet does not offer yet.

Example:
    >>> from chainlet import keras
    >>> keras.dtype_policies.get('float64').compute_dtype
    'float64'
    >>> keras.mixed_precision.global_policy().name
    'float32'
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.config import DTypePolicy, dtype_policy, set_dtype_policy

FloatDTypePolicy = DTypePolicy
Policy = DTypePolicy  # keras.mixed_precision's name
global_policy = dtype_policy
set_global_policy = set_dtype_policy


def get(identifier: Any) -> DTypePolicy:
    """A policy from a name, a config dict or a policy (``None``: the global one).

    Raises:
        ValueError: Not a policy.
    """
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    raise ValueError(f'keras.dtype_policies.get: argument identifier: expected a policy name, '
                     f'config or DTypePolicy, got {identifier!r}')


def serialize(dtype_policy: DTypePolicy) -> dict:
    """``{'module': 'keras', 'class_name': 'DTypePolicy', 'config': {'name': ...}}``."""
    return {'module': 'keras', 'class_name': 'DTypePolicy', 'config': dtype_policy.get_config(),
            'registered_name': None}


def deserialize(config: dict, custom_objects: Optional[dict] = None) -> DTypePolicy:
    """The policy of :func:`serialize`'s config."""
    if config.get('class_name') not in ('DTypePolicy', 'FloatDTypePolicy', 'Policy'):
        raise ValueError(f'keras.dtype_policies.deserialize: unsupported policy class '
                         f'{config.get("class_name")!r}')
    return DTypePolicy(**config.get('config', {}))


__all__ = ['DTypePolicy', 'FloatDTypePolicy', 'Policy', 'deserialize', 'get',
           'global_policy', 'serialize', 'set_global_policy']
