"""``ElementwiseKernel`` and ``ReductionKernel`` run on the CPU: the kernel's C++ is compiled
for the host with g++ and called through ctypes.

The generated code mirrors CuPy's: the same ``typedef`` of each type placeholder, the same
``const T &x = ...`` references for non-raw arguments, ``i`` as the flat index of the broadcast
output, raw arguments indexed in C order, scalars converted to their parameter's type, and
CuPy's type rules (an array whose dtype differs from its parameter's raises ``TypeError: Type
is mismatched``). ``float16`` is the host's ``_Float16`` (IEEE binary16 with round-to-nearest
conversions, as ``__float2half_rn``); math functions are ``<cmath>``'s float/double overloads.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import re
import subprocess
import tempfile

import numpy

_CTYPES = {
    'float16': 'float16', 'float32': 'float', 'float64': 'double', 'int8': 'signed char',
    'int16': 'short', 'int32': 'int', 'int64': 'long long', 'uint8': 'unsigned char',
    'uint16': 'unsigned short', 'uint32': 'unsigned int', 'uint64': 'unsigned long long',
    'bool': 'bool',
}
_HEADER = '''#include <cmath>
#include <cstddef>
#include <cstdint>
#include <algorithm>
using namespace std;
typedef _Float16 float16;
template <typename X> struct _Raw {
  X *p; ptrdiff_t n;
  X &operator[](ptrdiff_t k) const { return p[k]; }
  ptrdiff_t size() const { return n; }
};
'''
_CACHE = os.environ.get('CHAINLET_CUPY_EMULATOR_CACHE',
                        os.path.join(tempfile.gettempdir(), 'chainlet-cupy-emulator'))
_LIBS: dict = {}


class _Param:
    def __init__(self, spec: str, is_const: bool) -> None:
        words = spec.split()
        if len(words) < 2:
            raise ValueError(f'Syntax error: {spec}')
        self.raw = words[0] == 'raw'
        t, self.name = words[-2:]
        self.is_const = is_const
        if len(t) == 1:
            self.placeholder, self.dtype = t, None
        else:
            self.placeholder, self.dtype = None, numpy.dtype(t)
            if self.dtype.name != t:
                raise ValueError(f'Wrong type {t}')


def _params(spec: str, is_const: bool) -> list:
    return [_Param(s, is_const) for s in spec.split(',') if s.strip()]


def _decide_types(in_params: list, out_params: list, in_dtypes: list, out_dtypes: list):
    """CuPy's ``_decide_params_type_core``: bind placeholders, check concrete types."""
    bound: dict = {}
    for params, dtypes in ((out_params, out_dtypes), (in_params, in_dtypes)):
        if not dtypes:
            continue
        for p, a in zip(params, dtypes):
            if a is None:
                continue
            if p.dtype is not None:
                if a != p.dtype:
                    raise TypeError(f'Type is mismatched. {p.name} {a.type} {p.dtype.type}')
            elif p.placeholder in bound:
                if bound[p.placeholder] != a:
                    raise TypeError(f'Type is mismatched. {p.name} {a.type} '
                                    f'{bound[p.placeholder].type} {p.placeholder}')
            else:
                bound[p.placeholder] = a

    def resolve(p):
        if p.dtype is not None:
            return p.dtype
        if p.placeholder not in bound:
            raise TypeError(f'the type of {p.name} ({p.placeholder}) cannot be decided: '
                            'no array argument binds it')
        return bound[p.placeholder]
    return [resolve(p) for p in in_params], [resolve(p) for p in out_params], bound


def _compile(source: str):
    key = hashlib.sha1(source.encode()).hexdigest()[:20]
    lib = _LIBS.get(key)
    if lib is not None:
        return lib
    os.makedirs(_CACHE, exist_ok=True)
    so = os.path.join(_CACHE, f'k{key}.so')
    if not os.path.exists(so):
        src = os.path.join(_CACHE, f'k{key}.cpp')
        with open(src, 'w') as f:
            f.write(source)
        tmp = f'{so}.{os.getpid()}.tmp'
        proc = subprocess.run(
            [os.environ.get('CXX', 'g++'), '-std=c++17', '-O1', '-shared', '-fPIC',
             '-fno-fast-math', '-o', tmp, src], capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f'the kernel failed to compile on the host:\n{proc.stderr[:3000]}'
                               f'\n--- source ---\n{source}')
        os.replace(tmp, so)
    lib = _LIBS[key] = ctypes.CDLL(so)
    return lib


def _typedefs(bound: dict) -> str:
    return ''.join(f'typedef {_CTYPES[d.name]} {k};\n' for k, d in sorted(bound.items()))


def _scalar_buffer(value, dtype: numpy.dtype) -> numpy.ndarray:
    return numpy.array(value).astype(dtype).reshape(1)


