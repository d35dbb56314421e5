"""Chainer's ``FunctionTestCase``, ``LinkTestCase``, ``LinkInitializersTestCase`` and
``unary_math_function_unittest``: correct code passes, each kind of bug is reported."""
from __future__ import annotations

import unittest

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import initializers
from chainlet import testing


class _Square(chainlet.FunctionNode):
    """x ** 2 with a configurable bug."""

    def __init__(self, bug: str = '') -> None:
        self.bug = bug

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        y = x * x
        if self.bug == 'forward':
            y = y + 1
        if self.bug == 'modify':
            x[...] = 0
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        scale = 3.0 if self.bug == 'backward' else 2.0
        if self.bug == 'double':  # right values, but not differentiable correctly
            return chainlet.Variable(2.0 * x.array * gy.array),
        return scale * x * gy,


def _function_case(scratch, bug='', **attrs):
    def generate_inputs(self):
        return np.random.uniform(-1, 1, (3, 2)).astype(np.float64),

    def forward(self, inputs, device):
        return _Square(bug).apply(inputs)

    def forward_expected(self, inputs):
        return inputs[0] ** 2,

    body = dict(generate_inputs=generate_inputs, forward=forward,
                forward_expected=forward_expected)
    body.update(attrs)
    base = scratch.case('TestSquare', body, base=testing.FunctionTestCase)
    bundle = testing.inject_backend_tests(None, [{}])(base)
    cls, = [c.klass for c in bundle.cases]
    return cls


def _method(cls, name):
    return cls(name), name


@pytest.mark.parametrize('test', ['test_forward', 'test_backward', 'test_double_backward'])
def test_correct_function_passes(scratch, test):
    case, name = _method(_function_case(scratch), test)
    getattr(case, name)()


@pytest.mark.parametrize('bug,test,match', [
    ('forward', 'test_forward', 'Outputs do not match'),
    ('modify', 'test_forward', 'Input arrays have been modified'),
    ('backward', 'test_backward', 'backward is not implemented correctly'),
    ('double', 'test_double_backward', 'double backward is not implemented correctly'),
])
def test_bugs_are_reported_as_function_test_error(scratch, bug, test, match):
    case, name = _method(_function_case(scratch, bug), test)
    with pytest.raises(testing.FunctionTestError, match=match):
        getattr(case, name)()


def test_inputs_are_non_contiguous_unless_asked(scratch):
    layouts = []

    def forward(self, inputs, device):
        layouts.append(inputs[0].array.flags.c_contiguous)
        return inputs[0] * inputs[0],

    cls = _function_case(scratch, forward=forward)
    case, name = _method(cls, 'test_forward')
    getattr(case, name)()
    cls_c = _function_case(scratch, forward=forward, contiguous='C')
    case, name = _method(cls_c, 'test_forward')
    getattr(case, name)()
    assert layouts == [False, True]


def test_skip_flags_and_before_test(scratch):
    cls = _function_case(scratch, skip_backward_test=True)
    case, name = _method(cls, 'test_backward')
    with pytest.raises(unittest.SkipTest):
        getattr(case, name)()

    def before_test(self, test_name):
        raise unittest.SkipTest(test_name)
    case, name = _method(_function_case(scratch, before_test=before_test), 'test_forward')
    with pytest.raises(unittest.SkipTest, match='test_forward'):
        getattr(case, name)()


def test_forward_must_return_a_tuple_of_variables(scratch):
    def forward(self, inputs, device):
        return F.identity(*inputs)
    case, name = _method(_function_case(scratch, forward=forward), 'test_forward')
    with pytest.raises(testing.FunctionTestError, match='must return a tuple'):
        getattr(case, name)()


def test_output_dtype_mismatch_is_reported(scratch):
    def forward_expected(self, inputs):
        return (inputs[0] ** 2).astype(np.float32),
    case, name = _method(_function_case(scratch, forward_expected=forward_expected),
                         'test_forward')
    with pytest.raises(testing.FunctionTestError, match='Shapes and/or dtypes'):
        getattr(case, name)()


