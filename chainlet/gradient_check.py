"""Numerical gradient checks: ``numerical_grad``, ``check_backward``, ``check_double_backward``.

``check_backward`` compares the backward of a function with central differences along one random
direction (as Chainer does): with inputs ``x``, a direction ``d`` and output gradients ``gy``,
``sum(gx * d)`` from backward must match ``(g(e) - g(-e)) / 2e`` where
``g(t) = sum(f(x + t d) * gy)``. The numerical side is evaluated in the inputs' dtypes unless
``dtype`` says otherwise (Chainer's default); with ``dtype=numpy.float64`` the check measures the
analytic gradient of low-precision dtypes against the exact function, which is what
``chainlet.testing``'s function test cases do.

Example:
    >>> import numpy as np
    >>> import chainlet.functions as F
    >>> from chainlet import gradient_check
    >>> x = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    >>> gy = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    >>> gradient_check.check_backward(F.tanh, x, gy, atol=1e-4, rtol=1e-3, dtype=np.float64)
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, cast

import numpy

import chainlet
from chainlet import backend
from chainlet.variable import Variable


class NondifferentiableError(Exception):
    """The function is not differentiable at the point where the gradient was checked."""


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


def _float64_copies(ys: Any) -> list:
    # Outputs may alias the perturbed input (an identity), so they are copied at once.
    out = []
    for y in _as_tuple(ys):
        if isinstance(y, Variable):
            y = y.array
        if y is not None:
            y = backend.get_array_module(y).array(y, dtype=numpy.float64, copy=True)
        out.append(y)
    return out


def numerical_grad(f: Callable[[], Any], inputs: Sequence[Any], grad_outputs: Sequence[Any],
                   eps: float = 1e-3, detect_nondifferentiable: bool = False,
                   diff_atol: float = 0.0, diff_rtol: float = 1e-2,
                   center_outputs: Any = None) -> list:
    """Central-difference gradient of ``sum(f() * grad_outputs)`` for every element of ``inputs``.

    ``f`` takes no argument and reads ``inputs``, which are perturbed in place, one element at a
    time, and restored. Outputs are compared in float64; the gradients come back in the inputs'
    dtypes. NumPy and CuPy arrays both work (not mixed).

    Args:
        f: Callable returning an output array (or Variable) or a sequence of them.
        inputs: Float arrays that ``f`` reads.
        grad_outputs: Weights of the outputs: arrays, scalars or ``None`` (ignored).
        eps: Step size (positive).
        detect_nondifferentiable: Evaluate ``f`` at five points (``x``, ``x +- eps/2``,
            ``x +- eps``) and raise :class:`NondifferentiableError` where the outputs are not
            close to a quadratic in the step, or turn finite or non-finite within it. The
            gradient is then accurate to third order in ``eps``.
        diff_atol, diff_rtol: Tolerances of that test, absolute and relative to the range of each
            output over the five points.
        center_outputs: Accepted for Chainer compatibility; the centre is always recomputed in
            float64.

    Returns:
        A list with one gradient array per input.

    Example:
        >>> import numpy as np
        >>> from chainlet import gradient_check
        >>> x = np.array([1.0, 2.0])
        >>> gradient_check.numerical_grad(lambda: (x ** 2,), (x,), (np.ones(2),))[0]
        array([2., 4.])
    """
    if not eps > 0:
        raise AssertionError(f'numerical_grad: argument eps: expected a positive step, got {eps}')
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if x.dtype.kind != 'f':
            raise RuntimeError(f'numerical_grad: inputs[{i}]: expected a floating-point dtype, '
                               f'got {x.dtype}')
    gys = tuple(None if g is None else numpy.float64(cast(Any, g)) if numpy.isscalar(g)
                else g.astype(numpy.float64) for g in grad_outputs)
    arrays = [a for a in inputs + gys if a is not None and not numpy.isscalar(a)]
    modules = {backend.get_array_module(a) for a in arrays}
    if len(modules) > 1:
        raise RuntimeError('numerical_grad: inputs and grad_outputs mix CPU and GPU arrays; '
                           'move them to one device')
    xp = modules.pop() if modules else numpy
    grads = [xp.zeros(x.shape, numpy.float64) for x in inputs]
    steps = (-1.0, -0.5, 0.0, 0.5, 1.0) if detect_nondifferentiable else (-1.0, 1.0)
    with chainlet.using_config('type_check', False):
        center = _float64_copies(f()) if detect_nondifferentiable else None
        for i_in, (x, gx) in enumerate(zip(inputs, grads)):
            orig_x = x.copy()
            for idx in numpy.ndindex(x.shape):
                samples = []
                for k in steps:
                    if k == 0.0:
                        samples.append(center)
                        continue
                    x[idx] = orig_x[idx] + k * eps
                    samples.append(_float64_copies(f()))
                    x[idx] = orig_x[idx]
                if detect_nondifferentiable:
                    _check_differentiable(samples, steps, xp, eps, diff_atol, diff_rtol,
                                          f'inputs[{i_in}][{idx}]')
                gx[idx] = _difference(samples, gys, eps)
    return [g.astype(x.dtype, copy=False) for g, x in zip(grads, inputs)]


def _difference(samples: list, gys: tuple, eps: float) -> Any:
    """Derivative of sum(y * gy) from the samples: 2 points (1st order) or 5 (3rd order)."""
    total = 0.0
    for i_out, gy in enumerate(gys):
        if gy is None or samples[0][i_out] is None:
            continue
        ys = [s[i_out] for s in samples]
        if len(ys) == 2:
            num, den = ys[1] - ys[0], 2 * eps
        else:  # Richardson: cancels the eps**2 term of the central difference
            num, den = -ys[4] + 8 * ys[3] - 8 * ys[1] + ys[0], 6 * eps
        total = total + (num * gy).sum() / den
    return total


def _check_differentiable(samples: list, steps: tuple, xp: Any, eps: float, atol: float,
                          rtol: float, where: str) -> None:
    outs = [i for i, y in enumerate(samples[0]) if y is not None and y.size]
    if not outs:
        return
    nonfinite = False
    for i in outs:
        finite = [xp.isfinite(s[i]) for s in samples]
        if any(bool((finite[0] != fk).any()) for fk in finite[1:]):
            raise NondifferentiableError(
                f'the function is not differentiable at {where} (eps={eps}): output {i} '
                f'turns between finite and non-finite within the step; samples at x + '
                f'{list(steps)} * eps: {[backend.to_cpu(s[i]) for s in samples]}')
        nonfinite |= not all(bool(fk.all()) for fk in finite)
    if nonfinite:  # consistently non-finite (log below 0, say): nothing to fit
        return
    # A function differentiable at x is close to a quadratic in the step over [-eps, eps]; a kink,
    # a jump or a pole leaves a fitting error that is large compared with the output's range.
    t = numpy.arange(len(samples), dtype=numpy.float64)
    vander = numpy.stack([numpy.ones_like(t), t, t * t], axis=1)
    residual_op = numpy.eye(len(t)) - vander @ numpy.linalg.pinv(vander)
    for i in outs:
        ys = numpy.stack([backend.to_cpu(s[i]).ravel() for s in samples])  # (5, n)
        error = numpy.sqrt(((residual_op @ ys) ** 2).mean(axis=0))
        spread = ys.max(axis=0) - ys.min(axis=0)
        bad = (error > atol + rtol * spread) & (spread > 0)
        if bad.any():
            j = int(numpy.argmax(bad))
            raise NondifferentiableError(
                f'the function is not differentiable at {where} (eps={eps}): output {i}, '
                f'element {j}, deviates from a quadratic in the step by {error[j]:.3g} > '
                f'diff_atol {atol} + diff_rtol {rtol} * range {spread[j]:.3g}; samples at x + '
                f'{list(steps)} * eps: {ys[:, j].tolist()}')


class _CheckBackward:
    """Holder of Chainer's private sampling helper, used by :func:`check_backward`."""

    @staticmethod
    def _sample_unit_vector(size: int, xp: Any = numpy, rng: Any = None) -> Any:
        """A random unit vector whose components all have magnitude >= 0.1/sqrt(size).

        Chainer 7's sampling, draw for draw: Gaussian components from ``rng`` (NumPy's global
        random state by default), each replaced by the weighted quadratic mean of its normalized
        magnitude and ``1/sqrt(size)`` (so no element of the inputs stays nearly still), with its
        sign. Tests written for Chainer seed NumPy and set tolerances for the directions this
        draws, so chainlet draws the same ones.
        """
        rng = numpy.random if rng is None else rng
        d = rng.normal(size=(size,))
        if size == 0:
            return d if xp is numpy else xp.asarray(d)
        sq = numpy.square(d)
        v = numpy.copysign(numpy.sqrt((0.99 / sq.sum()) * sq + 0.01 / size), d)
        return v if xp is numpy else xp.asarray(v)


