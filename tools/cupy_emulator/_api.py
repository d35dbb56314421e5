"""The emulated ``cupy`` module: a NumPy-backed ``ndarray`` that behaves as CuPy's where
chainlet's code could go wrong on a real GPU.

What is checked as CuPy would:
- implicit conversion to NumPy (``numpy.asarray(x)``, ``float`` of a non-scalar ...) raises
  ``TypeError``; host arrays mixed into device operations raise ``TypeError``;
- only names that CuPy 14.2 has exist (``cupy_api.json`` was dumped from it), and keyword
  arguments are checked against CuPy's signatures where Python exposes them;
- reductions return 0-d device arrays, not NumPy scalars; there is no ``__index__``;
- ``cupy.random`` draws only float32/float64 and has its own seed;
- ``add.at``/``cupyx.scatter_add`` accept only the dtypes CuPy's atomics support;
- ``cupy.random`` keeps one ``RandomState`` per GPU in ``cupy.random._generator._random_states``;
- ``ndarray.data`` is a ``MemoryPointer`` into the owning allocation (``.mem.ptr``, ``.mem.size``)
  and ``cupy.ndarray(shape, dtype, memptr, strides)`` views it, as CuPy's do.
Kernels are in ``_kernels.py``, ``cupy.fft`` in ``_fft.py`` and ``cupyx.scipy.special`` in
``_special.py``. Numerics other than the kernels are NumPy's (and SciPy's).
"""
from __future__ import annotations

import functools
import json
import os
import types

import numpy

from . import _fft
from . import _kernels
from . import _special

with open(os.path.join(os.path.dirname(__file__), 'cupy_api.json')) as _f:
    API = json.load(_f)

_state = {'current': 0, 'count': int(os.environ.get('CHAINLET_CUPY_EMULATOR_GPUS', '1'))}
_HOST_OK = {'asarray', 'array', 'asnumpy', 'get_array_module', 'ascontiguousarray'}
# functions whose first argument may be a list or tuple (shapes, sequences of arrays); CuPy's
# other functions take arrays only (``cupy.sum([1, 2])`` fails where NumPy's works)
_SEQUENCE_OK = {'array', 'asarray', 'asanyarray', 'ascontiguousarray', 'asfortranarray',
                'zeros', 'ones', 'empty', 'full', 'concatenate', 'stack', 'hstack', 'vstack',
                'dstack', 'column_stack', 'row_stack', 'block', 'broadcast_shapes',
                'result_type', 'meshgrid', 'ix_', 'ravel_multi_index', 'ndim', 'shape', 'size',
                'isscalar', 'broadcast_arrays', 'get_array_module', 'asnumpy', 'can_cast',
                'min_scalar_type', 'einsum', 'unravel_index'}
# functions that launch no kernel (views, metadata, host-side checks): no current-device check
_NO_LAUNCH = {'may_share_memory', 'shares_memory', 'reshape', 'transpose', 'broadcast_to',
              'broadcast_arrays', 'expand_dims', 'squeeze', 'swapaxes', 'moveaxis', 'rollaxis',
              'atleast_1d', 'atleast_2d', 'atleast_3d', 'ndim', 'shape', 'size', 'result_type',
              'can_cast', 'isscalar', 'iscomplexobj', 'isrealobj', 'split', 'array_split'}


def current_device_id() -> int:
    return _state['current']


def _make(a: numpy.ndarray, device: int) -> 'ndarray':
    x = object.__new__(ndarray)
    x._a = a
    x._device = device
    return x


def _unwrap(obj, host_ok: bool = False, where: str = ''):
    t = type(obj)
    if t is ndarray:
        return obj._a
    if isinstance(obj, numpy.ndarray):
        if host_ok:
            return obj
        raise TypeError(f'Unsupported type {t}' + (f' (in {where})' if where else ''))
    if t is list or t is tuple:
        return t(_unwrap(o, host_ok, where) for o in obj)
    if t is dict:
        return {k: _unwrap(v, host_ok, where) for k, v in obj.items()}
    return obj