def _bind(params: list, dtypes: list, kinds: list, start: int, index: str) -> list:
    """C++ lines that bind each parameter to ``args[start + k]``."""
    lines = []
    for k, (p, d, kind) in enumerate(zip(params, dtypes, kinds)):
        ct, slot = _CTYPES[d.name], f'args[{start + k}]'
        if kind == 'scalar':
            lines.append(f'const {ct} {p.name} = *({ct} *){slot};')
        elif kind == 'raw':
            lines.append(f'_Raw<{ct}> {p.name} = {{({ct} *){slot}, sizes[{start + k}]}};')
        else:
            const = 'const ' if p.is_const else ''
            lines.append(f'{const}{ct} &{p.name} = (({ct} *){slot})[{index}];')
    return lines


class _KernelBase:
    def _prepare(self, args: tuple, out_args: list) -> tuple:
        """Check the arguments as CuPy does and split ``args`` into (kinds, host arrays, in
        dtypes, out dtypes)."""
        from . import _api
        kinds, host, in_dtypes = [], [], []
        for p, a in zip(self._in, args):
            if isinstance(a, _api.ndarray):
                kinds.append('raw' if p.raw else 'array')
                host.append(a._a)
                in_dtypes.append(a._a.dtype)
            elif isinstance(a, numpy.ndarray):
                raise TypeError(f'Unsupported type {type(a)}')
            else:
                kinds.append('scalar')
                host.append(a)
                in_dtypes.append(None)
        for a in out_args:
            if not isinstance(a, _api.ndarray):
                raise TypeError('Output arguments type must be cupy.ndarray')
        _api.launch_device((args, out_args), self.name)
        return kinds, host, in_dtypes, [a._a.dtype for a in out_args]


