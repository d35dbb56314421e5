"""CUDA source of the N-d ``im2col`` and ``col2im`` elementwise kernels, generated per ndim.

A CuPy ``ElementwiseKernel`` needs its loops written out, so the source depends on the number of
spatial dimensions ``N``. :meth:`Im2colNDKernel.generate` and :meth:`Col2imNDKernel.generate`
return the four arguments of ``cupy.ElementwiseKernel`` (``in_params``, ``out_params``,
``operation``, ``name``). Generating is pure Python, so it works (and is tested) without CuPy;
when CuPy is loaded the results are memoized with ``cupy.memoize`` (as Chainer's
``cuda.memoize``), so ``cupy.clear_memo()`` clears them.

Both kernels take the scalar parameters in the same order: the image size ``d_j``, the number of
window positions ``out_j``, the kernel size ``k_j``, the stride ``s_j``, the padding ``p_j`` and
the dilation ``di_j``, for ``j = 0 .. N-1``. The column array has the layout
``(n, c, k_0, .., k_{N-1}, out_0, .., out_{N-1})``; the image ``(n, c, d_0, .., d_{N-1})``; both
are indexed as C-contiguous (``raw``) arrays. The output is ``raw`` too and the kernel is
launched with ``size=`` the output's size (Chainer passes a non-raw output instead; a ``raw`` one
leaves nothing for the launcher to infer).

* ``im2col``: one thread per column entry; it reads the image pixel under that tap or 0 when the
  tap lies in the padding.
* ``col2im``: one thread per image pixel; it visits every kernel tap and adds the column entries
  of the windows that cover the pixel, so no atomic adds are needed and the result is
  deterministic.

Example:
    >>> in_params, out_params, operation, name = Im2colNDKernel.generate(1)
    >>> in_params
    'raw T img, int32 d_0, int32 out_0, int32 k_0, int32 s_0, int32 p_0, int32 di_0'
    >>> out_params, name
    ('raw T col', 'im2col_1d')
    >>> print(operation)
    ptrdiff_t c0 = i / (k_0 * out_0);
    int kx_0 = i / (out_0) % k_0;
    int out_x_0 = i % out_0;
    int in_0 = kx_0 * di_0 + out_x_0 * s_0 - p_0;
    if (0 <= in_0 && in_0 < d_0) {
      col[i] = img[in_0 + d_0 * c0];
    } else {
      col[i] = (T)0;
    }
"""
from __future__ import annotations

import functools
import sys
from typing import Callable, List, Sequence, Tuple

_PARAMS = ('d', 'out', 'k', 's', 'p', 'di')


def _names(prefix: str, ndim: int) -> List[str]:
    return [f'{prefix}_{j}' for j in range(ndim)]


def _product(names: Sequence[str]) -> str:
    return ' * '.join(names)


def _in_params(array: str, ndim: int) -> str:
    scalars = [f'int32 {name}' for prefix in _PARAMS for name in _names(prefix, ndim)]
    return ', '.join([f'raw T {array}'] + scalars)


def _digits(index: str, names: Sequence[str], sizes: Sequence[str], trailing: Sequence[str],
            offsets: Sequence[str] = ()) -> List[str]:
    # Declarations that split the flat index into mixed-radix digits: names[j] counts sizes[j]
    # (plus offsets[j] when given), and everything in sizes[j+1:] + trailing varies faster.
    lines = []
    for j, name in enumerate(names):
        faster = list(sizes[j + 1:]) + list(trailing)
        digit = f'{index} / ({_product(faster)}) % {sizes[j]}' if faster \
            else f'{index} % {sizes[j]}'
        shift = f' + {offsets[j]}' if offsets else ''
        lines.append(f'int {name} = {digit}{shift};')
    return lines


def _flat(digits: Sequence[str], sizes: Sequence[str], outer: str) -> str:
    # C-order flat index of ``digits`` (with extents ``sizes``) inside block number ``outer``.
    expr = outer
    for j, (digit, size) in enumerate(zip(digits, sizes)):
        expr = f'{digit} + {size} * ' + (expr if j == 0 else f'({expr})')
    return expr