def _random_direction(arrays: Sequence[Any], rng: Any) -> list:
    sizes = [int(a.size) for a in arrays]
    v = _CheckBackward._sample_unit_vector(sum(sizes), numpy, rng)
    dirs, start = [], 0
    for a, n in zip(arrays, sizes):
        dirs.append(v[start:start + n].reshape(a.shape))
        start += n
    return dirs


def _outputs_tuple(ys: Any, what: str) -> tuple:
    ys = _as_tuple(ys)
    for i, y in enumerate(ys):
        if not isinstance(y, Variable):
            raise TypeError(f'{what}: the function must return Variables, output {i} is '
                            f'{type(y).__name__}')
    return ys


def check_backward(func: Callable[..., Any], x_data: Any, y_grad: Any,
                   params: Variable | Sequence[Variable] = (), eps: float = 1e-3,
                   atol: float = 1e-5, rtol: float = 1e-4,
                   no_grads: Optional[Sequence[bool]] = None, dtype: Any = None,
                   detect_nondifferentiable: bool = False, seed: Optional[int] = None) -> None:
    """Check the backward of ``func`` against central differences along a random direction.

    Args:
        func: Callable taking Variables (one per entry of ``x_data``) and returning a Variable
            or a tuple of Variables.
        x_data: Input array or tuple of arrays. Non-float inputs get no gradient check.
        y_grad: Output gradient array or tuple (``None`` for one size-1 output: ones).
        params: A Variable or a sequence of Variables used inside ``func`` (e.g. link
            parameters) whose gradients are also checked.
        eps: Finite-difference step.
        atol, rtol: Tolerances of the directional derivative comparison.
        no_grads: Per input, ``True`` to skip its gradient (must come back ``None``).
        dtype: Dtype of the numerical evaluation: the float inputs (skipped ones too) and
            ``params`` are cast to it for the finite differences. ``None`` (the default, as
            in Chainer) keeps each input's dtype; pass ``numpy.float64`` to check a float16 or
            float32 function against an accurate numerical gradient.
        detect_nondifferentiable: Raise :class:`NondifferentiableError` at kinks.
        seed: Seed (or ``numpy.random.Generator``) of the random direction; ``None`` draws it
            from NumPy's global random state, so ``numpy.random.seed`` makes the check
            reproducible.

    Raises:
        AssertionError: The analytic and numerical directional derivatives differ.
    """
    xs_data = _as_tuple(x_data)
    params = _as_tuple(params)  # one Variable or a sequence of them, as in Chainer
    if no_grads is None:
        no_grads = [x.dtype.kind != 'f' for x in xs_data]
    elif len(no_grads) != len(xs_data):
        raise ValueError(f'check_backward: no_grads has {len(no_grads)} entries, x_data has '
                         f'{len(xs_data)}')
    xs = [Variable(x, requires_grad=x.dtype.kind == 'f') for x in xs_data]
    ys = _outputs_tuple(func(*xs), 'check_backward')
    gys = _as_tuple(y_grad)
    if y_grad is None:
        for y in ys:
            if y.size != 1:
                raise ValueError(f'check_backward: y_grad is None but an output has shape '
                                 f'{y.shape}; pass y_grad')
        gys = tuple(backend.get_array_module(y.array).ones_like(y.array) for y in ys)
    if len(gys) != len(ys):
        raise ValueError(f'check_backward: func returned {len(ys)} outputs but y_grad has '
                         f'{len(gys)} entries')
    for i, (y, gy) in enumerate(zip(ys, gys)):
        if gy is not None and gy.shape != y.shape:
            raise ValueError(f'check_backward: y_grad[{i}] has shape {gy.shape}, output {i} has '
                             f'shape {y.shape}')

    targets = [x for x, ng in zip(xs, no_grads) if not ng] + list(params)
    # An output that is itself a target (an identity-like first-order gradient) counts directly;
    # other outputs without a graph are constants and contribute nothing.
    target_ids = {id(t) for t in targets}
    live = [(y, gy) for y, gy in zip(ys, gys)
            if gy is not None and (y.creator_node is not None or id(y) in target_ids)]
    # Inputs in no_grads are differentiated too: backward must leave them without a gradient.
    skipped = [x for x, ng in zip(xs, no_grads) if ng and x.requires_grad]
    if live and targets + skipped:
        grads = chainlet.grad([y for y, _ in live], targets + skipped,
                              [backend.get_array_module(gy).asarray(gy, y.dtype)
                               for y, gy in live])
    else:
        grads = [None] * (len(targets) + len(skipped))
    grads, skipped_grads = grads[:len(targets)], grads[len(targets):]
    for i, g in enumerate(skipped_grads):
        if g is not None:
            raise RuntimeError(f'check_backward: an input marked in no_grads received a '
                               f'gradient (skipped input {i}); its gradient must be None')

    # Without a seed the direction comes from NumPy's global random state (as in Chainer), so a
    # test that seeds numpy.random is reproducible; a private generator made runs random.
    rng = numpy.random if seed is None else numpy.random.default_rng(seed)
    target_arrays = [t.array for t in targets]
    if not target_arrays or all(a.size == 0 for a in target_arrays):
        return
    dirs = _random_direction(target_arrays, rng)
    analytic = 0.0
    for g, d, t in zip(grads, dirs, targets):
        if g is None:
            continue
        analytic += float((backend.to_cpu(g.array).astype(numpy.float64) * d).sum())

    # Numerical side: evaluate g(t) = sum(f(x + t d) * gy) in `dtype` on copies of the inputs.
    if dtype is not None and numpy.dtype(dtype).kind != 'f':
        raise ValueError(f'check_backward: argument dtype: expected a floating-point dtype or '
                         f'None, got {numpy.dtype(dtype)}')

    def cast(a: Any) -> Any:  # integer inputs keep their dtype
        return a if dtype is None or a.dtype.kind != 'f' else a.astype(dtype)

    base = [cast(backend.to_cpu(x)) for x in xs_data]
    base_params = [cast(backend.to_cpu(p.array)) for p in params]
    saved_params = [p.array for p in params]
    xp = backend.get_array_module(*xs_data, *saved_params)
    target_index = [i for i, ng in enumerate(no_grads) if not ng]

    delta = numpy.zeros((), numpy.float64)

    def evaluate() -> list:
        t = float(delta)
        arrays = [b.copy() for b in base]
        for k, i in enumerate(target_index):
            arrays[i] = (arrays[i] + t * dirs[k]).astype(arrays[i].dtype)
        for k, p in enumerate(params):
            d = dirs[len(target_index) + k]
            p.array = xp.asarray((base_params[k] + t * d).astype(base_params[k].dtype))
        # Backprop stays on: the function may itself differentiate (check_double_backward).
        outs = _outputs_tuple(func(*[Variable(xp.asarray(a)) for a in arrays]),
                              'check_backward')
        return [None if gy is None else backend.to_cpu(y.array) for y, gy in zip(outs, gys)]

    try:
        numerical = float(numerical_grad(
            evaluate, (delta,), [None if gy is None else backend.to_cpu(gy) for gy in gys],
            eps=eps, detect_nondifferentiable=detect_nondifferentiable, diff_rtol=rtol)[0])
    finally:
        for p, a in zip(params, saved_params):
            p.array = a
    if not abs(analytic - numerical) <= atol + rtol * abs(numerical):
        raise AssertionError(
            f'check_backward: gradients differ from numerical ones along a random direction:\n'
            f'  analytic  {analytic:.10g}\n  numerical {numerical:.10g}\n'
            f'  |diff| {abs(analytic - numerical):.3g} > atol {atol:g} + rtol {rtol:g} * '
            f'|numerical|\n  input shapes {[x.shape for x in xs_data]}, '
            f'dtypes {[str(x.dtype) for x in xs_data]}')


