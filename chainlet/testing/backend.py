"""``BackendConfig`` and ``inject_backend_tests``: run a test once per backend configuration.

``@inject_backend_tests(method_names, params)`` publishes, for every configuration dict in
``params``, a subclass of the test case named ``<Base>_<func_str>`` where ``func_str`` lists
every configuration key (``use_chainerx_false__chainerx_device_None__use_cuda_false__...``),
whose test methods (all ``test_*``, or those named in ``method_names``) receive the
:class:`BackendConfig` as their first argument. With a ``method_names`` list the other test
methods stay on a class with the base name. Configurations needing CUDA, cuDNN, iDeep or
ChainerX carry the pytest marks ``gpu``/``cudnn``/``ideep``/``chainerx``, so a CPU run
deselects them.

A ``BackendConfig`` is also a context manager: inside it ``chainlet.config`` holds its
``use_cudnn``, ``cudnn_deterministic``, ``autotune`` and ``use_ideep`` values and its
``device`` is the current device.

Example:
    >>> import numpy
    >>> from chainlet import testing
    >>> config = testing.BackendConfig({})
    >>> config.get_func_str()[:40]
    'use_chainerx_false__chainerx_device_None'
    >>> config.device
    <CpuDevice (numpy)>
    >>> type(config.get_array(numpy.zeros(2)))
    <class 'numpy.ndarray'>
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Optional, cast

import numpy

import chainlet
from chainlet import backend
from chainlet.testing import _bundle
from chainlet.testing import attr


class BackendConfig:
    """One backend configuration of a test: device, array module and cuDNN/iDeep settings.

    Args:
        params: Dict overriding the defaults of ``use_chainerx`` (False), ``chainerx_device``
            (None), ``use_cuda`` (False), ``cuda_device`` (None, 0 when ``use_cuda``),
            ``use_cudnn`` ('never'), ``cudnn_deterministic`` (False), ``autotune`` (False),
            ``cudnn_fast_batch_normalization`` (False) and ``use_ideep`` ('never').

    Raises:
        TypeError: ``params`` is not a dict.
        ValueError: An unknown key.
    """

    _props = [
        ('use_chainerx', False),
        ('chainerx_device', None),
        ('use_cuda', False),
        ('cuda_device', None),
        ('use_cudnn', 'never'),
        ('cudnn_deterministic', False),
        ('autotune', False),
        ('cudnn_fast_batch_normalization', False),
        ('use_ideep', 'never'),
    ]

    # The attributes named in ``_props``, set in ``__init__`` (with ``setattr``, from the
    # defaults above and ``params``); declared here for the type checker only.
    use_chainerx: bool
    chainerx_device: Optional[str]
    use_cuda: bool
    cuda_device: Optional[int]
    use_cudnn: str
    cudnn_deterministic: bool
    autotune: bool
    cudnn_fast_batch_normalization: bool
    use_ideep: str

    _device: Optional[backend.Device] = None

    def __init__(self, params: dict) -> None:
        if not isinstance(params, dict):
            raise TypeError('params must be a dict.')
        self._contexts: list = []
        for key, value in self._props:
            setattr(self, key, value)
        for key, value in params.items():
            if not hasattr(self, key):
                raise ValueError(f'Parameter {key} is not defined')
            setattr(self, key, value)
        if self.use_chainerx and not isinstance(self.chainerx_device, str):
            raise ValueError("'chainerx_device' parameter is expected to be a string "
                             'representing a ChainerX device specifier')
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0

    @property
    def xp(self) -> Any:
        """The array module of this configuration (NumPy, CuPy or ChainerX)."""
        if self.use_chainerx:
            import chainerx
            return chainerx
        if self.use_cuda:
            return backend.import_cupy()
        return numpy

    @property
    def device(self) -> Any:
        """The device of this configuration, created on first use."""
        if self._device is None:
            if self.use_cuda:
                device = chainlet.get_device(f'@cupy:{self.cuda_device}')
            elif self.use_chainerx:
                device = chainlet.get_device(self.chainerx_device)
            else:
                # iDeep is not part of chainlet: its configurations compute with NumPy.
                device = backend.CpuDevice()
            self._device = device
        return self._device

    def __enter__(self) -> 'BackendConfig':
        stack = contextlib.ExitStack()
        for key in ('use_cudnn', 'cudnn_deterministic', 'autotune', 'use_ideep'):
            stack.enter_context(chainlet.using_config(key, getattr(self, key)))
        stack.enter_context(chainlet.using_device(self.device))
        self._contexts.append(stack)
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        self._contexts.pop().__exit__(typ, value, traceback)

    def __repr__(self) -> str:
        items = ' '.join(f'{k}={getattr(self, k)!r}' for k, _ in self._props)
        return f'<BackendConfig {items}>'

    def get_func_str(self) -> str:
        """The configuration as a string usable in an identifier (test class names)."""
        def text(value: Any) -> str:
            if value is True:
                return 'true'
            if value is False:
                return 'false'
            return str(value)
        return '__'.join(f'{k}_{text(getattr(self, k))}' for k, _ in self._props)

    def get_pytest_marks(self) -> list:
        """The pytest marks a test under this configuration carries."""
        marks = []
        if self.use_chainerx:
            marks.append(attr.chainerx)
            # ``__init__`` rejected a ``chainerx_device`` that is not a string.
            chainerx_device = cast(str, self.chainerx_device)
            backend_name, index = chainerx_device.split(':')
            if backend_name == 'cuda':
                marks.append(attr.gpu)
                if int(index) >= 1:
                    marks.append(attr.multi_gpu(int(index) + 1))
        elif self.use_cuda:
            marks.append(attr.gpu)
            if self.use_cudnn != 'never':
                marks.append(attr.cudnn)
            # ``__init__`` replaced a ``cuda_device`` of ``None`` with 0.
            cuda_device = cast(int, self.cuda_device)
            if cuda_device >= 1:
                marks.append(attr.multi_gpu(cuda_device + 1))
        elif self.use_ideep != 'never':
            marks.append(attr.ideep)
        return marks

    def get_array(self, np_array: Any) -> Any:
        """Send an array (or a tuple/list of arrays) to this configuration's device."""
        return self.device.send(np_array)


