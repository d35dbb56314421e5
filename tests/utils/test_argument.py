"""chainlet.utils.argument: parse_kwargs, check_unexpected_kwargs, assert_kwargs_empty."""
import pytest

from chainlet.utils import argument


def _f(**kwargs):
    return argument.parse_kwargs(kwargs, ('foo', 1), ('bar', 2),
                                 train='train argument is not supported anymore')


def test_defaults_and_given_values():
    assert _f() == (1, 2)
    assert _f(bar=3, foo=4) == (4, 3)


def test_unknown_keys_sorted_and_caller_named():
    with pytest.raises(TypeError, match=r"^_f\(\) got unexpected keyword argument\(s\) "
                                        r"'ham', 'spam'$"):
        _f(spam=1, ham=2)


def test_unexpected_key_message():
    with pytest.raises(ValueError, match='train argument is not supported'):
        _f(train=True)


def test_parsed_keys_are_removed():
    kwargs = {'foo': 5}
    assert argument.parse_kwargs(kwargs, ('foo', 0)) == (5,)
    assert kwargs == {}


def test_check_unexpected_kwargs():
    argument.check_unexpected_kwargs({'a': 1}, b='no b')
    with pytest.raises(ValueError, match='no b'):
        argument.check_unexpected_kwargs({'b': 1}, b='no b')


def test_assert_kwargs_empty():
    def g(**kwargs):
        argument.assert_kwargs_empty(kwargs)
    g()
    with pytest.raises(TypeError, match=r"^g\(\) got unexpected keyword argument\(s\) 'x'$"):
        g(x=1)
