"""CUDA source of the N-d ``im2col`` and ``col2im`` elementwise kernels, generated per ndim.

A CuPy ``ElementwiseKernel`` needs its loops written out, so the source depends on the number of
spatial dimensions ``N``. :meth:`Im2colNDKernel.generate` and :meth:`Col2imNDKernel.generate`
return the four arguments of ``cupy.ElementwiseKernel`` (``in_params``, ``out_params``,
``operation``, ``name``). Generating is pure Python, so it works (and is tested) without CuPy;
the results are memoized with ``chainlet.backends.cuda.memoize`` (Chainer's ``cuda.memoize``:
a cache only while CuPy is present), so ``cuda.clear_memo()`` clears them.

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

The small string helpers (``vars``, ``mulexp``, ``andexp``, ``muladdexp``, ``succ_sublists``,
``map_``, ``Writer``) keep Chainer's names, for kernels written against them.

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
      col[i] = img[(in_0 + d_0 * c0)];
    } else {
      col[i] = (T)0;
    }
"""
from __future__ import annotations

import functools
from typing import Callable, List, Optional, Sequence, Tuple

_PARAMS = ('d', 'out', 'k', 's', 'p', 'di')


# -- string helpers, under Chainer's names (its pooling_nd_kernel and users' kernels use them) --

def mulexp(xs: Sequence[str], init: Optional[str] = None) -> str:
    """``'x0 * x1 * ...'`` (after ``init`` when given)."""
    return ' * '.join(([init] if init is not None else []) + list(xs))


def andexp(xs: Sequence[str], init: Optional[str] = None) -> str:
    """``'x0 && x1 && ...'`` (after ``init`` when given)."""
    return ' && '.join(([init] if init is not None else []) + list(xs))


def muladdexp(xs: Sequence[str], ys: Sequence[str], init: Optional[str] = None) -> str:
    """Horner form of a C-order flat index: ``'(y1 + x1 * (y0 + x0 * init))'``.

    ``ys`` are the digits and ``xs`` their extents, slowest first; ``init`` is the index of the
    enclosing block (without it the first digit starts the expression).
    """
    pairs = list(zip(xs, ys))
    if init is None:
        if not pairs:
            raise ValueError('muladdexp: expected at least one digit or an init')
        init, pairs = pairs[0][1], pairs[1:]
    return functools.reduce(lambda exp, xy: f'({xy[1]} + {xy[0]} * {exp})', pairs, init)


def map_(fn: Callable, *lists: Sequence) -> list:
    """``list(map(fn, *lists))``."""
    return list(map(fn, *lists))


def succ_sublists(xs: Sequence) -> list:
    """The successive tails of ``xs``: ``[xs, xs[1:], ..., xs[-1:]]``."""
    return [xs[i:] for i in range(len(xs))]


def vars(prefix: str, n: int) -> List[str]:  # noqa: A001  (Chainer's name)
    """``['prefix_0', ..., 'prefix_{n-1}']``: one C variable per spatial axis."""
    return [f'{prefix}_{i}' for i in range(n)]


class Writer:
    """Lines of C, indented by two spaces per open block.

    ``write(line, 'inc')`` opens a block after the line, ``'dec'`` closes one before it and
    ``'decinc'`` does both (for ``} else {``).
    """

    def __init__(self) -> None:
        self._indent = 0
        self._lines: List[str] = []

    def write(self, line: str, indent: Optional[str] = None) -> None:
        if indent in ('dec', 'decinc'):
            self._indent -= 1
        self._lines.append('  ' * self._indent + line)
        if indent in ('inc', 'decinc'):
            self._indent += 1

    def get(self) -> str:
        return '\n'.join(self._lines)


def _in_params(array: str, ndim: int) -> str:
    return ', '.join([f'raw T {array}'] + [f'int32 {name}' for prefix in _PARAMS
                                           for name in vars(prefix, ndim)])