def _test_case_generator(base: type, method_names: list | None, params: list) -> Any:
    if method_names is not None:
        # The methods not injected stay on a class that keeps the base name.
        yield (base.__name__, {},
               lambda method: None if method.__name__ in method_names else method)

    for param in params:
        config = BackendConfig(param)
        marks = config.get_pytest_marks()
        cls_name = f'{base.__name__}_{config.get_func_str()}'
        yield cls_name, {}, _method_generator(config, marks, method_names)


def _method_generator(config: BackendConfig, marks: list,
                      method_names: list | None) -> Callable[[Any], Any]:
    def generate(base_method: Callable) -> Any:
        if method_names is not None and base_method.__name__ not in method_names:
            return None

        @functools.wraps(base_method)
        def new_method(self: Any, *args: Any, **kwargs: Any) -> Any:
            return base_method(self, config, *args, **kwargs)

        for mark in marks:
            new_method = mark(new_method)
        return new_method

    return generate


def inject_backend_tests(method_names: list | None, params: list) -> Callable[[Any], Any]:
    """Class decorator: one generated test case per backend configuration.

    Args:
        method_names: Names of the test methods that take a ``backend_config`` argument, or
            ``None`` for all ``test_*`` methods.
        params: List of :class:`BackendConfig` parameter dicts.
    """
    if not (method_names is None or isinstance(method_names, list)):
        raise TypeError('method_names must be either None or a list.')
    if not isinstance(params, list):
        raise TypeError('params must be a list of dicts.')
    if not all(isinstance(d, dict) for d in params):
        raise TypeError('params must be a list of dicts.')
    return _bundle.make_decorator(
        lambda base: _test_case_generator(base, method_names, params))
