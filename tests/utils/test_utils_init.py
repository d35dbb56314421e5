"""chainlet.utils top-level helpers: force_array, force_type, tempdir and the private helpers."""
import collections.abc
import os

import numpy as np
import pytest

import chainlet
from chainlet import utils


@pytest.mark.parametrize('dtype', [None, np.float16, np.float32, np.float64])
@pytest.mark.parametrize('value', [np.float32(1.5), np.array(1.5, np.float32),
                                   np.array([1.5], np.float32)])
def test_force_array(value, dtype):
    y = utils.force_array(value, dtype)
    assert isinstance(y, np.ndarray)
    assert y.dtype == (np.float32 if dtype is None else dtype)
    assert y.shape == np.shape(value)
    np.testing.assert_array_equal(y, np.asarray(value))


def test_force_array_keeps_arrays_and_python_scalars():
    x = np.arange(3.0)
    assert utils.force_array(x) is x
    assert utils.force_array(x, np.float64) is x  # no copy when the dtype already matches
    assert utils.force_array(2.0).dtype == np.float64 and utils.force_array(2.0).shape == ()


def test_force_type():
    y = utils.force_type(np.dtype(np.float32), np.int32(3))
    assert type(y) is np.float32 and y == 3
    x = np.array([1], np.int32)
    assert utils.force_type(np.dtype(np.float32), x).dtype == np.float32
    x32 = np.array([1], np.float32)
    assert utils.force_type(np.dtype(np.float32), x32) is x32


def test_tempdir_removes_directory():
    with utils.tempdir(prefix='chainlet-') as d:
        assert os.path.basename(d).startswith('chainlet-')
        with open(os.path.join(d, 'f'), 'w') as f:
            f.write('x')
    assert not os.path.exists(d)


def test_collections_abc_alias():
    assert utils.collections_abc is collections.abc
    from chainlet.utils import collections_abc
    assert isinstance([], collections_abc.Iterable)


def test_package_exports():
    for name in ('size_of_shape', 'sum_to', 'get_conv_outsize', 'get_deconv_outsize',
                 'experimental', 'final', 'enable_final', 'nondeterministic', 'CooMatrix',
                 'to_coo', 'get_order', 'WalkerAlias', 'force_array', 'force_type', 'tempdir'):
        assert hasattr(utils, name), name
    assert chainlet.utils is utils


def test_repr_with_named_data():
    class Thing:
        pass
    text = utils._repr_with_named_data(Thing(), a=1, b='x')
    assert text.endswith('Thing a=1 b=x>') and text.startswith(f'<{__name__}.')


def test_check_arrays_forward_compatible():
    utils._check_arrays_forward_compatible([np.zeros(1), None, np.ones(2)])


def test_raise_from_keeps_message_and_traceback():
    try:
        1 / 0
    except ZeroDivisionError as e:
        orig = e
    with pytest.raises(ValueError, match=r'outer\n\n\(caused by\)\nZeroDivisionError'):
        utils._raise_from(ValueError, 'outer', orig)


def test_format_array_props():
    text = utils._format_array_props((np.zeros((2, 3), np.float16), None))
    assert text == '(2, 3):float16, None'
    with pytest.raises(TypeError, match='list or tuple'):
        utils._format_array_props(np.zeros(2))


@pytest.mark.gpu
def test_check_arrays_forward_compatible_mixed():
    import cupy
    utils._check_arrays_forward_compatible([cupy.zeros(1), None, cupy.ones(2)])
    with pytest.raises(TypeError, match=r'incompatible array types are mixed in the forward '
                                        r'input \(f\)'):
        utils._check_arrays_forward_compatible([np.zeros(1), cupy.zeros(1)], 'f')
