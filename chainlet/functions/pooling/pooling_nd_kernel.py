"""CUDA source generators for N-D pooling (Chainer's ``pooling_nd_kernel`` module).

Pure Python: the classes write the parameter lists and the body of a CuPy
``ElementwiseKernel`` that visits, for every output element (forward) or every input element
(backward), its window; subclasses fill in ``before``, ``main`` and ``after``. ``generate``
is memoized per ``ndim`` with :func:`chainlet.backends.cuda.memoize`, so
``cuda.clear_memo()`` clears it. chainlet's own pooling does not use these (it works on
strided views, on NumPy and CuPy alike); they are here for code written against Chainer's
kernels. Importing this module needs no CuPy.

Example:
    >>> from chainlet.functions.pooling import pooling_nd_kernel
    >>> class Sum(pooling_nd_kernel.PoolingNDKernelForward):
    ...     def name(self): return 'sum'
    ...     def before(self): return 'T val = 0;'
    ...     def main(self, offset, xs): return 'val = val + in[{}];'.format(offset)
    ...     def after(self, out_xs): return 'out = val;'
    >>> in_params, out_params, operation, name = Sum()._generate(2)
    >>> name, out_params
    ('sum_pool_2d_fwd', 'T out')
"""
from __future__ import annotations

from typing import Any, Callable


def _build(klass: type, ndim: int) -> tuple:
    return klass()._generate(ndim)


_memo: list = []


def _generate_memoized(klass: type, ndim: int) -> tuple:
    """``klass()._generate(ndim)`` through ``chainlet.backends.cuda.memoize``."""
    if not _memo:
        # Imported on first use: functions/ loads nothing above the core at import time.
        from chainlet.backends import cuda
        _memo.append(cuda.memoize()(_build))
    return _memo[0](klass, ndim)


def _vars(prefix: str, n: int) -> list:
    """``['prefix_0', ..., 'prefix_{n-1}']``: one C variable per spatial axis."""
    return [f'{prefix}_{i}' for i in range(n)]


def _product(names: list) -> str:
    return ' * '.join(names)


class _Writer:
    """Lines of C with the indentation of their loop depth."""

    def __init__(self) -> None:
        self._lines: list = []
        self._depth = 0

    def open(self, line: str) -> None:
        self._lines.append('  ' * self._depth + line)
        self._depth += 1

    def close(self) -> None:
        self._depth -= 1
        self._lines.append('  ' * self._depth + '}')

    def write(self, text: str) -> None:
        self._lines.extend('  ' * self._depth + line for line in text.split('\n'))

    def get(self) -> str:
        return '\n'.join(self._lines)


class _KernelBase:
    """What the forward and backward generators share: the size variables of every axis."""

    def name(self) -> str:
        raise TypeError(f'{type(self).__name__} must define name()')

    def in_params(self) -> Any:
        """Extra input parameters: a list, or ``(raw_params, scalar_params)``."""
        return []

    def out_params(self) -> list:
        return []

    def before(self) -> str:
        raise TypeError(f'{type(self).__name__} must define before()')

    def _setup(self, ndim: int) -> None:
        self.ndim = ndim
        self.ds = _vars('d', ndim)
        self.outs = _vars('out', ndim)
        self.ks = _vars('k', ndim)
        self.ss = _vars('s', ndim)
        self.ps = _vars('p', ndim)

    def _params(self, first: str) -> str:
        # 2D: raw T <first>, [raws...], int32 d_0, int32 d_1, int32 out_0, ..., int32 p_1, ...
        extra = self.in_params()
        raws, scalars = (list(extra[0]), list(extra[1])) if type(extra) is tuple \
            else ([], list(extra))
        sizes = ['int32 ' + v for v in self.ds + self.outs + self.ks + self.ss + self.ps]
        return ', '.join(['raw T ' + first] + raws + sizes + scalars)

    @staticmethod
    def _unravel(names: list, dims: list, shifts: list) -> list:
        # 2D: int name_0 = i / (dim_1) % dim_0 + shift_0;  int name_1 = i % dim_1 + shift_1;
        lines = []
        for j, (name, shift) in enumerate(zip(names, shifts)):
            head, rest = dims[j], dims[j + 1:]
            plus = f' + {shift}' if shift is not None else ''
            if rest:
                lines.append(f'int {name} = i / ({_product(rest)}) % {head}{plus};')
            else:
                lines.append(f'int {name} = i % {head}{plus};')
        return lines

    @staticmethod
    def _loops(loop_vars: list, lows: list, highs: list, sizes: list, base: str,
               body: Callable[[str], str]) -> str:
        # Nested loops over the window; offset_j is the flat index up to axis j.
        w = _Writer()
        offsets = _vars('offset', len(loop_vars))
        inner_sizes = sizes[1:] + ['1']
        outer = [base] + offsets[:-1]
        for v, lo, hi, off, prev, size in zip(loop_vars, lows, highs, offsets, outer,
                                              inner_sizes):
            w.open(f'for (int {v} = {lo}; {v} < {hi}; ++{v}) {{')
            w.write(f'int {off} = {size} * ({v} + {prev});')
        w.write(body(offsets[-1]))
        for _ in loop_vars:
            w.close()
        return w.get()


