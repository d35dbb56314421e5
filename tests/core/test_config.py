import io
import threading

import numpy as np
import pytest

import chainlet
from chainlet import _config


def test_defaults():
    assert chainlet.config.enable_backprop is True
    assert chainlet.config.train is True
    assert chainlet.config.debug is False
    assert chainlet.config.type_check is True


def test_using_config_restores_and_nests():
    with chainlet.using_config('train', False):
        assert chainlet.config.train is False
        with chainlet.using_config('train', True):
            assert chainlet.config.train is True
        assert chainlet.config.train is False
    assert chainlet.config.train is True
    assert 'train' not in vars(chainlet.config)


def test_using_config_restores_after_exception():
    with pytest.raises(KeyError):
        with chainlet.using_config('debug', True):
            raise KeyError('x')
    assert chainlet.config.debug is False


def test_using_config_as_a_decorator_nests_and_recurses():
    seen = []

    @chainlet.using_config('train', False)
    def f(n):
        seen.append(chainlet.config.train)
        if n:
            with chainlet.using_config('train', True):
                seen.append(chainlet.config.train)
                f(n - 1)
        return chainlet.config.train

    assert f(2) is False
    assert seen == [False, True, False, True, False]
    assert chainlet.config.train is True


def test_backprop_modes():
    with chainlet.no_backprop_mode():
        assert chainlet.config.enable_backprop is False
        with chainlet.force_backprop_mode():
            assert chainlet.config.enable_backprop is True
        assert chainlet.config.enable_backprop is False
    assert chainlet.config.enable_backprop is True


def test_global_default_seen_by_threads_that_did_not_override():
    seen = {}
    old = chainlet.global_config.train
    chainlet.global_config.train = False
    try:
        t = threading.Thread(target=lambda: seen.setdefault('train', chainlet.config.train))
        t.start()
        t.join()
        assert seen['train'] is False
        assert chainlet.config.train is False
    finally:
        chainlet.global_config.train = old


def test_thread_local_override_is_invisible_to_other_threads():
    started, release = threading.Event(), threading.Event()
    seen = {}

    def other():
        started.set()
        release.wait(5)
        seen['train'] = chainlet.config.train
        seen['backprop'] = chainlet.config.enable_backprop

    t = threading.Thread(target=other)
    t.start()
    started.wait(5)
    with chainlet.using_config('train', False), chainlet.no_backprop_mode():
        release.set()
        t.join(5)
        assert chainlet.config.train is False
    assert seen == {'train': True, 'backprop': True}


def test_other_thread_override_does_not_leak_here():
    def other():
        chainlet.config.debug = True
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert chainlet.config.debug is False


def test_user_keys_and_unknown_key_error():
    chainlet.global_config.my_flag = 3
    try:
        assert chainlet.config.my_flag == 3
        with chainlet.using_config('my_flag', 4):
            assert chainlet.config.my_flag == 4
    finally:
        del chainlet.global_config.my_flag
    with pytest.raises(AttributeError, match='nonexistent_key'):
        chainlet.config.nonexistent_key


def test_show_lists_entries(capsys):
    out = io.StringIO()
    chainlet.config.show(out)
    assert 'enable_backprop' in out.getvalue()
    _config.global_config.show()
    assert 'train ' in capsys.readouterr().out


# -- Chainer's configuration module --

def test_configuration_module_is_the_same_objects():
    from chainlet import configuration
    assert configuration.config is chainlet.config
    assert configuration.global_config is chainlet.global_config
    assert configuration.using_config is chainlet.using_config
    assert isinstance(chainlet.config, configuration.LocalConfig)
    assert isinstance(chainlet.global_config, configuration.GlobalConfig)


@pytest.fixture
def local_pair():
    g = _config.GlobalConfig()
    c = _config.LocalConfig(g)
    g.x, g.y = 'global x', 'global y'
    c.y, c.z = 'local y', 'local z'
    return g, c


def test_local_config_over_a_custom_global(local_pair):
    g, c = local_pair
    assert (c.x, c.y, c.z) == ('global x', 'local y', 'local z')
    assert not hasattr(c, 'w')
    del c.y
    assert c.y == 'global y'
    with pytest.raises(AttributeError):
        del c.x  # never set in this thread
    assert g.train is None and c.train is None  # a fresh global knows Chainer's keys
    with chainlet.using_config('x', 'tmp', c):
        assert c.x == 'tmp' and g.x == 'global x'
    assert c.x == 'global x' and 'x' not in vars(c)


def test_local_config_threads_over_a_custom_global(local_pair):
    g, c = local_pair

    def other():
        c.y = 'local y2'
        g.x = 'global x2'
        g.z = 'global z2'
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert (c.y, c.x, c.z, g.z) == ('local y', 'global x2', 'local z', 'global z2')


