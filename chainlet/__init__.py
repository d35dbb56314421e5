"""chainlet: a define-by-run autograd engine on NumPy and CuPy, with a Keras-like facade.

Example:
    >>> import numpy as np, chainlet
    >>> import chainlet.functions as F
    >>> x = chainlet.Variable(np.array([0.5, -1.0], np.float32))
    >>> y = F.sum(F.tanh(x) * x)
    >>> y.backward()
    >>> x.grad.shape
    (2,)
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

from chainlet import _config
from chainlet import backend  # noqa: F401
from chainlet.backend import get_device, using_device  # noqa: F401
from chainlet._backprop import backward, grad  # noqa: F401
from chainlet._config import config, global_config  # noqa: F401
from chainlet._config import force_backprop_mode, no_backprop_mode, using_config  # noqa: F401
from chainlet._config import get_dtype, mixed16  # noqa: F401
from chainlet.backend import get_array_types, get_cpu_array_types  # noqa: F401
from chainlet.backend import is_arrays_compatible  # noqa: F401
from chainlet.function import Function, FunctionAdapter  # noqa: F401
from chainlet.function_node import FunctionNode, get_function_hooks  # noqa: F401
from chainlet.link import Chain, ChainList, Link, Sequential  # noqa: F401
from chainlet.link_hook import LinkHook  # noqa: F401
from chainlet.parameter import Parameter  # noqa: F401
from chainlet.variable import Variable, VariableNode, as_array, as_variable  # noqa: F401
from chainlet import functions  # noqa: F401,E402
from chainlet.functions import _variable_methods
from chainlet.functions.math import basic_math  # noqa: F401  (Chainer's alias chainer.basic_math)

_variable_methods.install()

__version__ = '0.1.0'

# The Chainer release whose API chainlet implements (``chainer.__version__`` under compat/chainer).
_CHAINER_API_VERSION = '7.8.1'

# Silences the FutureWarning of chainlet.utils.experimental (Chainer's flag and variable name).
disable_experimental_feature_warning = any(
    os.environ.get(f'{lib}_DISABLE_EXPERIMENTAL_FEATURE_WARNING', '0') not in ('', '0')
    for lib in ('CHAINLET', 'CHAINER'))

# Subpackages loaded on first use, so that ``import chainlet`` stays fast.
_LAZY = {
    'gradient_check': 'chainlet.gradient_check',
    'testing': 'chainlet.testing',
    'type_check': 'chainlet.type_check',
    'function_hooks': 'chainlet.function_hooks',
    'link_hooks': 'chainlet.link_hooks',
    'initializers': 'chainlet.initializers',
    'links': 'chainlet.links',
    'optimizers': 'chainlet.optimizers',
    'optimizer_hooks': 'chainlet.optimizer_hooks',
    'serializers': 'chainlet.serializers',
    'datasets': 'chainlet.datasets',
    'iterators': 'chainlet.iterators',
    'dataset': 'chainlet.dataset',
    'reporter': 'chainlet.reporter',
    'computational_graph': 'chainlet.computational_graph',
    'training': 'chainlet.training',
    'keras': 'chainlet.keras',
    'distributed': 'chainlet.distributed',
    'backends': 'chainlet.backends',
    'cuda': 'chainlet.cuda',
    'configuration': 'chainlet.configuration',
    'distributions': 'chainlet.distributions',
    'distribution': 'chainlet.distribution',
    'graph_optimizations': 'chainlet.graph_optimizations',
    'types': 'chainlet.types',
    'memory_layouts': 'chainlet.memory_layouts',
    # Optional-dependency packages: ``chainlet.onnx.export`` works after ``import chainlet``
    # (as ``torch.onnx`` does) and imports onnx only when it is called.
    'onnx': 'chainlet.onnx',
    'exporters': 'chainlet.exporters',
}


# Names Chainer exposes at the top level, also loaded on first use.
_LAZY_ATTRS = {
    'should_use_cudnn': 'chainlet.backends.cuda',
    'should_use_cudnn_tensor_core': 'chainlet.backends.cuda',
    'DebugMode': 'chainlet._config',
    'Reporter': 'chainlet.reporter', 'report': 'chainlet.reporter',
    'report_scope': 'chainlet.reporter', 'get_current_reporter': 'chainlet.reporter',
    'Summary': 'chainlet.reporter', 'DictSummary': 'chainlet.reporter',
    'Optimizer': 'chainlet.optimizer', 'GradientMethod': 'chainlet.optimizer',
    'UpdateRule': 'chainlet.optimizer', 'Serializer': 'chainlet.serializers',
    'Deserializer': 'chainlet.serializers', 'FunctionHook': 'chainlet.function_hooks',
    'Initializer': 'chainlet.initializers',
    'AbstractSerializer': 'chainlet.serializers._base',
    'DeviceResident': 'chainlet.device_resident',
    'print_runtime_info': 'chainlet._runtime_info',
    'Distribution': 'chainlet.distribution', 'kl_divergence': 'chainlet.distribution',
    'register_kl': 'chainlet.distribution', 'cross_entropy': 'chainlet.distribution',
    'static_graph': 'chainlet.graph_optimizations.static_graph',
    'static_code': 'chainlet.graph_optimizations.static_graph_utilities',
    '_get_link_hooks': 'chainlet.link_hook',
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        return importlib.import_module(module)
    module = _LAZY_ATTRS.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    # Any other public submodule (chainlet.optimizer, chainlet.initializer, ...) loads on first
    # use too, so that ``chainlet.X`` never depends on whether something imported X before.
    if not name.startswith('_') and importlib.util.find_spec(f'chainlet.{name}') is not None:
        return importlib.import_module(f'chainlet.{name}')
    raise AttributeError(f'module chainlet has no attribute {name!r}')


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_ATTRS))


class _FallbackType:
    """Type of :data:`Fallback` (one instance; its repr is its name)."""

    def __repr__(self) -> str:
        return 'Fallback'


#: What a ``FunctionNode.forward_chainerx`` returns to say "run the NumPy/CuPy forward instead"
#: (Chainer's sentinel; chainlet has no ChainerX path, so only user code ever returns it).
Fallback = _FallbackType()


def get_compute_mode() -> Any:
    """``chainlet.config.compute_mode`` (Chainer's accessor; ``None`` unless set)."""
    return _config.config.compute_mode


def is_debug() -> bool:
    """True when debug mode (NaN/Inf checks, creation stacks) is on in this thread."""
    return bool(_config.config.debug)


def set_debug(debug: bool) -> None:
    """Turn debug mode on or off globally."""
    _config.global_config.debug = debug