class PoolingNDKernelForward(_KernelBase):
    """Forward kernel: one thread per output element, looping over its window of ``in``.

    Subclasses define ``name()``, ``before()``, ``main(offset, xs)`` (``in[offset]`` is the
    input cell at window position ``xs``) and ``after(out_xs)``.
    """

    def main(self, offset: str, xs: list) -> str:
        raise TypeError(f'{type(self).__name__} must define main()')

    def after(self, out_xs: list) -> str:
        raise TypeError(f'{type(self).__name__} must define after()')

    @classmethod
    def generate(klass, ndim: int) -> tuple:
        """``(in_params, out_params, operation, name)`` of the kernel for ``ndim`` axes."""
        return _generate_memoized(klass, ndim)

    def _generate(self, ndim: int) -> tuple:
        self._setup(ndim)
        in_params = self._params('in')
        out_params = ', '.join(['T out'] + self.out_params())
        name = f'{self.name()}_pool_{ndim}d_fwd'
        return in_params, out_params, self._operation(), name

    def _operation(self) -> str:
        c0 = [f'int c0 = i / ({_product(self.outs)});']
        out_xs = _vars('out_x', self.ndim)
        decls = self._unravel(out_xs, self.outs, [None] * self.ndim)
        x0s = _vars('in_x0', self.ndim)
        x1s = _vars('in_x1', self.ndim)
        bounds = []
        for x0, x1, d, o, k, s, p in zip(x0s, x1s, self.ds, out_xs, self.ks, self.ss,
                                         self.ps):
            bounds.append(f'int {x0} = max(0, {o} * {s} - {p});')
            bounds.append(f'int {x1} = min({d}, {o} * {s} + {k} - {p});')
        xs = _vars('x', self.ndim)
        before = self.before()  # first: subclasses may set up names that main() uses
        loops = self._loops(xs, x0s, x1s, self.ds, 'd_0 * c0',
                            lambda offset: self.main(offset, xs))
        return '\n'.join(c0 + decls + bounds + [before, loops, self.after(out_xs)])


class PoolingNDKernelBackward(_KernelBase):
    """Backward kernel: one thread per input element, looping over the outputs that read it.

    Subclasses define ``name()``, ``before()``, ``main(offset, xs, out_xs)`` (``gy[offset]``
    is the gradient of output ``out_xs``) and ``after(xs)``.
    """

    def main(self, offset: str, xs: list, out_xs: list) -> str:
        raise TypeError(f'{type(self).__name__} must define main()')

    def after(self, xs: list) -> str:
        raise TypeError(f'{type(self).__name__} must define after()')

    @classmethod
    def generate(klass, ndim: int) -> tuple:
        """``(in_params, out_params, operation, name)`` of the kernel for ``ndim`` axes."""
        return _generate_memoized(klass, ndim)

    def _generate(self, ndim: int) -> tuple:
        self._setup(ndim)
        in_params = self._params('gy')
        out_params = ', '.join(['T gx'] + self.out_params())
        name = f'{self.name()}_pool_{ndim}d_bwd'
        return in_params, out_params, self._operation(), name

    def _operation(self) -> str:
        c0 = [f'int c0  = i / ({_product(self.ds)});']
        xs = _vars('x', self.ndim)
        decls = self._unravel(xs, self.ds, self.ps)
        o0s = _vars('out_x0', self.ndim)
        o1s = _vars('out_x1', self.ndim)
        bounds = []
        for o0, o1, x, o, k, s in zip(o0s, o1s, xs, self.outs, self.ks, self.ss):
            bounds.append(f'int {o0} = max(0, ({x} - {k} + {s}) / {s});')
            bounds.append(f'int {o1} = min({o}, ({x} + {s}) / {s});')
        out_xs = _vars('out_x', self.ndim)
        before = self.before()
        loops = self._loops(out_xs, o0s, o1s, self.outs, 'out_0 * c0',
                            lambda offset: self.main(offset, xs, out_xs))
        return '\n'.join(c0 + decls + bounds + [before, loops, self.after(xs)])


__all__ = ['PoolingNDKernelBackward', 'PoolingNDKernelForward']