def _linear_case(scratch, wrong=False):
    def generate_params(self):
        return (np.random.uniform(-1, 1, (3, 2)).astype(np.float32),
                np.random.uniform(-1, 1, (3,)).astype(np.float32))

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 2)).astype(np.float32),

    def create_link(self, inits):
        initial_w, initial_bias = inits
        return L.Linear(2, 3, initialW=initial_w, initial_bias=initial_bias)

    def forward_expected(self, link, inputs):
        x, = inputs
        y = x.dot(link.W.array.T) + link.b.array
        return (y + 1 if wrong else y),

    def get_initializers(self):
        return ([initializers.Constant(1), 2],
                [initializers.Constant(2), testing.InitializerArgument(None, 0)])

    body = dict(param_names=('W', 'b'), generate_params=generate_params,
                generate_inputs=generate_inputs, create_link=create_link,
                forward_expected=forward_expected, get_initializers=get_initializers,
                check_backward_options={'atol': 1e-2, 'rtol': 1e-2})
    link_base = scratch.case('TestLinear', body, base=testing.LinkTestCase)
    init_base = scratch.case('TestLinearInit', body, base=testing.LinkInitializersTestCase)
    classes = []
    for base in (link_base, init_base):
        bundle = testing.inject_backend_tests(None, [{}])(base)
        classes.append(bundle.cases[0].klass)
    return classes


def test_link_test_case_passes_for_linear(scratch):
    link_cls, init_cls = _linear_case(scratch)
    for cls in (link_cls, init_cls):
        result = scratch.run(cls)
        assert result.wasSuccessful(), result.failures + result.errors
        assert result.testsRun >= 1


def test_link_test_case_reports_wrong_expectation(scratch):
    link_cls, _ = _linear_case(scratch, wrong=True)
    case, name = _method(link_cls, 'test_forward')
    with pytest.raises(testing.LinkTestError, match='Outputs do not match'):
        getattr(case, name)()


def test_initializer_argument_checks():
    with pytest.raises(ValueError):
        testing.InitializerArgument(None, None)
    with pytest.raises(TypeError):
        testing.InitializerArgument(None, object())
    arg = testing.InitializerArgument(None, 0)
    assert (arg.argument_value, arg.expected_initializer) == (None, 0)


def test_unary_math_function_unittest_generates_chainer_classes(scratch):
    base = scratch.case('TestExp')
    testing.unary_math_function_unittest(F.exp)(base)
    names = sorted(scratch.generated())
    assert 'TestExp_param_0_{dtype=float16, shape=(3, 2)}' in names
    assert 'TestExp_param_5_{dtype=float64, shape=()}' in names
    assert len(names) == 6
    cls = scratch.generated()['TestExp_param_2_{dtype=float32, shape=(3, 2)}']
    for name in ('test_forward_cpu', 'test_backward_cpu', 'test_double_backward_cpu'):
        case = cls(name)
        case.setUp()
        getattr(case, name)()
    assert [m.name for m in cls.test_forward_gpu.pytestmark] == ['gpu']


def test_unary_math_function_unittest_detects_a_wrong_function(scratch):
    base = scratch.case('TestWrong')
    testing.unary_math_function_unittest(F.exp, func_expected=lambda x, dtype: x)(base)
    cls = scratch.generated()['TestWrong_param_4_{dtype=float64, shape=(3, 2)}']
    case = cls('test_forward_cpu')
    case.setUp()
    with pytest.raises(AssertionError):
        case.test_forward_cpu()


def test_unary_math_function_unittest_needs_a_numpy_reference():
    def no_such_numpy_function(x):
        return x
    with pytest.raises(ValueError, match='no_such_numpy_function'):
        testing.unary_math_function_unittest(no_such_numpy_function)
