"""The emulated ``cupy.fft``: NumPy's transforms with CuPy's argument checks and result dtypes.

CuPy runs cuFFT, which has single- and double-precision plans only, so its result dtypes differ
from NumPy 1.x's (always complex128/float64): float16, float32 and complex64 inputs give
complex64 (and float32 from the inverse real transforms), everything else double precision.
The emulator computes in NumPy and casts to CuPy's dtype, so code that relies on NumPy's
promotion shows the difference. The transforms take ``cupy.ndarray`` only (a host array raises
``TypeError`` as in CuPy); ``fftshift``/``ifftshift`` convert their input with ``cupy.asarray``
as CuPy's do, and ``fftfreq``/``rfftfreq`` allocate on the current device.
"""
from __future__ import annotations

import types

import numpy

_NORMS = (None, 'backward', 'ortho', 'forward')
# name: (value type as cuFFT names it, the signature's argument names with defaults)
_TRANSFORMS = {
    'fft': ('C2C', 'n'), 'ifft': ('C2C', 'n'), 'rfft': ('R2C', 'n'), 'irfft': ('C2R', 'n'),
    'hfft': ('C2R', 'n'), 'ihfft': ('R2C', 'n'),
    'fft2': ('C2C', 's2'), 'ifft2': ('C2C', 's2'), 'rfft2': ('R2C', 's2'),
    'irfft2': ('C2R', 's2'),
    'fftn': ('C2C', 'sn'), 'ifftn': ('C2C', 'sn'), 'rfftn': ('R2C', 'sn'),
    'irfftn': ('C2R', 'sn'),
}
_SIGNATURES = {
    'n': (('n', None), ('axis', -1), ('norm', None)),
    's2': (('s', None), ('axes', (-2, -1)), ('norm', None)),
    'sn': (('s', None), ('axes', None), ('norm', None)),
}


def _input_dtype(dtype: numpy.dtype, value_type: str) -> numpy.dtype:
    """The dtype CuPy converts the input to before running the cuFFT plan."""
    if value_type == 'R2C':
        if dtype.kind == 'c':
            return numpy.dtype(dtype.char.lower())
        return numpy.dtype(numpy.float32 if dtype in (numpy.float16, numpy.float32)
                           else numpy.float64)
    if dtype in (numpy.float16, numpy.float32, numpy.complex64):
        return numpy.dtype(numpy.complex64)
    return numpy.dtype(numpy.complex128)


def _output_dtype(dtype: numpy.dtype, value_type: str) -> numpy.dtype:
    single = _input_dtype(dtype, value_type) in (numpy.float32, numpy.complex64)
    if value_type == 'C2R':
        return numpy.dtype(numpy.float32 if single else numpy.float64)
    return numpy.dtype(numpy.complex64 if single else numpy.complex128)


def _transform(name: str):
    from . import _api
    value_type, kind = _TRANSFORMS[name]
    params = _SIGNATURES[kind]
    qualname = f'cupy.fft.{name}'
    np_func = getattr(numpy.fft, name)

    def transform(a, *args, **kwargs):
        if len(args) > len(params):
            raise TypeError(f'{qualname}() takes {len(params) + 1} positional arguments in '
                            f'CuPy 14.2 but {len(args) + 1} were given')
        bound = {k: v for (k, _), v in zip(params, args)}
        for key, value in kwargs.items():
            if key not in dict(params):
                raise TypeError(f'{qualname}() got an unexpected keyword argument {key!r} '
                                '(not in CuPy 14.2)')
            if key in bound:
                raise TypeError(f'{qualname}() got multiple values for argument {key!r}')
            bound[key] = value
        if type(a) is not _api.ndarray:
            raise TypeError(f'The input array a must be a cupy.ndarray (in {qualname}, got '
                            f'{type(a).__name__})')
        if bound.get('norm') not in _NORMS:
            raise ValueError(f'Invalid norm value {bound["norm"]!r}; should be "backward", '
                             '"ortho" or "forward".')
        device = _api.launch_device((a,), qualname)
        x = a._a.astype(_input_dtype(a.dtype, value_type), copy=False)
        out = numpy.asarray(np_func(x, **_api._unwrap(bound, where=qualname)))
        return _api._make(out.astype(_output_dtype(a.dtype, value_type), copy=False), device)
    transform.__name__ = transform.__qualname__ = name
    transform.__module__ = 'cupy.fft'
    return transform


def _shift(name: str):
    from . import _api
    np_func = getattr(numpy.fft, name)

    def shift(x, axes=None):
        x = _api.asarray(x)  # CuPy's shifts start with cupy.asarray
        device = _api.launch_device((x,), f'cupy.fft.{name}')
        return _api._make(np_func(x._a, axes=axes), device)
    shift.__name__ = shift.__qualname__ = name
    shift.__module__ = 'cupy.fft'
    return shift


def _freq(name: str):
    from . import _api
    np_func = getattr(numpy.fft, name)

    def freq(n, d=1.0):
        return _api._make(numpy.asarray(np_func(n, d), numpy.float64), _api.current_device_id())
    freq.__name__ = freq.__qualname__ = name
    freq.__module__ = 'cupy.fft'
    return freq


class _FFTModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        if name == 'config':  # cuFFT plan settings: nothing to emulate
            raise AttributeError("'cupy.fft.config' is not emulated")
        raise AttributeError(f"module 'cupy.fft' has no attribute '{name}' (not in CuPy 14.2)")


def fft_module() -> types.ModuleType:
    """``cupy.fft`` with every transform, shift and frequency helper of CuPy 14.2."""
    mod = _FFTModule('cupy.fft')
    for name in _TRANSFORMS:
        setattr(mod, name, _transform(name))
    for name in ('fftshift', 'ifftshift'):
        setattr(mod, name, _shift(name))
    for name in ('fftfreq', 'rfftfreq'):
        setattr(mod, name, _freq(name))
    return mod