def _is_host(obj) -> bool:
    """A NumPy array, list or tuple: what CuPy's kernels refuse as an array argument."""
    t = type(obj)
    return t is list or t is tuple or (isinstance(obj, numpy.ndarray) and t is not ndarray)


def _arrays_in(obj):
    t = type(obj)
    if t is ndarray:
        yield obj
    elif t is list or t is tuple:
        for o in obj:
            yield from _arrays_in(o)
    elif t is dict:
        for o in obj.values():
            yield from _arrays_in(o)


def launch_device(objs, where: str) -> int:
    """The current device, once every device array in ``objs`` is checked to be on it: CuPy
    launches kernels on the current device, so chainlet must make the inputs' GPU current."""
    current = _state['current']
    for a in _arrays_in(objs):
        if a._device != current:
            raise ValueError(f'The device where the array resides ({a._device}) is different '
                             f'from the current device ({current}) (in {where})')
    return current


def _wrap(obj, device: int):
    if isinstance(obj, numpy.ndarray):
        return _make(obj, device)
    if isinstance(obj, numpy.generic):
        return _make(numpy.asarray(obj), device)
    if type(obj) in (list, tuple):
        return type(obj)(_wrap(o, device) for o in obj)
    return obj


def _check_signature(qualname: str, sig, args: tuple, kwargs: dict) -> None:
    if sig is None:
        return
    kinds = [k for _, k in sig]
    if 'VAR_KEYWORD' not in kinds:
        names = {n for n, k in sig if k != 'VAR_POSITIONAL'}
        for key in kwargs:
            if key not in names:
                raise TypeError(f'{qualname}() got an unexpected keyword argument {key!r} '
                                '(not in CuPy 14.2)')
    if 'VAR_POSITIONAL' not in kinds:
        n_pos = sum(k in ('POSITIONAL_ONLY', 'POSITIONAL_OR_KEYWORD') for k in kinds)
        if len(args) > n_pos:
            raise TypeError(f'{qualname}() takes {n_pos} positional arguments in CuPy 14.2 '
                            f'but {len(args)} were given')


def _function(np_func, qualname: str, sig):
    name = qualname.split('.')[-1]
    host_ok = name in _HOST_OK

    @functools.wraps(np_func)
    def f(*args, **kwargs):
        _check_signature(qualname, sig, args, kwargs)
        if args and type(args[0]) in (list, tuple) and name not in _SEQUENCE_OK:
            raise TypeError(f'{qualname}: unsupported type {type(args[0]).__name__} for the '
                            'first argument (CuPy functions take cupy.ndarray)')
        # *_like and creation functions read no data: they allocate on the current device
        reads = not (host_ok or name.endswith('_like') or name in _NO_LAUNCH)
        dev = launch_device((args, kwargs), qualname) if reads else _state['current']
        out = kwargs.get('out')
        res = np_func(*_unwrap(args, host_ok, qualname), **_unwrap(kwargs, host_ok, qualname))
        if out is not None and type(out) is ndarray:
            return out
        return _wrap(res, dev)
    f.__module__ = 'cupy'
    return f


# dtypes the atomics behind cupy.<ufunc>.at / cupyx.scatter_add support
_AT_DTYPES = {
    'add': ('int32', 'float16', 'float32', 'float64', 'uint32', 'uint64'),
    'subtract': ('int32', 'uint32'),
    'maximum': ('int32', 'float32', 'float64', 'uint32', 'uint64'),
    'minimum': ('int32', 'float32', 'float64', 'uint32', 'uint64'),
}


def _ufunc_at(ufunc, a, indices, b=None) -> None:
    name = ufunc.__name__
    if name not in _AT_DTYPES:
        raise NotImplementedError(f'cupy.{name}.at is not supported by CuPy')
    value_dtype = b.dtype if type(b) is ndarray else a.dtype
    if numpy.dtype(value_dtype).name not in _AT_DTYPES[name]:
        raise TypeError(f'cupy.{name}.at only supports {", ".join(_AT_DTYPES[name])} '
                        f'as data type (got {numpy.dtype(value_dtype).name})')
    launch_device((a, indices, b), f'cupy.{name}.at')
    args = (a._a, _unwrap(indices, host_ok=True)) + (() if b is None else (_unwrap(b),))
    ufunc.at(*args)


