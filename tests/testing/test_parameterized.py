"""Chainer's ``parameterize`` / ``product`` / ``product_dict``: values and generated names."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from chainlet import testing
from chainlet.testing import parameterized


def f(x):
    return x


def test_class_name_sorted_keys_and_type_names():
    name = parameterized._make_class_name('TestErf', 0, {'shape': (3, 2), 'dtype': np.float16})
    assert name == 'TestErf_param_0_{dtype=float16, shape=(3, 2)}'


def test_class_name_functions_strings_and_arrays():
    assert parameterized._make_class_name('T', 3, {'f': f, 'g': lambda x: x, 's': 'a'}) == \
        "T_param_3_{f=f, g=<lambda>, s='a'}"
    assert parameterized._make_class_name('T', 1, {'d': {'k': 1}, 'n': None}) == \
        "T_param_1_{d={'k': 1}, n=None}"


def test_class_name_shortens_long_values_in_the_middle():
    name = parameterized._make_class_name('T', 0, {'v': list(range(100))})
    value = name[len('T_param_0_{v='):-1]
    assert len(value) == 100
    assert value.startswith('[0, 1, 2') and value.endswith('98, 99]') and '...' in value


def test_parameterize_publishes_one_class_per_dict(scratch):
    base = scratch.case('TestA', {'test_x': lambda self: None})
    bundle = testing.parameterize({'a': 1}, {'a': 2})(base)
    names = sorted(scratch.generated())
    assert names == ['TestA_param_0_{a=1}', 'TestA_param_1_{a=2}']
    assert [c.klass.a for c in bundle.cases] == [1, 2]


def test_stacked_parameterize_expands_each_class_and_removes_intermediates(scratch):
    base = scratch.case('TestB', {
        'test_pair': lambda self: self.assertIn((self.p, self.q), [(1, 3), (1, 4), (2, 3),
                                                                   (2, 4)])})
    testing.parameterize({'p': 1}, {'p': 2})(testing.parameterize({'q': 3}, {'q': 4})(base))
    names = sorted(scratch.generated())
    assert names == sorted(f'TestB_param_{i}_{{q={q}}}_param_{j}_{{p={p}}}'
                           for i, q in enumerate((3, 4)) for j, p in enumerate((1, 2)))
    for cls in scratch.generated().values():
        assert scratch.run(cls).wasSuccessful()


def test_plain_function_parameter_is_not_bound_as_a_method(scratch):
    base = scratch.case('TestC', {
        'test_call': lambda self: self.assertEqual(self.fn(4), 4)})
    testing.parameterize({'fn': f}, {'fn': lambda x: x})(base)
    for cls in scratch.generated().values():
        assert scratch.run(cls).wasSuccessful()


def test_failure_message_names_the_parameters(scratch):
    def test_fail(self):
        raise ValueError('boom')
    base = scratch.case('TestD', {'test_fail': test_fail})
    testing.parameterize({'k': 'v'})(base)
    cls, = scratch.generated().values()
    with pytest.raises(ValueError, match=r'(?s)Test parameters:.*k: v.*boom'):
        cls('test_fail').test_fail()


def test_parameterize_rejects_non_test_case():
    with pytest.raises(TypeError, match='unittest.TestCase'):
        testing.parameterize({'a': 1})(object)


def test_product_of_dict_in_sorted_key_order():
    assert testing.product({'b': [3, 4], 'a': [1]}) == [{'a': 1, 'b': 3}, {'a': 1, 'b': 4}]
    assert testing.product({'a': [1, 2], 'b': []}) == []
    assert testing.product({}) == [{}]


def test_product_with_joint_names():
    assert testing.product({'x,y': [(1, 2), (3, 4)], 'z': [0]}) == [
        {'x': 1, 'y': 2, 'z': 0}, {'x': 3, 'y': 4, 'z': 0}]
    with pytest.raises(ValueError):
        testing.product({'x,y': [(1, 2, 3)]})


def test_product_of_lists_of_dicts_and_errors():
    assert testing.product([[{'a': 1}, {'a': 2}], [{'b': 3}]]) == [{'a': 1, 'b': 3},
                                                                   {'a': 2, 'b': 3}]
    with pytest.raises(TypeError):
        testing.product([{'a': 1}])
    with pytest.raises(TypeError):
        testing.product((1, 2))


def test_product_dict_later_dicts_win():
    assert testing.product_dict([{'a': 1, 'b': 1}], [{'b': 2}]) == [{'a': 1, 'b': 2}]
    assert testing.product_dict() == [{}]
    assert testing.product_dict is parameterized._product_dict_orig


def test_parameterize_pytest(scratch):
    base = scratch.case('TestE', {'test_x': lambda self: None})
    testing.parameterize_pytest('a,b', [(1, 2), (3, 4)])(base)
    assert sorted(scratch.generated()) == ['TestE_param_0_{a=1, b=2}',
                                           'TestE_param_1_{a=3, b=4}']
    assert testing.from_pytest_parameterize('a', [1, 2]) == [{'a': 1}, {'a': 2}]


def test_pairwise_product_covers_every_pair():
    lists = [[{'a': i} for i in range(3)], [{'b': i} for i in range(3)],
             [{'c': i} for i in range(2)]]
    combos = parameterized._pairwise_product_dict(*lists)
    assert len(combos) < 18
    for k1, k2 in itertools.combinations('abc', 2):
        n1, n2 = (3 if k in 'ab' else 2 for k in (k1, k2))
        assert {(c[k1], c[k2]) for c in combos} == set(itertools.product(range(n1), range(n2)))
