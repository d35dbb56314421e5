"""``chainermn.testing.device``: the device of a test, by GPU id and array library."""
from typing import Any, Optional

import chainlet


def get_device(device_id: Optional[int] = None, use_chainerx: bool = False) -> Any:
    """``@numpy`` (no ``device_id``) or ``@cupy:<id>``; with ``use_chainerx``, ChainerX's
    ``native:0`` or ``cuda:<id>`` (which need ChainerX, not available here)."""
    if device_id is not None:
        name = f'cuda:{device_id}' if use_chainerx else f'@cupy:{device_id}'
    else:
        name = 'native:0' if use_chainerx else '@numpy'
    return chainlet.get_device(name)
