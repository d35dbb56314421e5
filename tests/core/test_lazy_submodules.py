"""``chainlet.X`` works after a bare ``import chainlet`` for every public subpackage (issue 32).

Each check runs in a fresh interpreter: in this process earlier tests have imported everything.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

PKG = pathlib.Path(__file__).resolve().parents[2] / 'chainlet'
PUBLIC = sorted(p.stem if p.suffix == '.py' else p.name for p in PKG.iterdir()
                if not p.name.startswith('_')
                and (p.suffix == '.py' or (p / '__init__.py').exists()))


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_every_public_subpackage_is_an_attribute_after_import_chainlet():
    code = ('import chainlet, importlib\n'
            f'for name in {PUBLIC!r}:\n'
            '    assert getattr(chainlet, name) is importlib.import_module("chainlet." + name), '
            'name\n'
            'print("ok")\n')
    assert _run(code).strip() == 'ok'


def test_chainlet_onnx_export_without_importing_onnx_first():
    # torch.onnx works after "import torch"; so does chainlet.onnx, and onnx itself is imported
    # only when export runs.
    code = ('import sys, chainlet\n'
            'assert "onnx" not in sys.modules and "chainlet.onnx" not in sys.modules\n'
            'export = chainlet.onnx.export\n'
            'print(callable(export), "onnx" in sys.modules)\n')
    assert _run(code).split() == ['True', 'False']


@pytest.mark.parametrize('name', ['keras', 'distributed', 'exporters', 'onnx', 'training'])
def test_import_chainlet_does_not_load_the_heavy_subpackages(name):
    code = f'import sys, chainlet\nprint("chainlet.{name}" in sys.modules)\n'
    assert _run(code).strip() == 'False'


def test_unknown_attribute_still_raises_attribute_error():
    import chainlet
    with pytest.raises(AttributeError, match="no attribute 'no_such_module'"):
        chainlet.no_such_module
    assert not hasattr(chainlet, '_private_thing')


def test_dir_lists_the_lazy_subpackages():
    import chainlet
    assert {'onnx', 'keras', 'distributed', 'exporters', 'optimizers'} <= set(dir(chainlet))
