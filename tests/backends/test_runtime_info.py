"""chainlet.print_runtime_info / _runtime_info (Chainer's names)."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import chainlet
from chainlet import _runtime_info


def test_runtime_info_without_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, 'cupy', None)
    info = str(_runtime_info.get_runtime_info())
    assert chainlet.__version__ in info and f'NumPy: {np.__version__}\n' in info
    assert 'CuPy: Not Available\n' in info and 'iDeep: Not Available\n' in info
    out = io.StringIO()
    chainlet.print_runtime_info(out)
    assert out.getvalue() == info


def test_print_runtime_info_to_stdout(capsys):
    chainlet.print_runtime_info()
    assert capsys.readouterr().out.startswith('Platform: ')


def test_runtime_info_with_cupy(monkeypatch):
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if sys.modules.get('cupy') is not None:
        pytest.skip('a CuPy is already imported in this process')
    monkeypatch.syspath_prepend(root)
    import tools.cupy_emulator as emulator
    emulator.install()
    try:
        info = str(_runtime_info.get_runtime_info())
    finally:
        emulator.uninstall()
    assert 'CuPy:\n  CuPy Version' in info and '+emulated' in info
