"""Compile chainlet's fused CUDA kernels to PTX with NVRTC, on a machine without a GPU.

CuPy builds a kernel's source only when the kernel is called on device arrays, which needs a
GPU. This script writes source in the shape of CuPy's generated code (CuPy's own headers,
``CArray``/``CIndexer``, ``const T &x = _raw_x[_ind.get()]`` for elementwise arguments, a
reduction over ``a``/``b``) for every kernel in ``chainlet/functions/_cuda_kernels.py`` and
``chainlet/optimizers/_cuda_kernels.py``, for T in float16/float32/float64, and compiles it.
It catches syntax and type errors; it does not run anything.

Setup (a throwaway environment; none of this is a dependency of chainlet):
    python3 -m venv /tmp/venvcupy
    /tmp/venvcupy/bin/pip install cupy-cuda12x nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12
    /tmp/venvcupy/bin/python tools/check_cuda_kernels.py
"""
import os
import re
import sys

import cupy
from cupy.cuda import nvrtc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from chainlet.functions import _cuda_kernels as fk  # noqa: E402
from chainlet.optimizers import _cuda_kernels as ok  # noqa: E402

_SITE = os.path.dirname(os.path.dirname(cupy.__file__))
INCLUDES = [os.path.join(_SITE, 'cupy', '_core', 'include'),
            os.path.join(_SITE, 'nvidia', 'cuda_runtime', 'include')]
CTYPES = {'float16': 'float16', 'float32': 'float', 'float64': 'double', 'int32': 'int',
          'int64': 'long long', 'bool': 'bool'}


def parse_params(spec: str, double: bool) -> list:
    """``'T x, raw S t, acc_t a'`` -> ``[(raw, ctype, name), ...]``."""
    out = []
    for p in (p.strip() for p in spec.split(',')):
        if not p:
            continue
        parts = p.split()
        raw = parts[0] == 'raw'
        typ, name = parts[1:] if raw else parts
        typ = re.sub(r'\bacc_t\b', 'float64' if double else 'float32', typ)
        out.append((raw, CTYPES.get(typ, typ), name))
    return out


def header(tname: str) -> str:
    acc = 'double' if tname == 'double' else 'float'
    # T: the array dtype; S: integer labels; G: parameters such as BN's gamma
    return ('#include <cupy/float16.cuh>\n#include <cupy/carray.cuh>\n'
            f'typedef {tname} T;\ntypedef int S;\ntypedef {tname} G;\ntypedef {acc} acc_t;\n')


def elementwise_source(k, tname: str) -> str:
    double = tname == 'double'
    ins = parse_params(k.in_params, double)
    outs = parse_params(k.out_params, double)
    sig, prep = [], []
    for is_out, (raw, t, name) in [(False, p) for p in ins] + [(True, p) for p in outs]:
        if raw:
            sig.append(f'CArray<{t}, 2> {name}')
            continue
        sig.append(f'CArray<{t}, 2> _raw_{name}')
        const = '' if is_out else 'const '
        prep.append(f'{const}{t} &{name} = _raw_{name}[_ind.get()];')
    body = '\n    '.join(prep)
    return (header(tname) +
            f'extern "C" __global__ void chainlet_{k.name}({", ".join(sig)}, '
            f'CIndexer<2> _ind) {{\n'
            f'  CUPY_FOR(i, _ind.size()) {{\n    _ind.set(i);\n    {body}\n'
            f'    {k.operation};\n  }}\n}}\n')


def reduction_source(k, tname: str) -> str:
    double = tname == 'double'
    in_params, out_params, map_expr, reduce_expr, post_map_expr, identity = k.args
    ins = parse_params(in_params, double)
    outs = parse_params(out_params, double)
    sig = [f'CArray<{t}, 2> _raw_{n}' for _, t, n in ins + outs]
    prep = ' '.join(f'const {t} &{n} = _raw_{n}[_ind.get()];' for _, t, n in ins)
    out_prep = ' '.join(f'{t} &{n} = _raw_{n}[_ind.get()];' for _, t, n in outs)
    reduce_type = 'double' if double else 'float'
    return (header(tname) + f'typedef {reduce_type} _type_reduce;\n'
            f'extern "C" __global__ void chainlet_{k.name}({", ".join(sig)}, '
            f'CIndexer<2> _ind) {{\n'
            f'  _type_reduce a = static_cast<_type_reduce>({identity});\n'
            f'  CUPY_FOR(i, _ind.size()) {{\n    _ind.set(i);\n    {prep}\n'
            f'    _type_reduce b = static_cast<_type_reduce>({map_expr});\n'
            f'    a = {reduce_expr};\n  }}\n'
            f'  {{ {out_prep} {post_map_expr}; }}\n}}\n')


def compile_log(src: str, name: str) -> str:
    """NVRTC's log if the source fails to compile, else an empty string."""
    prog = nvrtc.createProgram(src, name + '.cu', [], [])
    options = [f'-I{path}' for path in INCLUDES] + ['--std=c++17', '-arch=compute_80']
    try:
        nvrtc.compileProgram(prog, options)
    except Exception:
        return nvrtc.getProgramLog(prog)
    return ''


def kernels():
    for module in (fk, ok):
        for value in vars(module).values():
            for k in (value.values() if isinstance(value, dict) else [value]):
                if isinstance(k, (fk.Elementwise, fk.Reduction)):
                    yield k


def main() -> int:
    count = failures = 0
    for k in kernels():
        make = elementwise_source if isinstance(k, fk.Elementwise) else reduction_source
        for tname in ('float16', 'float', 'double'):
            src = make(k, tname)
            log = compile_log(src, f'{k.name}_{tname}')
            count += 1
            if log:
                failures += 1
                print(f'--- {k.name} [{tname}] failed:\n{log[:2000]}\n{src}')
    print(f'{count} kernel instantiations compiled, {failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
