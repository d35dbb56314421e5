"""The CUDA source generators of N-D pooling write the loops of Chainer's kernels."""
from chainlet.functions.pooling import pooling_nd_kernel


class _Max(pooling_nd_kernel.PoolingNDKernelForward):
    def name(self):
        return 'max'

    def in_params(self):
        return ['T coeff']

    def out_params(self):
        return ['S indexes']

    def before(self):
        return 'T maxval = (T)-(1.0/0.0);'

    def main(self, offset, xs):
        return f'T v = in[{offset}];\nif (maxval < v) {{ maxval = v; }}'

    def after(self, out_xs):
        return 'out = maxval;'


class _Sum(pooling_nd_kernel.PoolingNDKernelBackward):
    def name(self):
        return 'sum'

    def in_params(self):
        return (['raw S indexes'], [])

    def before(self):
        return 'T val = 0;'

    def main(self, offset, xs, out_xs):
        return f'val = val + gy[{offset}];'

    def after(self, xs):
        return 'gx = val;'


def test_forward_kernel_3d():
    in_params, out_params, operation, name = _Max.generate(3)
    assert name == 'max_pool_3d_fwd'
    assert in_params == ('raw T in, int32 d_0, int32 d_1, int32 d_2, int32 out_0, int32 out_1, '
                         'int32 out_2, int32 k_0, int32 k_1, int32 k_2, int32 s_0, int32 s_1, '
                         'int32 s_2, int32 p_0, int32 p_1, int32 p_2, T coeff')
    assert out_params == 'T out, S indexes'
    lines = operation.split('\n')
    assert lines[:4] == ['int c0 = i / (out_0 * out_1 * out_2);',
                         'int out_x_0 = i / (out_1 * out_2) % out_0;',
                         'int out_x_1 = i / (out_2) % out_1;',
                         'int out_x_2 = i % out_2;']
    assert 'int in_x1_2 = min(d_2, out_x_2 * s_2 + k_2 - p_2);' in lines
    assert '      int offset_2 = 1 * (x_2 + offset_1);' in lines
    assert '      T v = in[offset_2];' in lines
    assert lines[-1] == 'out = maxval;'
    assert operation.count('{') == operation.count('}')


def test_backward_kernel_1d():
    in_params, out_params, operation, name = _Sum.generate(1)
    assert name == 'sum_pool_1d_bwd'
    assert in_params == ('raw T gy, raw S indexes, int32 d_0, int32 out_0, int32 k_0, '
                         'int32 s_0, int32 p_0')
    assert out_params == 'T gx'
    assert operation.split('\n') == [
        'int c0  = i / (d_0);',
        'int x_0 = i % d_0 + p_0;',
        'int out_x0_0 = max(0, (x_0 - k_0 + s_0) / s_0);',
        'int out_x1_0 = min(out_0, (x_0 + s_0) / s_0);',
        'T val = 0;',
        'for (int out_x_0 = out_x0_0; out_x_0 < out_x1_0; ++out_x_0) {',
        '  int offset_0 = 1 * (out_x_0 + out_0 * c0);',
        '  val = val + gy[offset_0];',
        '}',
        'gx = val;']
