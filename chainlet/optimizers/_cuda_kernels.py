"""Fused CUDA update rules: one elementwise kernel per parameter and step (CuPy only).

Each kernel reads the gradient, the parameter and the state once and writes the parameter and
the state in place (they are output arguments, which CuPy lets a kernel read too). Arithmetic
runs in ``acc_t`` (float32 for float16/float32 parameters, float64 for float64 ones); the state
is rounded to the parameter's dtype before the step uses it, as in the NumPy code.
"""
from __future__ import annotations

from chainlet.functions._cuda_kernels import Elementwise

sgd = Elementwise(
    'T grad, acc_t lr', 'T param',
    'param = (T)((acc_t)param - lr * (acc_t)grad);',
    'sgd')
momentum_sgd = Elementwise(
    'T grad, acc_t lr, acc_t momentum', 'T param, T v',
    'v = (T)(momentum * (acc_t)v - lr * (acc_t)grad);'
    'param = (T)((acc_t)param + (acc_t)v);',
    'momentum_sgd')
ada_grad = Elementwise(
    'T grad, acc_t lr, acc_t eps', 'T param, T h',
    'acc_t g = (acc_t)grad; h = (T)((acc_t)h + g * g);'
    'param = (T)((acc_t)param - lr * g / (sqrt((acc_t)h) + eps));',
    'ada_grad')


def _rmsprop(eps_inside_sqrt: bool) -> Elementwise:
    denom = 'sqrt((acc_t)ms + eps)' if eps_inside_sqrt else 'sqrt((acc_t)ms) + eps'
    return Elementwise(
        'T grad, acc_t lr, acc_t alpha, acc_t eps', 'T param, T ms',
        'acc_t g = (acc_t)grad; ms = (T)(alpha * (acc_t)ms + (1 - alpha) * g * g);'
        f'param = (T)((acc_t)param - lr * g / ({denom}));',
        'rmsprop_inside' if eps_inside_sqrt else 'rmsprop')


def _adam(amsgrad: bool, adabound: bool) -> Elementwise:
    # m += (1 - beta1)(g - m); v += (1 - beta2)(g^2 - v); step = alpha_t / (sqrt(v) + eps),
    # clipped to [lower, upper] for AdaBound; w = w * decay - eta * step * m.
    out = 'T param, T m, T v, T vhat' if amsgrad else 'T param, T m, T v'
    code = ('acc_t g = (acc_t)grad;'
            'm = (T)((acc_t)m + one_minus_beta1 * (g - (acc_t)m));'
            'v = (T)((acc_t)v + one_minus_beta2 * (g * g - (acc_t)v));')
    if amsgrad:
        code += 'vhat = (T)fmax((acc_t)vhat, (acc_t)v); acc_t vh = (acc_t)vhat;'
    else:
        code += 'acc_t vh = (acc_t)v;'
    code += 'acc_t step = alpha_t / (sqrt(vh) + eps);'
    if adabound:
        code += 'step = fmin(fmax(step, lower), upper);'
    code += 'param = (T)((acc_t)param * decay - eta * step * (acc_t)m);'
    return Elementwise(
        'T grad, acc_t alpha_t, acc_t one_minus_beta1, acc_t one_minus_beta2, acc_t eps, '
        'acc_t eta, acc_t decay, acc_t lower, acc_t upper', out, code,
        'adam' + ('_amsgrad' if amsgrad else '') + ('_adabound' if adabound else ''))


rmsprop = {flag: _rmsprop(flag) for flag in (False, True)}
adam = {(a, b): _adam(a, b) for a in (False, True) for b in (False, True)}