class _Ufunc:
    """``cupy.<ufunc>`` on NumPy's ufunc."""

    def __init__(self, uf: numpy.ufunc) -> None:
        self._uf = uf
        self.__name__ = uf.__name__
        self.nin, self.nout, self.nargs = uf.nin, uf.nout, uf.nargs

    def __call__(self, *args, **kwargs):
        return _apply_ufunc(self._uf, '__call__', args, kwargs)

    def reduce(self, *args, **kwargs):
        return _apply_ufunc(self._uf, 'reduce', args, kwargs)

    def accumulate(self, *args, **kwargs):
        return _apply_ufunc(self._uf, 'accumulate', args, kwargs)

    def outer(self, *args, **kwargs):
        return _apply_ufunc(self._uf, 'outer', args, kwargs)

    def at(self, a, indices, b=None):
        _ufunc_at(self._uf, a, indices, b)

    def __repr__(self):
        return f'<ufunc {self.__name__!r}>'


def _apply_ufunc(uf, method: str, inputs: tuple, kwargs: dict):
    if method == 'at':
        return _ufunc_at(uf, *inputs)
    if 'where' in kwargs:
        raise TypeError(f'cupy.{uf.__name__} does not take where= (not in CuPy 14.2)')
    for x in inputs:
        if type(x) in (list, tuple) or (isinstance(x, numpy.ndarray) and type(x) is not ndarray):
            raise TypeError(f'Unsupported type {type(x)} (in cupy.{uf.__name__})')
    dev = launch_device((inputs, kwargs), f'cupy.{uf.__name__}')
    out = kwargs.get('out')
    res = getattr(uf, method)(*_unwrap(inputs, where=f'cupy.{uf.__name__}'),
                              **_unwrap(kwargs, where=f'cupy.{uf.__name__}'))
    if out is not None:
        return out[0] if type(out) is tuple and len(out) == 1 else out
    return _wrap(res, dev)


def _binary(uf, reflected: bool = False):
    def op(self, other):
        if isinstance(other, numpy.ndarray) and type(other) is not ndarray:
            raise TypeError(f'Unsupported type {type(other)}')
        if not isinstance(other, (ndarray, numpy.generic, int, float, complex, bool)):
            return NotImplemented
        args = (other, self) if reflected else (self, other)
        return _apply_ufunc(uf, '__call__', args, {})
    return op


def _inplace(uf):
    def op(self, other):
        if isinstance(other, numpy.ndarray):
            raise TypeError(f'Unsupported type {type(other)}')
        uf(self._a, _unwrap(other), out=self._a)
        return self
    return op


