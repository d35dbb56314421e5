"""``testing.with_requires`` on the names chainlet answers for: ``chainlet`` and ``chainer``."""
import importlib.metadata

from chainlet.testing import helper


def test_chainlet_is_the_chainlet_dl_distribution():
    version = importlib.metadata.version('chainlet-dl')
    assert helper._installed_version('chainlet') == version
    assert helper._satisfied('chainlet>=0.0.1')


def test_chainer_is_the_chainer_api_chainlet_implements(monkeypatch):
    # A Chainer test gated on `chainer>=5` runs, whether or not compat/chainer is installed.
    real = importlib.metadata.version

    def without_chainer(name):
        if name == 'chainer':
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, 'version', without_chainer)
    assert helper._installed_version('chainer') == '7.8.1'
    assert helper._satisfied('chainer>=5')
    assert not helper._satisfied('chainer<7')
    assert helper._installed_version('no-such-distribution') is None
