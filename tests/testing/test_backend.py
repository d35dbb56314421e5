"""``BackendConfig`` and ``inject_backend_tests``: configuration, names, marks, injection."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
from chainlet import testing

CPU_NAME = ('use_chainerx_false__chainerx_device_None__use_cuda_false__cuda_device_None__'
            'use_cudnn_never__cudnn_deterministic_false__autotune_false__'
            'cudnn_fast_batch_normalization_false__use_ideep_never')


def test_func_str_lists_every_key_in_chainer_order():
    assert testing.BackendConfig({}).get_func_str() == CPU_NAME
    config = testing.BackendConfig({'use_cuda': True, 'use_cudnn': 'always'})
    assert config.cuda_device == 0
    assert 'use_cuda_true__cuda_device_0__use_cudnn_always' in config.get_func_str()


def test_invalid_params():
    with pytest.raises(TypeError):
        testing.BackendConfig([('use_cuda', True)])
    with pytest.raises(ValueError, match='use_gpu'):
        testing.BackendConfig({'use_gpu': True})
    with pytest.raises(ValueError, match='chainerx_device'):
        testing.BackendConfig({'use_chainerx': True})


def test_marks():
    def names(params):
        # A fresh function per mark (pytest does not mark lambdas).
        def target():
            pass
        for mark in testing.BackendConfig(params).get_pytest_marks():
            target = mark(target)
        return [m.name for m in getattr(target, 'pytestmark', [])]
    assert names({}) == []
    assert names({'use_ideep': 'always'}) == ['ideep']
    assert names({'use_cuda': True}) == ['gpu']
    assert names({'use_cuda': True, 'use_cudnn': 'always'}) == ['gpu', 'cudnn']
    assert names({'use_chainerx': True, 'chainerx_device': 'native:0'}) == ['chainerx']


def test_context_sets_config_and_device_and_restores():
    config = testing.BackendConfig({'use_cudnn': 'always', 'autotune': True})
    before = (chainlet.config.use_cudnn, chainlet.config.autotune)
    with config as entered:
        assert entered is config
        assert chainlet.config.use_cudnn == 'always'
        assert chainlet.config.autotune is True
        with config:  # re-entrant
            assert chainlet.config.use_cudnn == 'always'
        assert chainlet.config.use_cudnn == 'always'
    assert (chainlet.config.use_cudnn, chainlet.config.autotune) == before


def test_cpu_device_xp_and_get_array():
    config = testing.BackendConfig({})
    assert config.xp is np
    assert config.device == chainlet.get_device('@numpy')
    a = np.arange(3.0)
    out = config.get_array((a, None))
    assert isinstance(out[0], np.ndarray) and out[1] is None
    assert 'use_cuda=False' in repr(config)


def test_injection_names_argument_and_stacking(scratch):
    seen = []

    def test_a(self, backend_config):
        seen.append((type(self).__name__, backend_config.use_ideep, self.p))

    base = scratch.case('TestF', {'test_a': test_a})
    testing.parameterize({'p': 1})(
        testing.inject_backend_tests(None, [{}, {'use_ideep': 'always'}])(base))
    names = sorted(scratch.generated())
    ideep_name = CPU_NAME.replace('use_ideep_never', 'use_ideep_always')
    assert names == sorted([f'TestF_{CPU_NAME}_param_0_{{p=1}}',
                            f'TestF_{ideep_name}_param_0_{{p=1}}'])
    for cls in scratch.generated().values():
        assert scratch.run(cls).wasSuccessful()
    assert sorted(s[1] for s in seen) == ['always', 'never']
    ideep_cls = scratch.generated()[f'TestF_{ideep_name}_param_0_{{p=1}}']
    assert [m.name for m in ideep_cls.test_a.pytestmark] == ['ideep']


def test_injection_of_named_methods_keeps_the_others(scratch):
    def test_inj(self, backend_config):
        assert isinstance(backend_config, testing.BackendConfig)

    def test_plain(self):
        pass

    base = scratch.case('TestG', {'test_inj': test_inj, 'test_plain': test_plain})
    bundle = testing.inject_backend_tests(['test_inj'], [{}])(base)
    classes = {c.class_name: c.klass for c in bundle.cases}
    assert classes['TestG'].test_inj is None
    assert classes['TestG'].test_plain is not None
    assert classes[f'TestG_{CPU_NAME}'].test_plain is None
    for cls in classes.values():
        assert scratch.run(cls).wasSuccessful()


def test_injection_argument_checks():
    with pytest.raises(TypeError):
        testing.inject_backend_tests('test_a', [{}])
    with pytest.raises(TypeError):
        testing.inject_backend_tests(None, {})
    with pytest.raises(TypeError):
        testing.inject_backend_tests(None, [1])