class ndarray:
    """A device array of the emulated CuPy: NumPy storage plus the GPU it lives on."""

    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order='C'):
        if memptr is None:
            self._a = numpy.empty(shape, dtype, order=order)
            self._device = _state['current']
            return
        # a view of an existing allocation, as CuPy makes one from a MemoryPointer
        owner = memptr.mem._owner
        self._a = numpy.ndarray(shape, dtype, buffer=owner, offset=memptr.ptr - memptr.mem.ptr,
                                strides=strides, order=order)
        self._device = memptr.device_id

    # -- attributes --
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: _make(self._a.T, self._device))
    device = property(lambda self: Device(self._device))

    @property
    def data(self):
        """A ``MemoryPointer`` into the allocation (the NumPy array owning the buffer)."""
        mem = _Memory(_owner(self._a), self._device)
        return MemoryPointer(mem, self._a.__array_interface__['data'][0] - mem.ptr)

    @property
    def base(self):
        return None if self._a.base is None else _make(self._a.base, self._device)

    @property
    def real(self):
        return _make(self._a.real, self._device)

    @real.setter
    def real(self, value):
        self._set_part('real', value)

    @property
    def imag(self):
        return _make(self._a.imag, self._device)

    @imag.setter
    def imag(self, value):
        self._set_part('imag', value)

    def _set_part(self, part: str, value) -> None:
        # CuPy copies with an elementwise kernel: device arrays (on the current GPU) and
        # scalars only
        where = f'ndarray.{part}'
        if _is_host(value):
            raise TypeError(f'Unsupported type {type(value)} (in {where})')
        launch_device((self, value), where)
        setattr(self._a, part, _unwrap(value))

    @shape.setter
    def shape(self, value):
        self._a.shape = value

    def __getattr__(self, name):
        if name.startswith('_') or name not in API['cupy.ndarray']:
            raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}' "
                                 '(not in CuPy 14.2)')
        meth = getattr(self._a, name, None)
        if meth is None or not callable(meth):
            raise AttributeError(f"'cupy.ndarray' attribute '{name}' is not emulated")
        # ndarray.copy copies to the current device, as CuPy's does
        dev = _state['current'] if name == 'copy' else self._device

        def call(*args, **kwargs):
            out = kwargs.get('out')
            res = meth(*_unwrap(args, where=f'ndarray.{name}'),
                       **_unwrap(kwargs, where=f'ndarray.{name}'))
            return out if type(out) is ndarray else _wrap(res, dev)
        return call

    # -- host transfers --
    def get(self, stream=None, order='C', out=None, blocking=True):
        if out is not None:
            out[...] = self._a
            return out
        return numpy.array(self._a, order=order, copy=True)

    def set(self, arr, stream=None):
        if not isinstance(arr, numpy.ndarray):
            raise TypeError(f'Only numpy.ndarray can be set to cupy.ndarray, got {type(arr)}')
        if arr.shape != self.shape or arr.dtype != self.dtype:
            raise ValueError('Shape or dtype mismatched')
        self._a[...] = arr

    def __array__(self, *args, **kwargs):
        raise TypeError('Implicit conversion to a NumPy array is not allowed. Please use '
                        '`.get()` to construct a NumPy array explicitly.')

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc.__name__ not in API['cupy']:
            return NotImplemented
        return _apply_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        module = func.__module__ or 'numpy'
        space = 'cupy.linalg' if module.endswith('linalg') else 'cupy'
        name = func.__name__
        if name not in API.get(space, {}):
            return NotImplemented
        return getattr(_MODULES[space], name)(*args, **kwargs)

    # -- conversions CuPy allows --
    def __bool__(self):
        if self.size != 1:
            raise ValueError('The truth value of an array with more than one element is '
                             'ambiguous. Use a.any() or a.all()')
        return bool(self._a)

    def __int__(self):
        return int(self._a.item()) if self.size == 1 else int(self._a)

    def __float__(self):
        return float(self._a.item()) if self.size == 1 else float(self._a)

    def __complex__(self):
        return complex(self._a.item())

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError('iteration over a 0-d array')
        return (self[i] for i in range(len(self)))

    def __format__(self, spec):
        return self._a.__format__(spec)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __copy__(self):
        return _make(self._a.copy(), self._device)

    def __deepcopy__(self, memo):
        return _make(self._a.copy(), self._device)

    def __reduce__(self):
        return (_make, (self._a, self._device))

    # -- indexing --
    def __getitem__(self, key):
        return _make(self._a[_unwrap(key, host_ok=True)], self._device)

    def __setitem__(self, key, value):
        self._a[_unwrap(key, host_ok=True)] = _unwrap(value, host_ok=True)

    # -- operators --
    __add__, __radd__ = _binary(numpy.add), _binary(numpy.add, True)
    __sub__, __rsub__ = _binary(numpy.subtract), _binary(numpy.subtract, True)
    __mul__, __rmul__ = _binary(numpy.multiply), _binary(numpy.multiply, True)
    __truediv__, __rtruediv__ = _binary(numpy.true_divide), _binary(numpy.true_divide, True)
    __floordiv__ = _binary(numpy.floor_divide)
    __rfloordiv__ = _binary(numpy.floor_divide, True)
    __mod__, __rmod__ = _binary(numpy.remainder), _binary(numpy.remainder, True)
    __pow__, __rpow__ = _binary(numpy.power), _binary(numpy.power, True)
    __matmul__, __rmatmul__ = _binary(numpy.matmul), _binary(numpy.matmul, True)
    __and__, __rand__ = _binary(numpy.bitwise_and), _binary(numpy.bitwise_and, True)
    __or__, __ror__ = _binary(numpy.bitwise_or), _binary(numpy.bitwise_or, True)
    __xor__, __rxor__ = _binary(numpy.bitwise_xor), _binary(numpy.bitwise_xor, True)
    __lshift__, __rshift__ = _binary(numpy.left_shift), _binary(numpy.right_shift)
    __lt__, __le__ = _binary(numpy.less), _binary(numpy.less_equal)
    __gt__, __ge__ = _binary(numpy.greater), _binary(numpy.greater_equal)
    __eq__, __ne__ = _binary(numpy.equal), _binary(numpy.not_equal)
    __iadd__, __isub__ = _inplace(numpy.add), _inplace(numpy.subtract)
    __imul__, __itruediv__ = _inplace(numpy.multiply), _inplace(numpy.true_divide)
    __ifloordiv__, __imod__ = _inplace(numpy.floor_divide), _inplace(numpy.remainder)
    __ipow__ = _inplace(numpy.power)
    __iand__, __ior__, __ixor__ = (_inplace(numpy.bitwise_and), _inplace(numpy.bitwise_or),
                                   _inplace(numpy.bitwise_xor))

    def __neg__(self):
        return _apply_ufunc(numpy.negative, '__call__', (self,), {})

    def __pos__(self):
        return _apply_ufunc(numpy.positive, '__call__', (self,), {})

    def __abs__(self):
        return _apply_ufunc(numpy.absolute, '__call__', (self,), {})

    def __invert__(self):
        return _apply_ufunc(numpy.invert, '__call__', (self,), {})


