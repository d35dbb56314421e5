"""The ``chainer`` distribution in compat/chainer: Chainer's import names served by chainlet.

The fast tests run the packages from ``compat/chainer/src`` in a subprocess (so that ``chainer``
does not leak into this process's ``sys.modules``); the last one installs the distribution in a
fresh virtual environment as a user would, and checks ``pip check`` and uninstalling it.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
import venv

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
COMPAT = ROOT / 'compat' / 'chainer'


def _run(code: str, timeout: int = 300) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(COMPAT / 'src'), str(ROOT)]))
    result = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_chainer_modules_are_chainlets_own_objects():
    _run('''
        import sys
        import chainer, chainlet
        import chainer.functions as F
        import chainer.links.connection.linear as linear
        from chainer import training
        from chainer.training import extensions
        assert F is chainlet.functions
        assert linear is sys.modules['chainlet.links.connection.linear']
        assert linear.__name__ == 'chainlet.links.connection.linear'   # its own spec kept
        assert extensions is chainlet.training.extensions
        assert chainer.Variable is chainlet.Variable
        assert chainer.types is chainlet.types          # not the stdlib module of the shim
        assert isinstance(chainlet.Variable(None), chainer.Variable)
        # a name chainlet lacks is missing under chainer too
        try:
            import chainer.no_such_module
        except ModuleNotFoundError as e:
            assert 'chainer.no_such_module' in str(e)
        else:
            raise AssertionError('imported a module that does not exist')
    ''')


def test_version_is_the_chainer_api_implemented():
    out = _run('''
        import chainer, chainlet
        print(chainer.__version__, chainlet.__version__)
    ''')
    api, own = out.split()
    assert api == '7.8.1'
    assert own != api


def test_monkeypatching_chainer_patches_chainlet():
    _run('''
        from unittest import mock
        import chainer, chainlet
        import chainer.functions
        original = chainlet.functions.relu
        with mock.patch('chainer.functions.relu') as m:
            assert chainlet.functions.relu is m
        assert chainlet.functions.relu is original
        with mock.patch.object(chainer, 'Variable') as m:
            assert chainlet.Variable is m
        assert chainlet.Variable.__module__ == 'chainlet.variable'
        chainer.some_flag = 3
        assert chainlet.some_flag == 3
        del chainer.some_flag
        assert not hasattr(chainlet, 'some_flag')
    ''')


def test_chainerx_is_chainers_fallback():
    _run('''
        import chainerx
        assert chainerx.is_available() is False
        try:
            chainerx.ndarray((2,))
        except RuntimeError as e:
            assert 'not available' in str(e)
        else:
            raise AssertionError('chainerx.ndarray was created')
    ''')


def test_private_names_that_libraries_import():
    _run('''
        import numpy as np
        from chainer._backend import Device
        from chainer.backend import cuda
        from chainer.training.extensions._snapshot import _find_latest_snapshot
        from chainer.dataset.convert import _concat_arrays_with_padding
        from chainer.functions.rnn.n_step_lstm import _lstm
        from chainer.functions.normalization.batch_normalization import (
            GeneralBatchNormalizationImpl)
        import chainer
        import chainlet
        assert isinstance(chainlet.get_device('@numpy'), Device)
        assert cuda is chainlet.backends.cuda
        assert chainer._get_link_hooks() is chainlet.link_hook.get_link_hooks()
        padded = _concat_arrays_with_padding([np.array([1, 2]), np.array([3])], 0)
        assert padded.tolist() == [[1, 2], [3, 0]]
    ''')


def test_declares_chainers_requirements_that_libraries_import():
    # ChainerRL 0.8.0 runs `import filelock` and `from six.moves.urllib import request` on
    # `import chainerrl` without declaring either: real Chainer's install brings them.
    tomllib = pytest.importorskip('tomllib')
    project = tomllib.loads((COMPAT / 'pyproject.toml').read_text())['project']
    names = {dep.split(';')[0].split('[')[0].split('<')[0].split('>')[0].split('=')[0].strip()
             for dep in project['dependencies']}
    assert {'chainlet-dl', 'filelock', 'six'} <= names, project['dependencies']


def _bin(env_dir: pathlib.Path, name: str) -> str:
    return str(env_dir / ('Scripts' if os.name == 'nt' else 'bin') / name)


def test_installs_as_the_chainer_distribution_and_uninstalls_cleanly(tmp_path):
    env_dir = tmp_path / 'venv'
    venv.EnvBuilder(with_pip=True).create(env_dir)
    pip = [_bin(env_dir, 'python'), '-m', 'pip', '--disable-pip-version-check', '-q']

    def run(*args, check=True):
        result = subprocess.run(list(args), capture_output=True, text=True, timeout=900,
                                cwd=tmp_path)
        if check:
            assert result.returncode == 0, result.stdout + result.stderr
        return result

    try:
        run(*pip, 'install', '-e', str(ROOT))
    except subprocess.TimeoutExpired:  # pragma: no cover - depends on the package index
        pytest.skip('installing chainlet in a fresh venv timed out')
    run(*pip, 'install', str(COMPAT))
    python = _bin(env_dir, 'python')
    out = run(python, '-c', textwrap.dedent('''
        import importlib.metadata as md
        import chainer, chainerx, chainermn, chainlet
        import filelock, six.moves.urllib.request  # Chainer's requirements, for its libraries
        assert chainer.functions is chainlet.functions
        print(md.version('chainer'), chainer.__version__, chainerx.is_available())
    ''')).stdout.split()
    assert out[0].startswith('7.8.1+chainlet'), out
    assert out[1:] == ['7.8.1', 'False'], out
    run(*pip, 'check')
    run(*pip, 'uninstall', '-y', 'chainer')
    run(python, '-c', 'import chainlet, chainlet.functions')
    gone = run(python, '-c', 'import chainer', check=False)
    assert gone.returncode != 0 and 'ModuleNotFoundError' in gone.stderr


def test_the_compat_packages_type_check(tmp_path):
    pytest.importorskip('mypy')
    result = subprocess.run([sys.executable, '-m', 'mypy', '--ignore-missing-imports',
                             '--follow-imports=silent', '--cache-dir', str(tmp_path),
                             str(COMPAT / 'src')], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]
