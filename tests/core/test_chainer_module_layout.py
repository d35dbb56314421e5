"""Chainer's module layout: code that imports ``chainer.X`` finds ``chainlet.X``."""
import importlib
import io

import pytest

import chainlet


@pytest.mark.parametrize('name', [
    'function', 'function_node', 'function_hook', 'link_hook', 'initializer', 'sequential',
    'serializer', 'reporter', 'configuration', 'device_resident', 'warnings',
    '_backprop_utils', 'utils.type_check', 'backends.cuda', 'backends.intel64'])
def test_module_exists(name):
    importlib.import_module(f'chainlet.{name}')


@pytest.mark.parametrize('name', [
    'Function', 'FunctionAdapter', 'FunctionNode', 'backward', 'grad', 'DeviceResident',
    'AbstractSerializer', 'Serializer', 'Deserializer', 'print_runtime_info', 'basic_math'])
def test_top_level_name(name):
    assert getattr(chainlet, name) is not None


def test_aliases_are_the_same_objects():
    from chainlet import function_hook, sequential, serializer
    assert function_hook.FunctionHook is chainlet.function_hooks.FunctionHook
    assert sequential.Sequential is chainlet.Sequential
    assert serializer.Serializer is chainlet.Serializer


def test_print_runtime_info():
    out = io.StringIO()
    chainlet.print_runtime_info(out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith('Platform:') and lines[1] == f'Chainlet: {chainlet.__version__}'
    assert any(line.startswith('NumPy:') for line in lines)