ndarray.__module__ = 'cupy'


def _owner(a: numpy.ndarray) -> numpy.ndarray:
    """The NumPy array that owns the buffer behind ``a`` (the allocation, in CuPy's words)."""
    while isinstance(a.base, numpy.ndarray):
        a = a.base
    return a


class _Memory:
    """``cupy.cuda.Memory``: one allocation, ``ptr`` its start and ``size`` its bytes."""

    def __init__(self, owner: numpy.ndarray, device: int) -> None:
        self._owner = owner
        self.ptr = owner.__array_interface__['data'][0]
        self.size = owner.nbytes
        self.device_id = device


class MemoryPointer:
    """``cupy.cuda.MemoryPointer(mem, offset)``: an address inside an allocation."""

    def __init__(self, mem: _Memory, offset: int) -> None:
        if not 0 <= offset <= mem.size:
            raise ValueError(f'offset {offset} is outside the allocation of {mem.size} bytes')
        self.mem = mem
        self.ptr = mem.ptr + offset
        self.device_id = mem.device_id
        self.device = Device(mem.device_id)

    def __int__(self):
        return self.ptr


MemoryPointer.__module__ = 'cupy.cuda.memory'


# -- devices and streams --

class Device:
    """``cupy.cuda.Device``: a context manager that makes a GPU current."""

    def __init__(self, device=None):
        if device is None:
            device = _state['current']
        device = int(getattr(device, 'id', device))
        if not 0 <= device < _state['count']:
            raise RuntimeError(f'CUDARuntimeError: cudaErrorInvalidDevice: invalid device '
                               f'ordinal {device}')
        self.id = device
        self._saved = []

    def __enter__(self):
        self._saved.append(_state['current'])
        _state['current'] = self.id
        return self

    def __exit__(self, *exc):
        _state['current'] = self._saved.pop()

    def use(self):
        _state['current'] = self.id

    def synchronize(self):
        pass

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    def __repr__(self):
        return f'<CUDA Device {self.id}>'


Device.__module__ = 'cupy.cuda.device'


