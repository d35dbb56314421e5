"""chainlet.utils.conv_nd_kernel: the generated CUDA source and its memoization."""
import re
from unittest import mock

import pytest

from chainlet.utils import conv_nd_kernel


@pytest.mark.parametrize('ndim', [1, 2, 3, 4])
@pytest.mark.parametrize('kernel,array,out', [(conv_nd_kernel.Im2colNDKernel, 'img', 'col'),
                                              (conv_nd_kernel.Col2imNDKernel, 'col', 'img')])
def test_signature(kernel, array, out, ndim):
    in_params, out_params, operation, name = kernel.generate(ndim)
    names = [p.split()[-1] for p in in_params.split(', ')]
    assert in_params.startswith(f'raw T {array}, ')
    assert names[1:] == [f'{prefix}_{j}' for prefix in ('d', 'out', 'k', 's', 'p', 'di')
                         for j in range(ndim)]
    assert out_params == f'raw T {out}'
    assert name == f'{"im2col" if array == "img" else "col2im"}_{ndim}d'
    # Every parameter is used and braces balance.
    for n in names[1:]:
        assert re.search(rf'\b{n}\b', operation), n
    assert operation.count('{') == operation.count('}')
    assert re.search(rf'^ *{out}\[i\] = ', operation, re.M)  # the output is assigned


def _run_im2col(operation, img, ksize, stride, pad, dilate, outs):
    """Interpret the generated im2col body in Python for every output index (C semantics)."""
    import numpy as np
    dims = img.shape[2:]
    flat = img.ravel()
    n_out = img.shape[0] * img.shape[1] * int(np.prod(ksize)) * int(np.prod(outs))
    env = {}
    for prefix, values in zip(('d', 'out', 'k', 's', 'p', 'di'),
                              (dims, outs, ksize, stride, pad, dilate)):
        env.update({f'{prefix}_{j}': v for j, v in enumerate(values)})
    py = operation.replace('ptrdiff_t ', '').replace('int ', '').replace('&&', 'and')
    py = py.replace('/', '//').replace(';', '').replace('(T)0', '0')
    py = re.sub(r'if \((.*)\) \{', r'if \1:', py).replace('} else {', 'else:').replace('}', '')
    py = py.replace('img[', 'flat[').replace('col[i] = ', 'result = ')
    result_all = []
    for i in range(n_out):
        scope = dict(env, i=i, flat=flat)
        exec(py, {}, scope)
        result_all.append(scope['result'])
    return np.array(result_all).reshape(img.shape[:2] + tuple(ksize) + tuple(outs))


def test_im2col_source_computes_im2col():
    import numpy as np
    from chainlet.utils import conv_nd
    img = np.arange(2 * 5 * 4, dtype=np.float64).reshape(1, 2, 5, 4)
    ksize, stride, pad, dilate = (2, 2), (2, 1), (1, 0), (1, 2)
    outs = tuple(conv_nd.get_conv_outsize(d, k, s, p, d=di)
                 for d, k, s, p, di in zip(img.shape[2:], ksize, stride, pad, dilate))
    operation = conv_nd_kernel.Im2colNDKernel.generate(2)[2]
    got = _run_im2col(operation, img, ksize, stride, pad, dilate, outs)
    np.testing.assert_array_equal(got, conv_nd.im2col_nd_cpu(img, ksize, stride, pad,
                                                             dilate=dilate))


def _caching_memoize(for_each_device=False):
    def wrap(f):
        cache = {}

        def cached(*args):
            if args not in cache:
                cache[args] = f(*args)
            return cache[args]
        return cached
    return wrap


def test_memoized_through_cuda_memoize(monkeypatch):
    # The generators are cached by chainlet.backends.cuda.memoize, as Chainer's by cuda.memoize.
    from chainlet.backends import cuda
    monkeypatch.setattr(cuda, 'memoize', _caching_memoize, raising=False)
    generate = mock.Mock(return_value=('a', 'b', 'c', 'd'))
    memoized = conv_nd_kernel._memoized(generate)
    assert memoized(2) == memoized(2) == ('a', 'b', 'c', 'd')
    generate.assert_called_once_with(2)


@pytest.mark.parametrize('kernel', ['Im2colNDKernel', 'Col2imNDKernel'])
def test_generate_calls_patchable_generator(kernel):
    from chainlet.backends import cuda
    if hasattr(cuda, 'clear_memo'):
        cuda.clear_memo()
    cls = getattr(conv_nd_kernel, kernel)
    with mock.patch.object(cls, '_generate', return_value=('a', 'b', 'c', 'd')) as m:
        assert cls.generate(9) == ('a', 'b', 'c', 'd')
    m.assert_called_once_with(9)


@pytest.mark.gpu
@pytest.mark.parametrize('kernel', ['Im2colNDKernel', 'Col2imNDKernel'])
@pytest.mark.parametrize('ndim', [2, 3, 4])
def test_generate_memoized_with_cupy(kernel, ndim):
    # Chainer's test: with CuPy, a second generate() is served from the memo, and
    # cuda.clear_memo() empties it (other tests may have generated these ndims before).
    from chainlet.backends import cuda
    cuda.clear_memo()
    cls = getattr(conv_nd_kernel, kernel)
    with mock.patch.object(cls, '_generate', return_value=('a', 'b', 'c', 'd')) as m:
        cls.generate(ndim)
        cls.generate(ndim)
    m.assert_called_once_with(ndim)
    cuda.clear_memo()


def test_string_helpers():
    k = conv_nd_kernel
    assert k.vars('k', 3) == ['k_0', 'k_1', 'k_2'] and k.vars('k', 0) == []
    assert k.mulexp(['a', 'b']) == 'a * b' and k.mulexp(['a'], 'c') == 'c * a'
    assert k.andexp(['a', 'b'], 'c') == 'c && a && b'
    assert k.muladdexp(['d0', 'd1'], ['x0', 'x1'], 'c') == '(x1 + d1 * (x0 + d0 * c))'
    assert k.muladdexp(['d0', 'd1'], ['x0', 'x1']) == '(x1 + d1 * x0)'
    with pytest.raises(ValueError, match='at least one digit'):
        k.muladdexp([], [])
    assert k.map_(lambda a, b: a + b, [1, 2], [10, 20]) == [11, 22]
    assert k.succ_sublists([1, 2, 3]) == [[1, 2, 3], [2, 3], [3]]
    w = k.Writer()
    w.write('if (a) {', 'inc')
    w.write('b;')
    w.write('} else {', 'decinc')
    w.write('c;')
    w.write('}', 'dec')
    assert w.get() == 'if (a) {\n  b;\n} else {\n  c;\n}'
