"""onnx is optional: chainlet imports without it and export says which extra to install.
(No importorskip here: these run in the CI legs without the onnx extra.)"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import chainlet.links as L
import chainlet.onnx
from chainlet import Sequential


def test_import_chainlet_does_not_import_onnx():
    code = ('import sys, chainlet, chainlet.onnx, chainlet.keras; '
            'assert "onnx" not in sys.modules and "onnxruntime" not in sys.modules')
    subprocess.run([sys.executable, '-c', code], check=True)


def test_missing_onnx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, 'onnx', None)
    with pytest.raises(ImportError, match=r'chainlet-dl\[onnx\]'):
        chainlet.onnx.export(Sequential(L.Linear(3, 2)), np.zeros((2, 3), np.float32))


def test_supported_functions_needs_no_onnx():
    names = chainlet.onnx.supported_functions()
    assert {'LinearFunction', 'Convolution2DFunction', 'LSTM', 'EmbedIDFunction'} <= set(names)
    assert names == sorted(names)