def _digits(w: Writer, index: str, names: Sequence[str], sizes: Sequence[str],
            trailing: Sequence[str], offsets: Sequence[str] = ()) -> None:
    # Declarations that split the flat index into mixed-radix digits: names[j] counts sizes[j]
    # (plus offsets[j] when given), and everything in sizes[j+1:] + trailing varies faster.
    for j, (name, tail) in enumerate(zip(names, succ_sublists(list(sizes)))):
        faster = tail[1:] + list(trailing)
        digit = f'{index} / ({mulexp(faster)}) % {tail[0]}' if faster \
            else f'{index} % {tail[0]}'
        shift = f' + {offsets[j]}' if offsets else ''
        w.write(f'int {name} = {digit}{shift};')


def _memoized(generate: Callable[[int], Tuple[str, str, str, str]]) -> Callable:
    """Memoize ``generate(ndim)`` with ``chainlet.backends.cuda.memoize``, as Chainer does with
    ``cuda.memoize``: cached while CuPy is present, cleared by ``cuda.clear_memo()``."""
    memo: list = []

    @functools.wraps(generate)
    def call(ndim: int) -> Tuple[str, str, str, str]:
        if not memo:
            # Imported on first use: chainlet.utils sits below chainlet.backends.
            from chainlet.backends import cuda
            memoize = getattr(cuda, 'memoize', None)
            memo.append(generate if memoize is None else memoize()(generate))
        return memo[0](ndim)
    return call


class Im2colNDKernel:
    """Generator of the ``im2col_{N}d`` kernel (column entry <- image pixel or 0)."""

    def _generate(self, ndim: int) -> Tuple[str, str, str, str]:
        d, out, k, s, p, di = (vars(prefix, ndim) for prefix in _PARAMS)
        kx, out_x, in_ = vars('kx', ndim), vars('out_x', ndim), vars('in', ndim)
        w = Writer()
        w.write(f'ptrdiff_t c0 = i / ({mulexp(k + out)});')
        _digits(w, 'i', kx, k, out)
        _digits(w, 'i', out_x, out, [])
        for j in range(ndim):
            w.write(f'int {in_[j]} = {kx[j]} * {di[j]} + {out_x[j]} * {s[j]} - {p[j]};')
        inside = andexp([f'0 <= {in_[j]} && {in_[j]} < {d[j]}' for j in range(ndim)])
        w.write(f'if ({inside}) {{', 'inc')
        w.write(f'col[i] = img[{muladdexp(d, in_, "c0")}];')
        w.write('} else {', 'decinc')
        w.write('col[i] = (T)0;')
        w.write('}', 'dec')
        return _in_params('img', ndim), 'raw T col', w.get(), f'im2col_{ndim}d'

    @staticmethod
    def generate(ndim: int) -> Tuple[str, str, str, str]:
        """``(in_params, out_params, operation, name)`` of the kernel for ``ndim`` dimensions."""
        return _generate_im2col(ndim)


class Col2imNDKernel:
    """Generator of the ``col2im_{N}d`` kernel (image pixel <- sum of its column entries)."""

    def _generate(self, ndim: int) -> Tuple[str, str, str, str]:
        d, out, k, s, p, di = (vars(prefix, ndim) for prefix in _PARAMS)
        x, kx, t, out_x = (vars(prefix, ndim) for prefix in ('x', 'kx', 't', 'out_x'))
        w = Writer()
        w.write(f'ptrdiff_t c0 = i / ({mulexp(d)});')
        _digits(w, 'i', x, d, [], offsets=p)  # coordinates in the padded image
        w.write('T val = 0;')
        for j in range(ndim):
            w.write(f'for (int {kx[j]} = 0; {kx[j]} < {k[j]}; ++{kx[j]}) {{', 'inc')
            w.write(f'int {t[j]} = {x[j]} - {kx[j]} * {di[j]};')
            w.write(f'if ({t[j]} < 0 || {t[j]} % {s[j]} != 0) continue;')
            w.write(f'int {out_x[j]} = {t[j]} / {s[j]};')
            w.write(f'if ({out_x[j]} >= {out[j]}) continue;')
        w.write(f'val = val + col[{muladdexp(out, out_x, muladdexp(k, kx, "c0"))}];')
        for _ in range(ndim):
            w.write('}', 'dec')
        w.write('img[i] = val;')
        return _in_params('col', ndim), 'raw T img', w.get(), f'col2im_{ndim}d'

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