def test_keys_set_on_any_global_fall_back_per_config(local_pair):
    g, c = local_pair
    g.only_here = 1  # a new key on a custom global is visible through its LocalConfig only
    assert c.only_here == 1 and not hasattr(chainlet.config, 'only_here')
    chainlet.global_config.show_me = 2
    try:
        assert chainlet.config.show_me == 2 and not hasattr(c, 'show_me')
    finally:
        del chainlet.global_config.show_me
    assert not hasattr(chainlet.config, 'show_me')
    g.show = 'a value'  # does not hide LocalConfig.show
    out = io.StringIO()
    c.show(out)
    assert out.getvalue().startswith('only_here 1\n')


def test_show_format_is_chainers(local_pair):
    g, c = local_pair
    c.abc = 1
    out = io.StringIO()
    c.show(out)
    assert out.getvalue() == 'abc 1\nx   global x\ny   local y\nz   local z\n'
    g.abc = 1
    out = io.StringIO()
    g.show(out)
    assert out.getvalue() == 'abc 1\nx   global x\ny   global y\n'
    out = io.StringIO()
    _config.GlobalConfig().show(out)
    assert out.getvalue() == ''


def test_chainer_keys_and_defaults():
    expected = {'debug': False, 'cudnn_deterministic': False, 'warn_nondeterministic': False,
                'enable_backprop': True, 'keep_graph_on_report': False, 'train': True,
                'type_check': True, 'use_cudnn': 'auto', 'use_cudnn_tensor_core': 'auto',
                'autotune': False, 'schedule_func': None, 'use_static_graph': True,
                'use_ideep': 'never', 'lazy_grad_sum': False,
                'cudnn_fast_batch_normalization': False, 'in_recomputing': False,
                '_will_recompute': False, 'compute_mode': None}
    for key, value in expected.items():
        assert getattr(chainlet.config, key) == value, key
    assert chainlet.config.dtype == np.float32 and isinstance(chainlet.config.dtype, np.dtype)


def test_get_dtype_and_mixed16():
    assert chainlet.get_dtype() == np.float32
    assert chainlet.get_dtype(np.float64) == np.dtype(np.float64)
    assert chainlet.get_dtype('f2') == np.float16
    assert repr(chainlet.mixed16) == "dtype('mixed16')"
    assert np.dtype(chainlet.mixed16) == np.float16
    with chainlet.using_config('dtype', chainlet.mixed16):
        assert chainlet.get_dtype() == np.float16
        assert chainlet.get_dtype(map_mixed16=np.float32) == np.float32
        assert chainlet.get_dtype(np.float64, map_mixed16=np.float32) == np.float64
    with chainlet.using_config('dtype', np.float64):
        assert chainlet.get_dtype(map_mixed16=np.float32) == np.float64
    import pickle
    assert pickle.loads(pickle.dumps(chainlet.mixed16)) is chainlet.mixed16


def _defaults_in_subprocess(env: dict) -> str:
    import os
    import subprocess
    import sys
    code = ('import chainlet; c = chainlet.config; '
            'print(c.dtype, c.debug, c.type_check, c.use_cudnn, c.lazy_grad_sum)')
    full = {k: v for k, v in os.environ.items()
            if not k.startswith(('CHAINER_', 'CHAINLET_'))}
    full.update(env)
    run = subprocess.run([sys.executable, '-c', code], env=full, capture_output=True, text=True)
    return run.stdout.strip() or run.stderr.strip().splitlines()[-1]


def test_environment_variables():
    assert _defaults_in_subprocess({}) == 'float32 False True auto False'
    assert _defaults_in_subprocess({'CHAINER_DTYPE': 'float64', 'CHAINER_DEBUG': '1',
                                    'CHAINER_LAZY_GRAD_SUM': '1'}) == \
        'float64 True True auto True'
    # chainlet's own name wins over Chainer's
    assert _defaults_in_subprocess({'CHAINLET_DTYPE': 'float16', 'CHAINER_DTYPE': 'float64',
                                    'CHAINLET_TYPE_CHECK': '0',
                                    'CHAINER_USE_CUDNN': 'never'}) == \
        'float16 False False never False'
    assert _defaults_in_subprocess({'CHAINLET_DTYPE': 'mixed16'}).startswith("dtype('mixed16')")
    assert 'CHAINER_DTYPE: expected float16' in _defaults_in_subprocess(
        {'CHAINER_DTYPE': 'int32'})
    assert 'CHAINLET_DEBUG: expected 0 or 1' in _defaults_in_subprocess({'CHAINLET_DEBUG': 'yes'})


def test_debug_mode_is_deprecated_using_config():
    with pytest.warns(DeprecationWarning, match='DebugMode is deprecated'):
        mode = chainlet.DebugMode(True)
    with mode:
        assert chainlet.config.debug is True
    assert chainlet.config.debug is False
