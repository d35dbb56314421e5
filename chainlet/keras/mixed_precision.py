"""``keras.mixed_precision``: Keras 3's compatibility names for dtype policies (see
:mod:`chainlet.keras.dtype_policies`; mixed policies run in float32 here)."""
from chainlet.keras.config import DTypePolicy, dtype_policy, set_dtype_policy  # noqa: F401

Policy = DTypePolicy
global_policy = dtype_policy
set_global_policy = set_dtype_policy

__all__ = ['DTypePolicy', 'Policy', 'dtype_policy', 'global_policy', 'set_dtype_policy',
           'set_global_policy']