def _memoized(generate: Callable[[int], Tuple[str, str, str, str]]) -> Callable:
    """Memoize ``generate(ndim)`` with ``cupy.memoize`` once CuPy is loaded, as Chainer does."""
    memo: list = []

    @functools.wraps(generate)
    def call(ndim: int) -> Tuple[str, str, str, str]:
        if not memo:
            cupy = sys.modules.get('cupy')
            memoize = getattr(cupy, 'memoize', None)
            if memoize is None:
                return generate(ndim)  # without CuPy nothing compiles: no need to cache
            memo.append(memoize(for_each_device=False)(generate))
        return memo[0](ndim)
    return call


class Im2colNDKernel:
    """Generator of the ``im2col_{N}d`` kernel (column entry <- image pixel or 0)."""

    def _generate(self, ndim: int) -> Tuple[str, str, str, str]:
        d, out, k, s, p, di = (_names(prefix, ndim) for prefix in _PARAMS)
        kx, out_x, in_ = _names('kx', ndim), _names('out_x', ndim), _names('in', ndim)
        lines = [f'ptrdiff_t c0 = i / ({_product(k + out)});']
        lines += _digits('i', kx, k, out)
        lines += _digits('i', out_x, out, [])
        lines += [f'int {in_[j]} = {kx[j]} * {di[j]} + {out_x[j]} * {s[j]} - {p[j]};'
                  for j in range(ndim)]
        inside = ' && '.join(f'0 <= {in_[j]} && {in_[j]} < {d[j]}' for j in range(ndim))
        lines += [f'if ({inside}) {{',
                  f'  col[i] = img[{_flat(in_, d, "c0")}];',
                  '} else {',
                  '  col[i] = (T)0;',
                  '}']
        return _in_params('img', ndim), 'raw T col', '\n'.join(lines), f'im2col_{ndim}d'

    @staticmethod
    def generate(ndim: int) -> Tuple[str, str, str, str]:
        """``(in_params, out_params, operation, name)`` of the kernel for ``ndim`` dimensions."""
        return _generate_im2col(ndim)


class Col2imNDKernel:
    """Generator of the ``col2im_{N}d`` kernel (image pixel <- sum of its column entries)."""

    def _generate(self, ndim: int) -> Tuple[str, str, str, str]:
        d, out, k, s, p, di = (_names(prefix, ndim) for prefix in _PARAMS)
        x, kx, t, out_x = (_names(prefix, ndim) for prefix in ('x', 'kx', 't', 'out_x'))
        lines = [f'ptrdiff_t c0 = i / ({_product(d)});']
        # Pixel coordinates in the padded image.
        lines += _digits('i', x, d, [], offsets=p)
        lines.append('T val = 0;')
        indent = ''
        for j in range(ndim):
            lines += [f'{indent}for (int {kx[j]} = 0; {kx[j]} < {k[j]}; ++{kx[j]}) {{',
                      f'{indent}  int {t[j]} = {x[j]} - {kx[j]} * {di[j]};',
                      f'{indent}  if ({t[j]} < 0 || {t[j]} % {s[j]} != 0) continue;',
                      f'{indent}  int {out_x[j]} = {t[j]} / {s[j]};',
                      f'{indent}  if ({out_x[j]} >= {out[j]}) continue;']
            indent += '  '
        index = _flat(out_x, out, f'({_flat(kx, k, "c0")})')
        lines.append(f'{indent}val = val + col[{index}];')
        for j in reversed(range(ndim)):
            lines.append('  ' * j + '}')
        lines.append('img[i] = val;')
        return _in_params('col', ndim), 'raw T img', '\n'.join(lines), f'col2im_{ndim}d'

    @staticmethod
    def generate(ndim: int) -> Tuple[str, str, str, str]:
        """``(in_params, out_params, operation, name)`` of the kernel for ``ndim`` dimensions."""
        return _generate_col2im(ndim)


_im2col_nd_kernel = Im2colNDKernel()
_col2im_nd_kernel = Col2imNDKernel()


@_memoized
def _generate_im2col(ndim: int) -> Tuple[str, str, str, str]:
    # Looked up on the instance at call time, so patching ``Im2colNDKernel._generate`` works.
    return _im2col_nd_kernel._generate(ndim)


@_memoized
def _generate_col2im(ndim: int) -> Tuple[str, str, str, str]:
    return _col2im_nd_kernel._generate(ndim)