class ElementwiseKernel(_KernelBase):
    """Host version of ``cupy.ElementwiseKernel`` (same constructor and call)."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str = 'kernel',
                 reduce_dims: bool = True, preamble: str = '', no_return: bool = False,
                 return_tuple: bool = False, **kwargs) -> None:
        if not re.match(r'^[A-Za-z_][A-Za-z0-9_]*$', name):
            raise ValueError(f'Invalid kernel name: "{name}"')
        self._in = _params(in_params, True)
        self._out = _params(out_params, False)
        if 'i' in [p.name for p in self._in + self._out]:
            raise ValueError("Can not use 'i' as a parameter name")
        self.operation, self.name, self.preamble = operation, name, preamble
        self.no_return, self.return_tuple = no_return, return_tuple
        self.nin, self.nout = len(self._in), len(self._out)

    def __call__(self, *args, size: int = -1, stream=None, block_size: int = 128, **kwargs):
        from . import _api
        if kwargs:
            raise TypeError(f'Wrong arguments {kwargs}')
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f'Wrong number of arguments for {self.name!r}. It must be either '
                            f'{self.nin} or {self.nin + self.nout} (with outputs), but given '
                            f'{len(args)}.')
        in_args, out_args = args[:self.nin], list(args[self.nin:])
        kinds, host, in_dtypes, out_dtypes = self._prepare(in_args, out_args)
        arrays = [h for h, k in zip(host, kinds) if k == 'array']
        if size != -1:
            if arrays:
                raise ValueError("Specified 'size' can be used only if all of the ndarray "
                                 "are 'raw'.")
            shape = (size,)
        elif not arrays:
            raise ValueError('Loop size is undecided.')
        else:
            shape = numpy.broadcast_shapes(*[a.shape for a in arrays])
        in_types, out_types, bound = _decide_types(self._in, self._out, in_dtypes, out_dtypes)
        device = _api.current_device_id()
        if out_args:
            for p, a in zip(self._out, out_args):
                if not p.raw and a.shape != shape:
                    raise ValueError('Out shape is mismatched')
        else:
            if any(p.raw for p in self._out) and size == -1:
                raise ValueError('Output array size is Undecided')
            out_args = [_api._make(numpy.empty(shape, t), device) for t in out_types]
        ret = None if self.no_return else (
            out_args[0] if not self.return_tuple and self.nout == 1 else tuple(out_args))
        n = int(numpy.prod(shape, dtype=numpy.int64))
        if n == 0:
            return ret
        buffers, sizes = [], []
        for h, k, t in zip(host, kinds, in_types):
            if k == 'scalar':
                buf = _scalar_buffer(h, t)
            elif k == 'raw':
                buf = numpy.ascontiguousarray(h)
            else:
                buf = numpy.ascontiguousarray(numpy.broadcast_to(h, shape))
            buffers.append(buf)
            sizes.append(buf.size)
        work = [numpy.ascontiguousarray(a._a).copy() for a in out_args]
        buffers += work
        sizes += [w.size for w in work]
        out_kinds = ['raw' if p.raw else 'array' for p in self._out]
        body = '\n    '.join(
            _bind(self._in, in_types, kinds, 0, 'i') +
            _bind(self._out, out_types, out_kinds, self.nin, 'i'))
        source = (_HEADER + _typedefs(bound) + self.preamble + '\n' +
                  'extern "C" void kernel(void **args, const ptrdiff_t *sizes, ptrdiff_t n) {\n'
                  '  for (ptrdiff_t i = 0; i < n; ++i) {\n'
                  f'    {body}\n    {self.operation};\n  }}\n}}\n')
        _run(_compile(source), buffers, sizes, n)
        for a, w in zip(out_args, work):
            a._a[...] = w.reshape(a._a.shape)
        return ret


class ReductionKernel(_KernelBase):
    """Host version of ``cupy.ReductionKernel`` (same constructor and call)."""

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity, name: str = 'reduce_kernel',
                 reduce_type: str = None, reduce_dims: bool = True, preamble: str = '',
                 options: tuple = ()) -> None:
        self._in = _params(in_params, True)
        self._out = _params(out_params, False)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity, self.name, self.reduce_type, self.preamble = (
            identity, name, reduce_type, preamble)
        self.nin, self.nout = len(self._in), len(self._out)

    def __call__(self, *args, out=None, axis=None, keepdims: bool = False, stream=None,
                 reduce_dims: bool = True):
        from . import _api
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f'Wrong number of arguments for {self.name}')
        in_args, out_args = args[:self.nin], list(args[self.nin:])
        if out is not None:
            if out_args:
                raise ValueError('cannot specify \'out\' as both a positional and keyword '
                                 'argument')
            out_args = [out]
        if any(p.raw for p in self._in):
            raise NotImplementedError('the emulator does not support raw reduction inputs')
        kinds, host, in_dtypes, out_dtypes = self._prepare(in_args, out_args)
        arrays = [h for h, k in zip(host, kinds) if k == 'array']
        if not arrays:
            raise ValueError('Loop size is undecided.')
        shape = numpy.broadcast_shapes(*[a.shape for a in arrays])
        ndim = len(shape)
        if axis is None:
            axes = tuple(range(ndim))
        else:
            axes = tuple(sorted(_normalize_axes(axis, ndim)))
        kept = tuple(d for d in range(ndim) if d not in axes)
        out_shape = tuple(1 if d in axes else shape[d] for d in range(ndim)) if keepdims \
            else tuple(shape[d] for d in kept)
        in_types, out_types, bound = _decide_types(self._in, self._out, in_dtypes, out_dtypes)
        device = _api.current_device_id()
        if out_args:
            for a in out_args:
                if a.shape != out_shape:
                    raise ValueError('Out shape is mismatched')
        else:
            out_args = [_api._make(numpy.empty(out_shape, t), device) for t in out_types]
        ret = out_args[0] if self.nout == 1 else tuple(out_args)
        n_out = int(numpy.prod([shape[d] for d in kept], dtype=numpy.int64))
        n_red = int(numpy.prod([shape[d] for d in axes], dtype=numpy.int64))
        if n_out == 0:
            return ret
        order = kept + axes
        buffers, sizes = [], []
        for h, k, t in zip(host, kinds, in_types):
            if k == 'scalar':
                buf = _scalar_buffer(h, t)
            else:
                buf = numpy.ascontiguousarray(
                    numpy.broadcast_to(h, shape).transpose(order)).reshape(-1)
            buffers.append(buf)
            sizes.append(buf.size)
        work = [numpy.empty(n_out, a.dtype) for a in out_args]
        buffers += work
        sizes += [w.size for w in work]
        rtype = self.reduce_type or _CTYPES[in_types[0].name]
        body_in = '\n      '.join(_bind(self._in, in_types, kinds, 0, '_j * n_red + _k'))
        body_out = ' '.join(_bind(self._out, out_types, ['array'] * self.nout, self.nin, '_j'))
        source = (_HEADER + _typedefs(bound) + f'typedef {rtype} _type_reduce;\n' +
                  self.preamble + '\n' +
                  'extern "C" void kernel(void **args, const ptrdiff_t *sizes, ptrdiff_t n_out,'
                  ' ptrdiff_t n_red) {\n'
                  '  for (ptrdiff_t _j = 0; _j < n_out; ++_j) {\n'
                  f'    _type_reduce a = static_cast<_type_reduce>({self.identity});\n'
                  '    for (ptrdiff_t _k = 0; _k < n_red; ++_k) {\n'
                  f'      {body_in}\n'
                  f'      _type_reduce b = static_cast<_type_reduce>({self.map_expr});\n'
                  f'      a = {self.reduce_expr};\n'
                  '    }\n'
                  f'    {{ {body_out} {self.post_map_expr}; }}\n'
                  '  }\n}\n')
        _run(_compile(source), buffers, sizes, n_out, n_red)
        for a, w in zip(out_args, work):
            a._a[...] = w.reshape(a._a.shape)
        return ret


def _normalize_axes(axis, ndim: int) -> tuple:
    axes = (axis,) if numpy.isscalar(axis) else tuple(axis)
    out = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise numpy.exceptions.AxisError(ax, ndim) if hasattr(numpy, 'exceptions') \
                else ValueError(f'axis {ax} is out of bounds for array of dimension {ndim}')
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError('duplicate value in axis')
    return tuple(out)


def _run(lib, buffers: list, sizes: list, *counts: int) -> None:
    ptrs = (ctypes.c_void_p * len(buffers))(*[b.ctypes.data for b in buffers])
    sz = (ctypes.c_ssize_t * len(sizes))(*sizes)
    lib.kernel(ptrs, sz, *[ctypes.c_ssize_t(c) for c in counts])
