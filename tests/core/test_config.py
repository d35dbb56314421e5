import threading

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
    with pytest.raises(AttributeError, match='no entry .nonexistent_key'):
        chainlet.config.nonexistent_key


def test_show_lists_entries():
    assert 'enable_backprop' in chainlet.config.show()
    assert 'train' in _config.global_config.show()
