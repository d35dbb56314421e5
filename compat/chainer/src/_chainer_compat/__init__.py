"""How ``chainer`` becomes chainlet: the module class, the import hook and their installation.

Kept apart from ``chainer/__init__.py`` so that the ``chainer`` module's own namespace holds
nothing but its dunders and ``__version__``: every other name is looked up on chainlet (a helper
left in ``chainer``'s dict, such as the stdlib ``types``, would hide ``chainlet.types``).
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any, Optional, Sequence

import chainlet

#: The Chainer release whose API this implements.
CHAINER_API_VERSION: str = getattr(chainlet, '_CHAINER_API_VERSION', '7.8.1')

# Attributes this module keeps for itself; every other one lives on chainlet.
_OWN = frozenset({
    '__name__', '__qualname__', '__doc__', '__file__', '__path__', '__package__', '__loader__',
    '__spec__', '__version__', '__builtins__', '__cached__', '__class__', '__dict__',
    'CHAINER_API_VERSION',
})


class _ChainerModule(types.ModuleType):
    """The ``chainer`` module: reads, writes and deletes go through to chainlet."""

    def __getattr__(self, name: str) -> Any:
        # Only called for names not in this module's own dict.
        return getattr(chainlet, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OWN:
            super().__setattr__(name, value)
        else:
            setattr(chainlet, name, value)

    def __delattr__(self, name: str) -> None:
        if name in _OWN:
            super().__delattr__(name)
        else:
            delattr(chainlet, name)

    def __dir__(self) -> list:
        return sorted(set(dir(chainlet)) | set(self.__dict__))


class _SameModule(importlib.abc.Loader):
    """Loads ``chainer.X`` as the already importable module ``chainlet.X`` (no second copy)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The module ran when chainlet imported it; running it again would make a second copy
        # of every class in it. The import system has just given it the alias's spec: give its
        # own back, so that it stays `chainlet.X` for importlib.reload, pickling and tracebacks.
        module.__spec__ = self._spec


class ChainerIsChainlet(importlib.abc.MetaPathFinder):
    """Finds ``chainer.X.Y`` as ``chainlet.X.Y``; a name chainlet lacks is not found."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[types.ModuleType] = None
                  ) -> Optional[importlib.machinery.ModuleSpec]:
        if not fullname.startswith('chainer.'):
            return None
        name = 'chainlet.' + fullname[len('chainer.'):]
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, AttributeError, ValueError):
            spec = None
        if spec is None:
            return None
        return importlib.util.spec_from_loader(
            fullname, _SameModule(name), is_package=spec.submodule_search_locations is not None)


def install(module: types.ModuleType) -> None:
    """Make ``module`` (the ``chainer`` module) chainlet's twin and install the import hook."""
    if not any(isinstance(f, ChainerIsChainlet) for f in sys.meta_path):
        sys.meta_path.insert(0, ChainerIsChainlet())
    module.__class__ = _ChainerModule
    # Submodules chainlet already imported are chainer's too, before anyone asks for them (a
    # library may reach `chainer.links.connection` as an attribute without importing it).
    for name, mod in list(sys.modules.items()):
        if name.startswith('chainlet.') and mod is not None:
            sys.modules.setdefault('chainer.' + name[len('chainlet.'):], mod)

    # ModuleType's own methods, since the class's would send these to chainlet.
    for name in list(vars(module)):
        if name not in _OWN:
            types.ModuleType.__delattr__(module, name)
    types.ModuleType.__setattr__(module, '__version__', CHAINER_API_VERSION)