class Stream:
    null = None

    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.ptr = 0

    def synchronize(self):
        pass

    def record(self, event=None):
        return Event()

    def wait_event(self, event):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


class Event:
    def synchronize(self):
        pass


_INT_SAMPLERS = {'randint', 'binomial', 'geometric', 'hypergeometric', 'logseries',
                 'negative_binomial', 'poisson', 'zipf'}


def _numpy_sampler(name: str) -> str:
    """The ``RandomState`` method behind ``cupy.random.<name>`` (CuPy's aliases included)."""
    return {'random': 'random_sample', 'ranf': 'random_sample',
            'sample': 'random_sample'}.get(name, name)


# cupy.random names that are not samplers of a RandomState
_RANDOM_OWN = {'seed', 'rand', 'randn', 'shuffle', 'get_random_state', 'set_random_state',
               'reset_states'}


def _sampler(name: str, sig):
    """``RandomState.<name>``: CuPy's signature, float samplers in float32/float64 only."""
    names = [n for n, _ in sig]
    np_name = _numpy_sampler(name)
    qualname = f'cupy.random.{name}'

    def sample(self, *args, **kwargs):
        _check_signature(qualname, sig, args, kwargs)
        bound = dict(zip(names, args), **kwargs)
        dtype = bound.pop('dtype', None)
        if dtype is not None and name not in _INT_SAMPLERS:
            dtype = numpy.dtype(dtype)
            if dtype.char not in ('f', 'd'):
                raise TypeError('cupy.random only supports float32 and float64')
        elif name not in _INT_SAMPLERS and 'dtype' in names:
            dtype = numpy.dtype(float)
        res = numpy.asarray(getattr(self._rs, np_name)(**_unwrap(bound, where=qualname)))
        return _make(res if dtype is None else res.astype(dtype), _state['current'])
    sample.__name__ = name
    return sample


class RandomState:
    """``cupy.random.RandomState`` on a NumPy ``RandomState`` (its own stream, not NumPy's
    global one); the samplers are CuPy's, set on the class by :func:`_random_module`."""

    def __init__(self, seed=None, method=None):
        self._rs = numpy.random.RandomState()
        self.seed(seed)

    def seed(self, seed=None):
        self._rs.seed(None if seed is None else int(seed) % (2 ** 32))

    def rand(self, *size, **kwarg):
        dtype = kwarg.pop('dtype', float)
        if kwarg:
            raise TypeError(f'rand() got unexpected keyword arguments {", ".join(kwarg)}')
        return self.random_sample(size, dtype=dtype)

    def randn(self, *size, **kwarg):
        dtype = kwarg.pop('dtype', float)
        if kwarg:
            raise TypeError(f'randn() got unexpected keyword arguments {", ".join(kwarg)}')
        return self.standard_normal(size, dtype=dtype)

    def shuffle(self, a):
        if type(a) is not ndarray:
            raise TypeError('The array must be cupy.ndarray')
        launch_device((a,), 'cupy.random.shuffle')
        a._a[...] = a._a[self._rs.permutation(len(a))]


RandomState.__module__ = 'cupy.random._generator'


def _generator_module() -> types.ModuleType:
    """``cupy.random._generator``: one ``RandomState`` per GPU in ``_random_states``, made on
    first use. A new state is seeded from ``CUPY_SEED`` as in CuPy, and from 0 when it is unset
    (CuPy then seeds from the OS; a fixed seed keeps emulated runs reproducible)."""
    gen = types.ModuleType('cupy.random._generator')
    gen.RandomState = RandomState
    gen._random_states = {}

    def get_random_state():
        dev = _state['current']
        rs = gen._random_states.get(dev)
        if rs is None:
            rs = gen._random_states.setdefault(dev, RandomState(os.environ.get('CUPY_SEED', 0)))
        return rs

    def set_random_state(rs):
        if not isinstance(rs, RandomState):
            raise TypeError(f'Random state must be an instance of RandomState. '
                            f'Actual: {type(rs)}')
        gen._random_states[_state['current']] = rs

    def reset_states():
        gen._random_states = {}

    def seed(seed=None):
        get_random_state().seed(seed)

    gen.get_random_state, gen.set_random_state = get_random_state, set_random_state
    gen.reset_states, gen.seed = reset_states, seed
    return gen


