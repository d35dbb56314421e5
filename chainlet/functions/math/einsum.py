"""``einsum``: Einstein summation, differentiable in every operand.

The wrapper parses the subscripts (string or sublist form, implicit or explicit output, with
``...``), replaces ``...`` by unused letters and broadcasts size-one ellipsis dimensions, so
the :class:`EinSum` node only sees explicit letters and matching sizes. The gradient of an
operand is again an einsum: the output subscripts take the operand's place and the operand's
subscripts become the output. Letters summed only inside that operand are broadcast back, and
repeated letters (diagonals, as in ``'ii->i'``) are scattered back onto the diagonal.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

# The subscript letters einsum accepts (Chainer's public constants).
einsum_symbols = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
einsum_symbols_set = set(einsum_symbols)

_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
_ELLIPSIS = '@'  # one character standing for '...' while parsing


def _unique(subs: str) -> str:
    return ''.join(dict.fromkeys(subs))


def _einsum(xp: Any, in_subs: list, out_sub: str, arrays: tuple) -> Any:
    dtype = arrays[0].dtype
    if dtype == numpy.float16:
        # Sum products in float32: float16 accumulation loses digits quickly.
        arrays = tuple(a.astype(numpy.float32) for a in arrays)
    spec = ','.join(in_subs) + '->' + out_sub
    y = xp.einsum(spec, *arrays, optimize=len(arrays) > 2)
    y = xp.asarray(y)
    if y.dtype != dtype:
        y = y.astype(dtype)
    elif any(xp.may_share_memory(y, a) for a in arrays):
        y = y.copy()  # a diagonal or transpose of an input comes back as a view
    return y


class EinSum(FunctionNode):
    """``y = einsum(in_subs -> out_sub, *operands)`` with explicit letters only."""

    def __init__(self, in_subs: list, out_sub: str) -> None:
        self.in_subs = list(in_subs)
        self.out_sub = out_sub

    def _check_arrays(self, in_data):
        names = [f'operands[{i}]' for i in range(len(in_data))]
        for name, x in zip(names, in_data):
            type_check.float_input('einsum', name, x)
        type_check.same_dtype('einsum', names, in_data)

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        return _einsum(xp, self.in_subs, self.out_sub, inputs),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.broadcast import broadcast_to
        from chainlet.functions.array.reshape import reshape
        xs = self.get_retained_inputs()
        gy = grad_outputs[0]
        sizes = {}
        for subs, x in zip(self.in_subs, xs):
            sizes.update(zip(subs, x.shape))
        ret = []
        for i in indexes:
            subs = self.in_subs[i]
            others = [(s, x) for j, (s, x) in enumerate(zip(self.in_subs, xs)) if j != i]
            available = set(self.out_sub).union(*[set(s) for s, _ in others])
            unique = _unique(subs)
            present = ''.join(c for c in unique if c in available)
            if not others and present == self.out_sub:
                g = gy
            else:
                g = EinSum([self.out_sub] + [s for s, _ in others], present).apply(
                    (gy,) + tuple(x for _, x in others))[0]
            if present != unique:
                # Letters summed only inside this operand: its gradient is constant along them.
                g = reshape(g, tuple(sizes[c] if c in present else 1 for c in unique))
                g = broadcast_to(g, tuple(sizes[c] for c in unique))
            if unique != subs:
                g = _DiagScatter(unique, subs, xs[i].shape).apply((g,))[0]
            ret.append(g)
        return tuple(ret)


class DiagEinSum(EinSum):
    """An einsum whose output may hold letters absent from the inputs (broadcast to the
    sizes in ``out_shape``) and repeated letters (the result sits on that diagonal, zeros
    elsewhere), e.g. ``'i->ij'`` or ``'i->ii'``.

    It is the adjoint of reading a diagonal or summing a letter out, and it is what Chainer's
    einsum module names ``DiagEinSum``. Its gradients are plain einsums (the backward of
    :class:`EinSum` applies unchanged).

    Args:
        in_subs: Input subscripts, a list or one comma-separated string (``',i'``).
        out_sub: Output subscripts.
        out_shape: Output shape; needed when ``out_sub`` has letters the inputs lack.
    """

    def __init__(self, in_subs: Any, out_sub: str, out_shape: Any = None) -> None:
        if isinstance(in_subs, str):
            in_subs = in_subs.split(',')
        super().__init__(in_subs, out_sub)
        self.out_shape = None if out_shape is None else tuple(out_shape)

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        sizes = {}
        for subs, x in zip(self.in_subs, inputs):
            sizes.update(zip(subs, x.shape))
        if self.out_shape is not None:
            sizes.update(zip(self.out_sub, self.out_shape))
        unique = _unique(self.out_sub)
        missing = [c for c in unique if c not in sizes]
        if missing:
            raise ValueError(f'DiagEinSum: output letters {missing} need out_shape')
        present = ''.join(c for c in unique if c in ''.join(self.in_subs))
        y = _einsum(xp, self.in_subs, present, inputs)
        y = y.reshape(tuple(sizes[c] if c in present else 1 for c in unique))
        y = xp.broadcast_to(y, tuple(sizes[c] for c in unique))
        if unique == self.out_sub:
            return xp.ascontiguousarray(y),
        return _diag_scatter(xp, y, unique, self.out_sub,
                             tuple(sizes[c] for c in self.out_sub)),


def _diag_scatter(xp: Any, g: Any, unique: str, subs: str, shape: tuple) -> Any:
    gx = xp.zeros(shape, g.dtype)
    n = len(unique)
    grids = {}
    for k, c in enumerate(unique):
        view = [1] * n
        view[k] = g.shape[k]
        grids[c] = xp.arange(g.shape[k]).reshape(view)
    gx[tuple(grids[c] for c in subs)] = g
    return gx


class _DiagScatter(FunctionNode):
    """Place an array indexed by ``unique`` onto the (generalised) diagonal of a zero array
    indexed by ``subs``, e.g. ``g[i] -> gx[i, i]`` for ``'i'`` and ``'ii'``.

    The adjoint is reading the diagonal back, which is ``einsum(subs -> unique)``.
    """

    def __init__(self, unique: str, subs: str, shape: tuple) -> None:
        self.unique = unique
        self.subs = subs
        self.shape = shape

    def forward(self, inputs):
        g, = inputs
        return _diag_scatter(backend.get_array_module(g), g, self.unique, self.subs,
                             self.shape),

    def backward(self, indexes, grad_outputs):
        return EinSum([self.subs], self.unique).apply(grad_outputs)


def _parse(args: tuple) -> tuple:
    """Return ``(in_subs, out_sub or None, operands)`` with ``'@'`` for each ellipsis."""
    if not args:
        raise ValueError('einsum: expected subscripts and operands, got nothing')
    if isinstance(args[0], str):
        spec = args[0].replace(' ', '')
        operands = list(args[1:])
        for c in spec:
            if c not in _LETTERS and c not in '.,->':
                raise ValueError(f'einsum: argument subscripts: invalid character {c!r} in '
                                 f'{args[0]!r}')
        if spec.count('->') > 1 or spec.count('-') != spec.count('>') or \
                spec.count('-') != spec.count('->'):
            raise ValueError(f'einsum: argument subscripts: expected at most one "->", got '
                             f'{args[0]!r}')
        spec = spec.replace('...', _ELLIPSIS)
        if '.' in spec:
            raise ValueError(f'einsum: argument subscripts: a "." that is not part of "..." in '
                             f'{args[0]!r}')
        if '->' in spec:
            given, out = spec.split('->')
        else:
            given, out = spec, None
        return given.split(','), out, operands

    # Sublist form: op0, sublist0, op1, sublist1, ..., [sublist_out]
    def letters(sublist: Any) -> str:
        out = ''
        for s in sublist:
            if s is Ellipsis:
                out += _ELLIPSIS
            elif isinstance(s, numbers.Integral) and not isinstance(s, bool) and \
                    0 <= int(s) < len(_LETTERS):
                out += _LETTERS[int(s)]
            else:
                raise ValueError(f'einsum: sublists must hold ints in [0, {len(_LETTERS)}) or '
                                 f'Ellipsis, got {s!r}')
        return out

    operands = list(args[0::2][:len(args) // 2])
    ins = [letters(s) for s in args[1::2][:len(args) // 2]]
    result = letters(args[-1]) if len(args) % 2 else None
    return ins, result, operands


def _data(x: Any, i: int) -> Any:
    if isinstance(x, Variable):
        return x.array
    if backend.is_array(x):
        return x
    raise type_check.fail('einsum', f'operands[{i}]', 'a Variable or an ndarray',
                          type(x).__name__)


def einsum(*operands: Any) -> Variable:
    """Einstein summation over the operands, as :func:`numpy.einsum`.

    Two call forms are accepted, as in Chainer and NumPy: ``einsum('ij,jk->ik', a, b)`` and
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. Without ``->`` the output holds the letters
    that appear once, in alphabetical order (after the ellipsis dimensions). ``...`` stands
    for leading dimensions that broadcast; repeated letters in one operand take a diagonal;
    letters missing from the output are summed.

    Args:
        *operands: The subscripts followed by the operands (Variables or arrays of one float
            dtype), or the sublist form.

    Returns:
        Variable holding the result.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> a = np.arange(6.0).reshape(2, 3)
        >>> b = np.ones((3, 4))
        >>> F.einsum('ij,jk->ik', a, b).shape
        (2, 4)
        >>> F.einsum('ii', np.eye(3)).array
        array(3.)
        >>> F.einsum('...i,...i', np.ones((5, 2, 3)), np.ones(3)).shape
        (5, 2)
    """
    from chainlet.functions.array.broadcast import broadcast_to
    ins, out, ops = _parse(operands)
    if len(ins) != len(ops):
        raise ValueError(f'einsum: expected {len(ins)} operands for the subscripts, got '
                         f'{len(ops)}')
    arrays = [_data(x, i) for i, x in enumerate(ops)]
    used = set(''.join(ins) + (out or ''))
    # Shapes of the ellipsis parts; they broadcast like NumPy shapes.
    ell_shapes = []
    for i, (subs, a) in enumerate(zip(ins, arrays)):
        if subs.count(_ELLIPSIS) > 1:
            raise ValueError(f'einsum: subscripts of operands[{i}]: more than one "..."')
        n_letters = len(subs) - subs.count(_ELLIPSIS)
        if (a.ndim != n_letters) if _ELLIPSIS not in subs else (a.ndim < n_letters):
            raise type_check.fail('einsum', f'operands[{i}]',
                                  f'a shape that fits subscripts {subs.replace("@", "...")!r}',
                                  f'shape {a.shape}')
        if _ELLIPSIS in subs:
            start = subs.index(_ELLIPSIS)
            ell_shapes.append(a.shape[start:start + a.ndim - n_letters])
        else:
            ell_shapes.append(None)
    try:
        ell = numpy.broadcast_shapes(*[s for s in ell_shapes if s is not None])
    except ValueError:
        shapes = [s for s in ell_shapes if s is not None]
        raise type_check.InvalidType('"..." dimensions that broadcast', str(shapes),
                                     f'einsum: the "..." dimensions of the operands do not '
                                     f'broadcast: {shapes}') from None
    free = [c for c in _LETTERS if c not in used]
    if len(free) < len(ell):
        raise ValueError('einsum: too many dimensions under "..." for the letters left')
    ell_letters = ''.join(free[:len(ell)])
    if out is None:
        once = [c for c in sorted(set(''.join(ins)) - {_ELLIPSIS})
                if ''.join(ins).count(c) == 1]
        out = (ell_letters if any(s is not None for s in ell_shapes) else '') + ''.join(once)
    else:
        if out.count(_ELLIPSIS) > 1 or len(_unique(out)) != len(out):
            raise ValueError(f'einsum: output subscripts {out.replace("@", "...")!r} repeat a '
                             f'letter')
        for c in out:
            if c != _ELLIPSIS and c not in ''.join(ins):
                raise ValueError(f'einsum: output letter {c!r} does not appear in the inputs')
        has_ell = any(s is not None for s in ell_shapes)
        if _ELLIPSIS in out and not has_ell:
            raise ValueError('einsum: "..." in the output but in no input')
        if has_ell and _ELLIPSIS not in out and ell:
            # NumPy sums such dimensions; Chainer leaves this undefined and raises.
            raise ValueError('einsum: "..." dimensions of the inputs are missing from the '
                             'output subscripts; write "..." in the output')
        out = out.replace(_ELLIPSIS, ell_letters)
    new_ins = []
    xs = list(ops)
    for i, (subs, a, eshape) in enumerate(zip(ins, arrays, ell_shapes)):
        if eshape is not None:
            mine = ell_letters[len(ell) - len(eshape):]
            subs = subs.replace(_ELLIPSIS, mine)
            target = ell[len(ell) - len(eshape):]
            if eshape != target:
                start = ins[i].index(_ELLIPSIS)
                xs[i] = broadcast_to(xs[i], a.shape[:start] + target +
                                     a.shape[start + len(eshape):])
        new_ins.append(subs)
    sizes: dict = {}
    for i, (subs, x) in enumerate(zip(new_ins, xs)):
        shape = x.shape
        for c, n in zip(subs, shape):
            if sizes.setdefault(c, n) != n:
                raise type_check.fail('einsum', f'operands[{i}]',
                                      f'length {sizes[c]} for letter {c!r} (as elsewhere)',
                                      f'shape {shape}')
    return EinSum(new_ins, out).apply(tuple(xs))[0]
