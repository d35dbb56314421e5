"""Old-style ``chainlet.Function`` and ``check_type_forward(in_types)``, written exactly as in
Chainer's "Define your own function" guide, with only the word ``chainer`` changed."""
import gc
import weakref

import numpy
import pytest

import chainlet
import chainlet.functions as F
from chainlet import backend, gradient_check
from chainlet.utils import type_check


class MulAdd(chainlet.Function):
    """The guide's old-style function: w = x * y + z on arrays."""

    def check_type_forward(self, in_types):
        type_check.expect(in_types.size() == 3)
        x_type, y_type, z_type = in_types
        type_check.expect(
            x_type.dtype == numpy.float32,
            y_type.dtype == numpy.float32,
            z_type.dtype == numpy.float32,
            x_type.shape == y_type.shape,
            x_type.shape == z_type.shape,
        )

    def forward_cpu(self, inputs):
        x, y, z = inputs
        w = x * y + z
        return w,

    def backward_cpu(self, inputs, grad_outputs):
        x, y, z = inputs
        gw, = grad_outputs
        gx = y * gw
        gy = x * gw
        gz = gw
        return gx, gy, gz


def muladd(x, y, z):
    return MulAdd()(x, y, z)


class ExpAdd(chainlet.Function):
    """The guide's unified CPU/GPU version through get_array_module."""

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        x, y = inputs
        z = xp.exp(x) + xp.exp(y)
        return z,

    def backward(self, inputs, grad_outputs):
        xp = backend.get_array_module(*inputs)
        x, y = inputs
        gz, = grad_outputs
        gx = gz * xp.exp(x)
        gy = gz * xp.exp(y)
        return gx, gy


class MulAddNode(chainlet.FunctionNode):
    """The guide's new-style version, with its type check."""

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'y', 'z'))
        type_check.expect(
            in_types[0].dtype.kind == 'f',
            in_types[0].dtype == in_types[1].dtype,
            in_types[0].dtype == in_types[2].dtype,
            in_types[0].shape == in_types[1].shape,
            in_types[0].ndim >= 1,
        )

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        return x * y + z,

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        gw, = grad_outputs
        return y * gw, x * gw, gw


def _xyz(dtype=numpy.float32, shape=(3, 2)):
    rng = numpy.random.default_rng(0)
    return [rng.uniform(-1, 1, shape).astype(dtype) for _ in range(3)]


def test_old_style_forward_and_backward():
    x, y, z = (chainlet.Variable(a) for a in _xyz())
    w = muladd(x, y, z)
    assert isinstance(w, chainlet.Variable)
    numpy.testing.assert_allclose(w.array, x.array * y.array + z.array)
    assert isinstance(w.creator, MulAdd)
    assert isinstance(w.creator_node, chainlet.FunctionAdapter)
    w.grad = numpy.ones_like(w.array)
    w.backward()
    numpy.testing.assert_allclose(x.grad, y.array)
    numpy.testing.assert_allclose(y.grad, x.array)
    numpy.testing.assert_allclose(z.grad, numpy.ones_like(z.array))


def test_old_style_gradient_check():
    x, y, _ = _xyz(numpy.float64)
    gw = numpy.random.default_rng(1).uniform(-1, 1, x.shape)
    gradient_check.check_backward(lambda x, y: ExpAdd()(x, y), (x, y), gw)


def test_old_style_multiple_outputs_returns_tuple():
    class Split(chainlet.Function):
        def forward(self, inputs):
            x, = inputs
            return x[:1].copy(), x[1:].copy()

        def backward(self, inputs, grad_outputs):
            return numpy.concatenate(grad_outputs),
    a, b = Split()(chainlet.Variable(numpy.arange(3.0)))
    assert a.shape == (1,) and b.shape == (2,)


def test_old_style_type_check_message_names_function_condition_and_values():
    x, y, z = _xyz()
    with pytest.raises(type_check.InvalidType) as e:
        muladd(x, y, z.astype(numpy.float64))
    msg = str(e.value)
    assert 'Invalid operation is performed in: MulAdd (Forward)' in msg
    assert 'Expect: in_types[2].dtype == <class \'numpy.float32\'>' in msg
    assert 'Actual: float64 != <class \'numpy.float32\'>' in msg
    with pytest.raises(type_check.InvalidType, match=r'in_types.size == 3'):
        MulAdd()(x, y)


