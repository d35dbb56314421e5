"""Numerical gradient checks: ``numerical_grad``, ``check_backward``, ``check_double_backward``.

``check_backward`` compares the backward of a function with central differences along one random
direction (as Chainer does): with inputs ``x``, a direction ``d`` and output gradients ``gy``,
``sum(gx * d)`` from backward must match ``(g(e) - g(-e)) / 2e`` where
``g(t) = sum(f(x + t d) * gy)``. The numerical side is evaluated in float64, so the check measures
the analytic gradient of low-precision dtypes against the exact function.

Example:
    >>> import numpy as np
    >>> import chainlet.functions as F
    >>> from chainlet import gradient_check
    >>> x = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    >>> gy = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    >>> gradient_check.check_backward(F.tanh, x, gy, atol=1e-4, rtol=1e-3)
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

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


def _to_float64(a: Any) -> Any:
    if a is None or a.dtype.kind != 'f':
        return a
    return a.astype(numpy.float64)


def numerical_grad(f: Callable[[], Sequence[Any]], inputs: Sequence[Any],
                   grad_outputs: Sequence[Any], eps: float = 1e-3,
                   detect_nondifferentiable: bool = False, diff_atol: float = 0.0,
                   diff_rtol: float = 1e-2) -> tuple:
    """Central-difference gradient of ``sum(f() * grad_outputs)`` for every element of ``inputs``.

    ``f`` takes no argument and reads ``inputs``, which are perturbed in place (and restored).
    Computation happens in the inputs' dtype; pass float64 arrays for accurate results.

    Args:
        f: Callable returning a sequence of output arrays.
        inputs: Arrays that ``f`` reads.
        grad_outputs: Weights of the outputs (``None`` entries are ignored).
        eps: Step size.
        detect_nondifferentiable: Raise :class:`NondifferentiableError` where the left and right
            derivatives disagree (uses two more evaluations per element).
        diff_atol, diff_rtol: Tolerances of that test.

    Returns:
        Tuple of gradient arrays, one per input, with the inputs' shapes.
    """
    def g() -> float:
        total = 0.0
        for y, gy in zip(f(), grad_outputs):
            if gy is None or y is None:
                continue
            y = y.array if isinstance(y, Variable) else y
            total += float((backend.to_cpu(y).astype(numpy.float64) *
                            backend.to_cpu(gy).astype(numpy.float64)).sum())
        return total

    grads = []
    for x in inputs:
        gx = numpy.zeros(x.shape, numpy.float64)
        for i in numpy.ndindex(x.shape):
            orig = x[i].copy()
            values = {}
            steps = (-2, -1, 1, 2) if detect_nondifferentiable else (-1, 1)
            for k in steps:
                x[i] = orig + k * eps
                values[k] = g()
            x[i] = orig
            gx[i] = (values[1] - values[-1]) / (2 * eps)
            if detect_nondifferentiable:
                values[0] = g()
                _check_smooth(values, eps, diff_atol, diff_rtol, i)
        grads.append(gx)
    return tuple(grads)


def _check_smooth(v: dict, eps: float, atol: float, rtol: float, where: Any) -> None:
    left, right = (v[0] - v[-1]) / eps, (v[1] - v[0]) / eps
    outer_left, outer_right = (v[-1] - v[-2]) / eps, (v[2] - v[1]) / eps
    jump = abs(right - left)
    # On a smooth function the slope changes steadily; a kink shows as a jump in the middle
    # that is large compared with the change of slope on either side.
    steady = max(abs(left - outer_left), abs(outer_right - right))
    if jump > atol + rtol * max(abs(left), abs(right)) and jump > 3 * steady:
        raise NondifferentiableError(
            f'the function is not differentiable at element {where}: left derivative {left:.6g}, '
            f'right derivative {right:.6g}')


def _random_direction(arrays: Sequence[Any], rng: Any) -> list:
    dirs = [rng.standard_normal(a.shape) for a in arrays]
    norm = numpy.sqrt(sum(float((d * d).sum()) for d in dirs))
    if norm == 0:
        return dirs
    return [d / norm for d in dirs]


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
                   no_grads: Optional[Sequence[bool]] = None, dtype: Any = numpy.float64,
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
        dtype: Dtype of the numerical evaluation (float64 by default); ``None`` keeps the
            inputs' dtypes.
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
    xs = [Variable(x, requires_grad=not ng) for x, ng in zip(xs_data, no_grads)]
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
    if live and targets:
        grads = chainlet.grad([y for y, _ in live], targets,
                              [backend.get_array_module(gy).asarray(gy, y.dtype)
                               for y, gy in live])
    else:
        grads = [None] * len(targets)
    for x, ng in zip(xs, no_grads):
        if ng and x.grad is not None:
            raise AssertionError('check_backward: an input marked in no_grads received a grad')

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
    cast = _to_float64 if dtype is not None else (lambda a: a)
    base = [cast(backend.to_cpu(x)) for x in xs_data]
    base_params = [cast(backend.to_cpu(p.array)) for p in params]
    saved_params = [p.array for p in params]
    xp = backend.get_array_module(*xs_data, *saved_params)
    target_index = [i for i, ng in enumerate(no_grads) if not ng]

    def evaluate(t: float) -> float:
        arrays = [b.copy() for b in base]
        for k, i in enumerate(target_index):
            arrays[i] = (arrays[i] + t * dirs[k]).astype(arrays[i].dtype)
        for k, p in enumerate(params):
            d = dirs[len(target_index) + k]
            p.array = xp.asarray((base_params[k] + t * d).astype(base_params[k].dtype))
        # Backprop stays on: the function may itself differentiate (check_double_backward).
        outs = _outputs_tuple(func(*[Variable(xp.asarray(a)) for a in arrays]),
                              'check_backward')
        total = 0.0
        for y, gy in zip(outs, gys):
            if gy is not None:
                total += float((backend.to_cpu(y.array).astype(numpy.float64) *
                                backend.to_cpu(gy).astype(numpy.float64)).sum())
        return total

    try:
        steps = (-2, -1, 1, 2) if detect_nondifferentiable else (-1, 1)
        values = {k: evaluate(k * eps) for k in steps}
        if detect_nondifferentiable:
            values[0] = evaluate(0.0)
            _check_smooth(values, eps, 0.0, 1e-2, 'along the checked direction')
    finally:
        for p, a in zip(params, saved_params):
            p.array = a
    numerical = (values[1] - values[-1]) / (2 * eps)
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
                          dtype: Any = numpy.float64, detect_nondifferentiable: bool = False,
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
