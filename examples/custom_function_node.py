"""Writing your own differentiable function: ``log(cosh(x))``, the smooth absolute value.

It shows the whole extension surface of chainlet:

* ``check_type_forward`` with Chainer's type-check language (``chainlet.utils.type_check``);
* ``forward_cpu`` / ``forward_gpu`` (NumPy and CuPy code paths, picked by the input's array type);
* ``retain_inputs`` to keep exactly what backward needs (here the input, nothing else);
* a backward written with chainlet functions, so it can be differentiated again;
* checking the gradients with ``chainlet.gradient_check``.

The naive formula ``log(cosh(x))`` overflows for |x| > 710; the forward uses the stable form
``|x| + log1p(exp(-2|x|)) - log(2)``.

Run: python examples/custom_function_node.py
"""
from __future__ import annotations

import numpy as np

import chainlet
import chainlet.functions as F
from chainlet import FunctionNode, backend, gradient_check
from chainlet.utils import type_check


class LogCosh(FunctionNode):
    """y = log(cosh(x)); dy/dx = tanh(x); d2y/dx2 = 1 - tanh(x)^2."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x',))
        x_type, = in_types
        type_check.expect(x_type.dtype.kind == 'f')

    def forward_cpu(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        a = np.abs(x)
        y = a + np.log1p(np.exp(-2 * a)) - np.log(2).astype(x.dtype)
        return y.astype(x.dtype, copy=False),

    def forward_gpu(self, inputs):
        cupy = backend.import_cupy()
        x, = inputs
        self.retain_inputs((0,))
        # One fused kernel instead of four temporaries.
        y = cupy.ElementwiseKernel(
            'T x', 'T y', 'T a = fabs(x); y = a + log1p(exp(-2 * a)) - log((T)2)',
            'chainlet_example_log_cosh')(x)
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return F.tanh(x) * gy,


def log_cosh(x):
    """Elementwise log(cosh(x)), stable for large |x|."""
    return LogCosh().apply((x,))[0]


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, (4, 5))
    gy = rng.standard_normal((4, 5))
    ggx = rng.standard_normal((4, 5))

    y = log_cosh(chainlet.Variable(x))
    np.testing.assert_allclose(y.array, np.log(np.cosh(x)), rtol=1e-12)
    print('forward matches numpy.log(numpy.cosh(x))')

    gradient_check.check_backward(log_cosh, x, gy)
    print('check_backward: ok')
    gradient_check.check_double_backward(log_cosh, x, gy, ggx)
    print('check_double_backward: ok')

    try:
        log_cosh(np.arange(3))
    except type_check.InvalidType as e:
        print('an integer input is refused:', str(e).strip().splitlines()[-2:])

    big = chainlet.Variable(np.array([1e4, -1e4], np.float32))
    print('stable at 1e4:', log_cosh(big).array)

    # Second derivative through chainlet.grad: d2/dx2 log cosh x = 1 - tanh(x)^2.
    xv = chainlet.Variable(np.array([0.5]))
    g, = chainlet.grad([log_cosh(xv)], [xv], enable_double_backprop=True)
    gg, = chainlet.grad([g], [xv])
    print(f'second derivative at 0.5: {gg.item():.6f} (expected {1 - np.tanh(0.5) ** 2:.6f})')


if __name__ == '__main__':
    main()
