"""Function hooks: callbacks around the forward and backward of every function node.

A hook is active for all functions applied in a ``with hook:`` block (in this thread only), or
for one node after ``node.add_hook(hook)``. When no hook is registered, ``FunctionNode.apply``
skips all of this with one integer test.

Example:
    >>> import numpy as np, chainlet, chainlet.functions as F
    >>> from chainlet.function_hooks import FunctionHook
    >>> class Count(FunctionHook):
    ...     name = 'Count'
    ...     def __init__(self):
    ...         self.n = 0
    ...     def forward_postprocess(self, function, in_data):
    ...         self.n += 1
    >>> with Count() as hook:
    ...     y = F.tanh(F.exp(np.zeros(2)))
    >>> hook.n
    2
"""
from chainlet.function_hooks.function_hook import FunctionHook  # noqa: F401
from chainlet.function_hooks.cuda_profile import CUDAProfileHook  # noqa: F401,E402
from chainlet.function_hooks.cupy_memory_profile import CupyMemoryProfileHook  # noqa: F401,E402
from chainlet.function_hooks.print_hook import PrintHook  # noqa: F401,E402
from chainlet.function_hooks.timer import TimerHook  # noqa: F401,E402