def _random_module() -> types.ModuleType:
    """``cupy.random``: each function draws from the current GPU's ``RandomState``."""
    mod = types.ModuleType('cupy.random')
    mod.__path__ = []
    gen = mod._generator = _generator_module()
    mod.RandomState = RandomState

    def forward(name):
        def f(*args, **kwargs):
            return getattr(gen.get_random_state(), name)(*args, **kwargs)
        f.__name__ = name
        f.__module__ = 'cupy.random'
        return f

    for name, sig in API['cupy.random'].items():
        if name in _RANDOM_OWN or sig is None:
            continue
        if hasattr(numpy.random.RandomState, _numpy_sampler(name)):
            setattr(RandomState, name, _sampler(name, sig))
            setattr(mod, name, forward(name))
    for name in ('rand', 'randn', 'shuffle'):
        setattr(mod, name, forward(name))
    for name in ('seed', 'get_random_state', 'set_random_state', 'reset_states'):
        setattr(mod, name, getattr(gen, name))
    return mod


def _cuda_module() -> types.ModuleType:
    mod = types.ModuleType('cupy.cuda')
    mod.Device, mod.Stream, mod.Event = Device, Stream, Event
    stream = Stream()
    mod.get_current_stream = lambda device=None: stream
    mod.runtime = types.SimpleNamespace(
        getDeviceCount=lambda: _state['count'], getDevice=lambda: _state['current'],
        deviceSynchronize=lambda: None, is_hip=False,
        getDeviceProperties=lambda device: {'name': b'CuPy emulator (CPU)',
                                            'totalGlobalMem': 0, 'major': 0, 'minor': 0})
    mod.is_available = lambda: _state['count'] > 0
    mod.get_device_id = lambda: _state['current']
    mod.MemoryPointer = MemoryPointer
    return mod


class _Module(types.ModuleType):
    """``cupy`` (and ``cupy.linalg``): known names resolve to NumPy's, wrapped."""

    def __init__(self, name: str, numpy_module) -> None:
        super().__init__(name)
        self._numpy = numpy_module

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        api = API[self.__name__]
        if name not in api:
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}' "
                                 '(not in CuPy 14.2)')
        obj = getattr(self._numpy, name, None)
        if obj is None:
            raise AttributeError(f"'{self.__name__}.{name}' is not emulated")
        if isinstance(obj, types.ModuleType):
            raise AttributeError(f"'{self.__name__}.{name}' (a submodule) is not emulated")
        if isinstance(obj, numpy.ufunc):
            value = _Ufunc(obj)
        elif callable(obj) and not isinstance(obj, type):
            value = _function(obj, f'{self.__name__}.{name}', api[name])
        else:
            value = obj
        setattr(self, name, value)
        return value


def asarray(a, dtype=None, order=None, *, copy=None, blocking=False):
    if type(a) is ndarray:
        if a._device != _state['current']:  # CuPy copies to the current device
            return _make(numpy.array(a._a, dtype=dtype, copy=True), _state['current'])
        return a if dtype is None or numpy.dtype(dtype) == a.dtype else a.astype(dtype)
    return _make(numpy.array(_unwrap(a, host_ok=True), dtype=dtype, order=order or 'K',
                             copy=True), _state['current'])


def array(obj, dtype=None, copy=True, order='K', subok=False, ndmin=0, *, blocking=False):
    if type(obj) is ndarray:
        other = obj._device != _state['current']
        a = numpy.array(obj._a, dtype=dtype, copy=True if other else copy, order=order,
                        ndmin=ndmin)
        return _make(a, _state['current'] if other or a is not obj._a else obj._device)
    return _make(numpy.array(_unwrap(obj, host_ok=True), dtype=dtype, copy=True, order=order,
                             ndmin=ndmin), _state['current'])