def check_double_backward(func: Callable[..., Any], x_data: Any, y_grad: Any,
                          x_grad_grad: Any, params: Variable | Sequence[Variable] = (),
                          params_grad_grad: Any = (), eps: float = 1e-3, atol: float = 1e-4,
                          rtol: float = 1e-3, no_grads: Optional[Sequence[bool]] = None,
                          dtype: Any = None, detect_nondifferentiable: bool = False,
                          seed: Optional[int] = None) -> None:
    """Check second-order gradients: ``check_backward`` applied to the first-order gradient.

    The function checked maps ``(x, gy)`` to ``grad(func(x), x, gy,
    enable_double_backprop=True)``, with ``x_grad_grad`` (and ``params_grad_grad``) as its
    output gradients.

    Args:
        func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype,
            detect_nondifferentiable, seed: As in :func:`check_backward`.
        x_grad_grad: Gradients for the first-order input gradients (one per float input).
        params_grad_grad: Gradients for the first-order parameter gradients.
    """
    xs_data = _as_tuple(x_data)
    gys_data = _as_tuple(y_grad)
    params = _as_tuple(params)  # one Variable or a sequence of them, as in Chainer
    n_x = len(xs_data)
    if no_grads is None:
        no_grads = [x.dtype.kind != 'f' for x in xs_data]
    ggxs = list(_as_tuple(x_grad_grad))
    n_targets = sum(1 for ng in no_grads if not ng)
    if len(ggxs) == n_x and n_targets != n_x:
        ggxs = [g for g, ng in zip(ggxs, no_grads) if not ng]
    if len(ggxs) != n_targets:
        raise ValueError(f'check_double_backward: x_grad_grad has {len(ggxs)} entries, expected '
                         f'{n_targets} (one per differentiable input)')
    ggps = list(_as_tuple(params_grad_grad))
    if len(ggps) != len(params):
        raise ValueError(f'check_double_backward: params_grad_grad has {len(ggps)} entries, '
                         f'params has {len(params)}')

    def first_order(*inputs: Variable) -> tuple:
        xs = inputs[:n_x]
        gys = inputs[n_x:] if y_grad is not None else None
        ys = _outputs_tuple(func(*xs), 'check_double_backward')
        targets = [x for x, ng in zip(xs, no_grads) if not ng] + list(params)
        grads = chainlet.grad(list(ys), targets, None if gys is None else list(gys),
                              enable_double_backprop=True)
        out = []
        for g, t in zip(grads, targets):
            if g is None:  # unreachable: its gradient is identically zero
                g = Variable(t.xp.zeros_like(t.array), requires_grad=False)
            out.append(g)
        return tuple(out)

    inputs = xs_data + (gys_data if y_grad is not None else ())
    check_backward(first_order, inputs, tuple(ggxs) + tuple(ggps), params=params, eps=eps,
                   atol=atol, rtol=rtol,
                   no_grads=list(no_grads) + [False] * (len(inputs) - n_x), dtype=dtype,
                   detect_nondifferentiable=detect_nondifferentiable, seed=seed)


def __getattr__(name: str) -> Any:
    # Chainer re-exports ``testing.assert_allclose`` here; loaded on first use so that this
    # module does not pull in all of ``chainlet.testing``.
    if name == 'assert_allclose':
        from chainlet.testing.array import assert_allclose
        return assert_allclose
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