def test_new_style_check_type_forward_with_argnames():
    x, y, z = _xyz()
    w, = MulAddNode().apply((x, y, z))
    numpy.testing.assert_allclose(w.array, x * y + z)
    with pytest.raises(type_check.InvalidType) as e:
        MulAddNode().apply((x, y[:2], z))
    assert 'Expect: x.shape == y.shape' in str(e.value)
    assert 'Actual: (3, 2) != (2, 2)' in str(e.value)
    # A TypeError too, as our own checks are.
    with pytest.raises(TypeError):
        MulAddNode().apply((x.astype(numpy.int32), y, z))
    scalars = tuple(numpy.asarray(a[0, 0]) for a in (x, y, z))
    with pytest.raises(type_check.InvalidType, match='x.ndim >= 1'):
        MulAddNode().apply(scalars)
    with chainlet.using_config('type_check', False):
        MulAddNode().apply(scalars)


def test_new_style_double_backward():
    x, y, z = _xyz(numpy.float64)
    rng = numpy.random.default_rng(2)
    gw, ggx, ggy, ggz = (rng.uniform(-1, 1, x.shape) for _ in range(4))
    gradient_check.check_double_backward(
        lambda *a: MulAddNode().apply(a)[0], (x, y, z), gw, (ggx, ggy, ggz))


def test_old_style_double_backprop_raises_naming_the_function():
    x = chainlet.Variable(numpy.array([0.5, 1.0]))
    y = ExpAdd()(x, x)
    gx, = chainlet.grad([F.sum(y)], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='ExpAdd'):
        chainlet.grad([F.sum(gx)], [x])


def test_retain_inputs_limits_what_backward_sees():
    seen = []

    class UsesFirst(chainlet.Function):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return inputs[0] * inputs[1],

        def backward(self, inputs, grad_outputs):
            seen.append(inputs[1] is None)
            return grad_outputs[0] * 2, None

    x = chainlet.Variable(numpy.ones(2))
    y = UsesFirst()(x, numpy.full(2, 2.0))
    y.grad = numpy.ones(2)
    y.backward()
    assert seen == [True]


def test_retain_outputs_and_output_data():
    class Exp(chainlet.Function):
        def forward(self, inputs):
            self.retain_outputs((0,))
            return numpy.exp(inputs[0]),

        def backward(self, inputs, grad_outputs):
            y, = self.output_data
            return grad_outputs[0] * y,

    x = chainlet.Variable(numpy.array([0.0, 1.0]))
    f = Exp()
    y = f(x)
    y.grad = numpy.ones(2)
    y.backward()
    numpy.testing.assert_allclose(x.grad, numpy.exp(x.array))
    numpy.testing.assert_allclose(f.output_data[0], numpy.exp(x.array))


def test_ownership_graph_keeps_function_alive_until_graph_dies():
    x = chainlet.Variable(numpy.ones(2, numpy.float32))
    f = MulAdd()
    ref = weakref.ref(f)
    y = f(x, x, x)
    del f
    gc.collect()
    assert ref() is not None and y.creator is ref()
    del y
    gc.collect()
    assert ref() is None


def test_default_backward_gives_no_gradient():
    class NoGrad(chainlet.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

    x = chainlet.Variable(numpy.ones(2))
    y = NoGrad()(x)
    y.grad = numpy.ones(2)
    y.backward()
    assert x.grad is None


def test_backward_returning_wrong_count_or_shape_is_a_clear_error():
    class Bad(chainlet.Function):
        def forward(self, inputs):
            return inputs[0] * 2,

        def backward(self, inputs, grad_outputs):
            return grad_outputs[0][:1],

    x = chainlet.Variable(numpy.ones(2))
    y = Bad()(x)
    y.grad = numpy.ones(2)
    with pytest.raises(ValueError, match='Bad: shape of gradients returned from backward'):
        y.backward()


def test_no_backprop_mode_lives_in_chainer_place():
    from chainlet import function
    x = chainlet.Variable(numpy.ones(1))
    with function.no_backprop_mode():
        y = x * 2
    assert y.creator is None
    with function.no_backprop_mode(), function.force_backprop_mode():
        y = x * 2
    assert y.creator is not None