def asnumpy(a, stream=None, order='C', out=None, *, blocking=True):
    if type(a) is ndarray:
        return a.get(order=order, out=out)
    if out is not None:
        out[...] = a
        return out
    return numpy.asarray(a, order=order)


def get_array_module(*args):
    for a in args:
        if type(a) is ndarray or type(getattr(a, 'array', None)) is ndarray:
            return _MODULES['cupy']
    return numpy


def copyto(dst, src, casting='same_kind', where=None):
    """``cupy.copyto``: arrays on two GPUs are allowed (a peer copy)."""
    if isinstance(src, numpy.ndarray) and type(src) is not ndarray:
        raise TypeError(f'Unsupported type {type(src)}')
    numpy.copyto(dst._a, _unwrap(src), casting=casting,
                 **({} if where is None else {'where': _unwrap(where)}))


class broadcast:
    """``cupy.broadcast(*arrays)``: the broadcast shape and views (NumPy's class would read
    the device arrays on the host)."""

    def __init__(self, *arrays):
        for a in arrays:
            if _is_host(a):
                raise TypeError(f'Unsupported type {type(a)} (in cupy.broadcast)')
        dev = _state['current']
        views = numpy.broadcast_arrays(*[numpy.asarray(_unwrap(a)) for a in arrays])
        self.values = tuple(_make(v, a._device if type(a) is ndarray else dev)
                            for v, a in zip(views, arrays))
        self.shape = views[0].shape if views else ()
        self.size = int(numpy.prod(self.shape, dtype=numpy.int64))
        self.nd = len(self.shape)


broadcast.__module__ = 'cupy'


def scatter_add(a, slices, value):
    _ufunc_at(numpy.add, a, slices, value if type(value) is ndarray else asarray(value))


class _MemoryPool:
    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_all_blocks(self):
        pass


_MODULES: dict = {}


def build() -> dict:
    """The emulated modules, keyed by name (``cupy``, ``cupy.cuda``, ``cupyx`` ...)."""
    cupy = _Module('cupy', numpy)
    cupy.__path__ = []  # a package, so that ``from cupy.cuda import ...`` works
    cupy.__version__ = '14.2.0+emulated'
    cupy.ndarray = ndarray
    cupy.asarray, cupy.array, cupy.asnumpy, cupy.copyto = asarray, array, asnumpy, copyto
    cupy.get_array_module, cupy.broadcast = get_array_module, broadcast
    cupy.ElementwiseKernel = _kernels.ElementwiseKernel
    cupy.ReductionKernel = _kernels.ReductionKernel
    pool = _MemoryPool()
    cupy.get_default_memory_pool = lambda: pool
    cupy.get_default_pinned_memory_pool = lambda: pool
    cupy.cuda = _cuda_module()
    cupy.random = _random_module()
    cupy.linalg = _Module('cupy.linalg', numpy.linalg)
    cupy.lib = types.ModuleType('cupy.lib')
    cupy.lib.stride_tricks = types.ModuleType('cupy.lib.stride_tricks')
    cupy.lib.stride_tricks.as_strided = _function(
        numpy.lib.stride_tricks.as_strided, 'cupy.lib.stride_tricks.as_strided',
        [['x', 'POSITIONAL_OR_KEYWORD'], ['shape', 'POSITIONAL_OR_KEYWORD'],
         ['strides', 'POSITIONAL_OR_KEYWORD']])
    cupy.newaxis = None  # NumPy's value; the generic lookup takes None for "not emulated"
    cupy.fft = _fft.fft_module()
    cupyx = types.ModuleType('cupyx')
    cupyx.scatter_add = scatter_add
    cupyx.__path__ = []
    scipy = _special.scipy_modules()
    cupyx.scipy = scipy['cupyx.scipy']
    _MODULES.update({'cupy': cupy, 'cupy.cuda': cupy.cuda, 'cupy.random': cupy.random,
                     'cupy.random._generator': cupy.random._generator,
                     'cupy.linalg': cupy.linalg, 'cupy.fft': cupy.fft, 'cupyx': cupyx,
                     **scipy})
    return dict(_MODULES)
