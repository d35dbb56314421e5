"""A griffe extension that adapts chainlet's sources for mkdocstrings (``mkdocs.yml``).

griffe reads the source without importing it, and the docstrings are Google style; four habits
of the package need help, and only what mkdocstrings sees changes (the source is not touched):

- the doctest section is titled ``Example:`` (house style); griffe only knows ``Examples:`` and
  would render ``Example:`` as a Markdown admonition, where ``>>>`` lines become nested block
  quotes and ``[array(...)]`` outputs look like reference links. It is renamed, so the doctests
  render as console code; the few Sphinx roles left (``:class:`Link```) become inline code;
- a package's ``__init__`` re-exports its public names by importing them (Chainer's layout),
  mostly without ``__all__``; griffe counts imported names as private, so a package without
  ``__all__`` gets its imported chainlet classes and functions marked public (not submodules:
  each has its own page or is an implementation detail);
- a module that computes its ``__all__`` (``keras.ops.numpy``, ``keras.ops.nn``) cannot be read
  statically: the module is imported and griffe is given the resulting list, so the packages
  that star-import it re-export the right names;
- some docstrings and functions are made at import time (``__doc__ = _CONV_DOC.format(...)`` in
  the Keras convolutions, ``add = _binary('add', ...)`` in ``keras.ops.numpy``): an object with
  no docstring in the source takes the one it has once imported, and a module-level name bound
  to such a made function is documented as a function with its runtime signature; a name
  bound to another chainlet class or function (``Convolution2D = Conv2D``, which griffe does
  not see when several names are bound at once) says so.
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import re
from typing import Any

import griffe

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_EXAMPLE = re.compile(r'^(?P<indent>[ \t]*)Example:[ \t]*$', re.M)
_ROLE = re.compile(r':(?:py:)?[a-z]+:`~?(?P<text>[^`]+)`')


def _adapt(text: str) -> str:
    """The docstring as griffe's Google parser and Markdown should see it."""
    return _ROLE.sub(r'``\g<text>``', _EXAMPLE.sub(r'\g<indent>Examples:', text))


def _is_module(path: str) -> bool:
    """Whether a dotted chainlet path names a module or package of this repository."""
    file = _ROOT.joinpath(*path.split('.'))
    return file.with_suffix('.py').is_file() or (file / '__init__.py').is_file()


def _own_doc(value: Any) -> str | None:
    """The docstring a chainlet class or function was given itself (not one it inherits)."""
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return None
    if not (getattr(value, '__module__', None) or '').startswith('chainlet'):
        return None
    if inspect.isclass(value) and '__doc__' not in vars(value):
        return None
    return inspect.cleandoc(value.__doc__) if value.__doc__ else None


def _as_function(member: Any, value: Any, doc: str) -> Any:
    """A griffe Function for a module attribute bound to a function made at import time."""
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return None
    parameters = griffe.Parameters(*(
        griffe.Parameter(
            p.name, kind=griffe.ParameterKind(p.kind.description),
            default=None if p.default is inspect.Parameter.empty else repr(p.default))
        for p in signature.parameters.values()))
    function = griffe.Function(member.name, lineno=member.lineno, endlineno=member.endlineno,
                               parameters=parameters)
    function.docstring = griffe.Docstring(doc, parent=function)
    return function


class ChainletDocstrings(griffe.Extension):
    """Adapt docstrings and re-exported names of chainlet's packages for mkdocstrings."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        """Rewrite the docstring of every object griffe loads."""
        docstring = obj.docstring
        if docstring is not None and docstring.value is not None:
            docstring.value = _adapt(docstring.value)

    def on_module_members(self, *, mod: Any, **kwargs: Any) -> None:
        """Fill what only the imported module knows; mark a package's imports public."""
        if not mod.path.startswith('chainlet'):
            return
        self._runtime_docstrings(mod)
        if not mod.is_init_module or mod.exports:
            return
        for name, member in mod.members.items():
            target = member.target_path if member.is_alias else ''
            if (target.startswith('chainlet.') and not name.startswith('_')
                    and not _is_module(target)):
                member.public = True

    def _runtime_docstrings(self, mod: Any) -> None:
        missing = [m for m in mod.members.values() if not m.is_alias and m.docstring is None
                   and (m.is_class or m.is_function or m.is_attribute)]
        try:
            module = importlib.import_module(mod.path)
        except Exception:  # an optional dependency is missing: keep what the source says
            return
        if not mod.exports and '__all__' in mod.members:
            mod.exports = list(getattr(module, '__all__', []))
        for name, value in vars(module).items():  # MaxPool2D, ... = MaxPooling2D, ...
            if (name in mod.members or name.startswith('_') or _own_doc(value) is None
                    or value.__module__ != mod.path or value.__name__ == name
                    or (mod.exports and name not in mod.exports)):
                continue
            attribute = griffe.Attribute(name)
            mod.set_member(name, attribute)
            missing.append(attribute)
        for member in missing:
            value = getattr(module, member.name, None)
            if (member.is_attribute and _own_doc(value) is not None
                    and value.__name__ != member.name):  # Convolution2D = Conv2D
                member.docstring = griffe.Docstring(f'Another name for ``{value.__name__}``.',
                                                    parent=member)
                continue
            doc = _own_doc(value)
            if doc is None:
                continue
            if member.is_attribute and inspect.isfunction(value):
                function = _as_function(member, value, _adapt(doc))
                if function is not None:
                    mod.set_member(member.name, function)
                continue
            if not member.is_attribute:
                member.docstring = griffe.Docstring(_adapt(doc), parent=member)
        for member in mod.members.values():  # classes made with a computed docstring
            if not member.is_alias and member.is_class:
                self._class_docstrings(member, getattr(module, member.name, None))

    def _class_docstrings(self, cls: Any, value: Any) -> None:
        if not inspect.isclass(value):
            return
        for member in cls.members.values():
            if member.is_alias or member.docstring is not None or not member.is_function:
                continue
            doc = _own_doc(vars(value).get(member.name))
            if doc is not None:
                member.docstring = griffe.Docstring(_adapt(doc), parent=member)
